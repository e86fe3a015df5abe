package slackload_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/bot/slack/slackload"
	"github.com/citahq/cita/rag"
)

var questions = []string{
	"How many vacation days do I get per year?",
	"Do unused vacation days carry over?",
	"How many days per week can I work remotely?",
	"Do remote workers need the VPN?",
}

// generous lets every asker through the per-user limit: the run measures the queue.
var generous = bot.RateLimit{PerMinute: 60000, Burst: 1000}

// TestLoadRunLeavesNoGoroutineOrConnection runs 36 questions, 12 at a time, through the real
// adapter, handler, pipeline and database, then checks that every question got a visible reply
// and that no goroutine or database connection outlives the run.
func TestLoadRunLeavesNoGoroutineOrConnection(t *testing.T) {
	env := bottest.New(t)
	tally := &slackload.Tally{}
	h := bot.NewHandler(env.Pipeline, env.Bot, bot.HandlerOptions{Queue: bot.NewQueue(3, 6), Observer: tally, RateLimit: generous})
	// Warm the pool and the lazy parts of the process before counting.
	h.Handle(context.Background(), bot.Incoming{Conversation: bot.ConversationKey{Platform: "slack", Channel: "CWARM"}, UserID: "UW",
		Text: questions[0], Scope: rag.MustScope("everyone"), Audience: bot.AudiencePrivate, Ephemeral: true}, nil)
	before := runtime.NumGoroutine()

	rep, err := slackload.Run(context.Background(), slackload.Config{Handler: h, Store: env.Bot, Concurrency: 12, PerAsker: 3,
		Questions: questions, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Asked != 36 || rep.Replied != 36 || rep.TimedOut != 0 || len(rep.Placeholder) != 36 {
		t.Fatalf("asked %d, replied %d, timed out %d, placeholders %d; want 36 replies, each after a placeholder",
			rep.Asked, rep.Replied, rep.TimedOut, len(rep.Placeholder))
	}
	outcomes := tally.Outcomes()
	if outcomes[bot.OutcomeAnswered]+outcomes[bot.OutcomeBusy] != 37 || outcomes[bot.OutcomeAnswered] < 2 {
		t.Fatalf("outcomes %v, want 37 (the warm-up and 36) answered or busy", outcomes)
	}
	if rep.Throughput() <= 0 || slackload.Percentile(rep.Final, 50) <= 0 {
		t.Fatalf("no figures: %+v", rep)
	}

	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("%d goroutines before the run, %d after it settled:\n%s", before, after, buf[:n])
	}
	if acquired := env.Pool.Stat().AcquiredConns(); acquired != 0 {
		t.Fatalf("%d database connections still acquired after the run", acquired)
	}
	if st := h.Queue().Stat(); st.Running != 0 || st.Waiting != 0 {
		t.Fatalf("queue not drained: %+v", st)
	}
}

// holdUntilBusy is an Answerer that holds the first answer until the observer has seen a busy
// reply, so a second question finds the only worker taken and no line.
type holdUntilBusy struct {
	inner bot.Answerer
	tally *slackload.Tally
}

func (h holdUntilBusy) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	deadline := time.Now().Add(10 * time.Second)
	for h.tally.Outcomes()[bot.OutcomeBusy] == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return h.inner.Answer(ctx, q, onDelta)
}

func TestBusyReplyIsPostedInSlack(t *testing.T) {
	env := bottest.New(t)
	tally := &slackload.Tally{}
	h := bot.NewHandler(holdUntilBusy{inner: env.Pipeline, tally: tally}, env.Bot,
		bot.HandlerOptions{Queue: bot.NewQueue(1, -1), Observer: tally, RateLimit: generous})
	rep, err := slackload.Run(context.Background(), slackload.Config{Handler: h, Store: env.Bot, Concurrency: 2,
		Questions: questions[:1], Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replied != 2 {
		t.Fatalf("%d of 2 questions got a reply", rep.Replied)
	}
	if o := tally.Outcomes(); o[bot.OutcomeBusy] != 1 || o[bot.OutcomeAnswered] != 1 {
		t.Fatalf("outcomes %v, want one answer and one busy reply", o)
	}
	busy := 0
	for _, text := range rep.Replies {
		if strings.Contains(text, "busy") && strings.Contains(text, "number 1 in line") {
			busy++
		}
	}
	if busy != 1 {
		t.Fatalf("final replies %q, want one saying cita is busy", rep.Replies)
	}
}
