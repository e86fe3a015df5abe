package bot_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// waitUntil polls cond for up to two seconds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestQueueBoundsWorkersAndLine(t *testing.T) {
	t.Parallel()
	q := bot.NewQueue(1, 1)
	ctx := context.Background()
	release1, err := q.Acquire(ctx, func(int) { t.Error("the first question waited with a free worker") })
	if err != nil {
		t.Fatal(err)
	}
	positions := make(chan int, 1)
	acquired := make(chan func(), 1)
	go func() {
		release, err := q.Acquire(ctx, func(p int) { positions <- p })
		if err != nil {
			t.Error(err)
		}
		acquired <- release
	}()
	if p := <-positions; p != 1 {
		t.Fatalf("second question is %d in line, want 1", p)
	}
	waitUntil(t, "one waiting", func() bool { return q.Stat().Waiting == 1 })
	_, err = q.Acquire(ctx, nil)
	var full *bot.QueueFullError
	if !errors.As(err, &full) || !errors.Is(err, bot.ErrQueueFull) || full.Running != 1 || full.Waiting != 1 {
		t.Fatalf("third question: %v, want a full queue with 1 running and 1 waiting", err)
	}
	select {
	case <-acquired:
		t.Fatal("the waiting question got a worker before one was released")
	case <-time.After(20 * time.Millisecond):
	}
	release1()
	release2 := <-acquired
	if st := q.Stat(); st.Running != 1 || st.Waiting != 0 {
		t.Fatalf("after handing over: %+v", st)
	}
	release2()
	if st := q.Stat(); st.Running != 0 || st.Waiting != 0 || st.Workers != 1 || st.Size != 1 {
		t.Fatalf("idle queue: %+v", st)
	}
}

func TestQueueWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	q := bot.NewQueue(1, 5)
	release, err := q.Acquire(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := q.Acquire(ctx, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting past the deadline: %v", err)
	}
	if st := q.Stat(); st.Waiting != 0 {
		t.Fatalf("a question that gave up is still counted in line: %+v", st)
	}
}

// gate is an Answerer that blocks every answer until opened, counting the answers started.
type gate struct {
	inner   bot.Answerer
	open    chan struct{}
	mu      sync.Mutex
	started int
}

func (g *gate) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	g.mu.Lock()
	g.started++
	g.mu.Unlock()
	<-g.open
	return g.inner.Answer(ctx, q, onDelta)
}

func (g *gate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.started
}

// turnCounter is an Observer counting outcomes.
type turnCounter struct {
	mu       sync.Mutex
	outcomes map[string]int
}

func (c *turnCounter) ObserveTurn(platform string, out bot.Outgoing, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outcomes[platform+"/"+out.Outcome()]++
}

func TestHandleRepliesBusyWhenTheLineIsFull(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	g := &gate{inner: env.Pipeline, open: make(chan struct{})}
	obs := &turnCounter{outcomes: map[string]int{}}
	h := bot.NewHandler(g, env.Bot, bot.HandlerOptions{Queue: bot.NewQueue(1, 1), Observer: obs,
		RateLimit: bot.RateLimit{PerMinute: 60, Burst: 10}})
	ask := func(user string, queued func(int)) bot.Outgoing {
		return h.Handle(context.Background(), bot.Incoming{Conversation: conv, UserID: user, Text: "How many vacation days do I get per year?",
			Scope: rag.MustScope("everyone"), Audience: bot.AudiencePrivate, Queued: queued}, nil)
	}
	var wg sync.WaitGroup
	results := make([]bot.Outgoing, 2)
	place := make(chan int, 1)
	wg.Add(1)
	go func() { defer wg.Done(); results[0] = ask("U1", nil) }()
	waitUntil(t, "the first answer to start", func() bool { return g.count() == 1 })
	wg.Add(1)
	go func() { defer wg.Done(); results[1] = ask("U2", func(p int) { place <- p }) }()
	if p := <-place; p != 1 {
		t.Fatalf("second question told it is %d in line, want 1", p)
	}
	busy := ask("U3", nil)
	if busy.Reason != bot.ReasonBusy || !strings.Contains(busy.Text, "number 2 in line") || busy.Outcome() != bot.OutcomeBusy {
		t.Fatalf("third question: %q (reason %q), want a busy reply saying it would be number 2 in line", busy.Text, busy.Reason)
	}
	if g.count() != 1 {
		t.Fatalf("%d answers started, want 1 (the busy one must not reach the pipeline)", g.count())
	}
	close(g.open)
	wg.Wait()
	for i, out := range results {
		if out.Outcome() != bot.OutcomeAnswered {
			t.Fatalf("question %d: %q (reason %q), want an answer", i+1, out.Text, out.Reason)
		}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.outcomes["slack/answered"] != 2 || obs.outcomes["slack/busy"] != 1 {
		t.Fatalf("observed outcomes %v", obs.outcomes)
	}
	if st := h.Queue().Stat(); st.Running != 0 || st.Waiting != 0 {
		t.Fatalf("queue not drained: %+v", st)
	}
}

func TestHandleLimitsAWorkspace(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	h := bot.NewHandler(env.Pipeline, env.Bot, bot.HandlerOptions{Now: func() time.Time { return now },
		RateLimit: bot.RateLimit{PerMinute: 60, Burst: 10}, WorkspaceRateLimit: bot.RateLimit{PerMinute: 1, Burst: 2}})
	ask := func(team, user string) bot.Outgoing {
		c := conv
		c.Workspace = team
		return h.Handle(context.Background(), bot.Incoming{Conversation: c, UserID: user, Text: "remote work days?", Scope: rag.MustScope("everyone")}, nil)
	}
	for i, user := range []string{"U1", "U2"} {
		if out := ask("T1", user); out.Reason != bot.ReasonNone {
			t.Fatalf("question %d: %q", i+1, out.Reason)
		}
	}
	if out := ask("T1", "U3"); out.Reason != bot.ReasonWorkspaceRateLimited || out.Outcome() != bot.OutcomeRateLimited {
		t.Fatalf("third question of T1 by a fresh user: reason %q, want workspace_rate_limited", out.Reason)
	}
	if out := ask("T2", "U3"); out.Reason != bot.ReasonNone {
		t.Fatalf("another workspace was limited too: %q", out.Reason)
	}
}
