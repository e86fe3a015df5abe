package bot_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// answerFunc is a hand-written Answerer for the failure paths.
type answerFunc func(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error)

func (f answerFunc) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	return f(ctx, q, onDelta)
}

var conv = bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "111.222"}

func TestHandleAnswersAndRemembersTheThread(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	rec := &bottest.Recorder{Inner: env.Pipeline}
	h := bot.NewHandler(rec, env.Bot, bot.HandlerOptions{})
	ctx := context.Background()
	everyone := rag.MustScope("everyone")

	var streamed strings.Builder
	out := h.Handle(ctx, bot.Incoming{Conversation: conv, UserID: "U1", Text: "How many vacation days do I get per year?", Scope: everyone},
		func(d string) { streamed.WriteString(d) })
	if !out.FromPipeline() || out.Abstained || len(out.Sources) == 0 || out.AnswerID == 0 {
		t.Fatalf("first answer: %+v", out)
	}
	if out.Sources[0].Path != "vacation.md" || !strings.Contains(out.Text, "22") {
		t.Fatalf("answer %q cites %s, want vacation.md and 22 days", out.Text, out.Sources[0].Path)
	}
	if streamed.Len() == 0 {
		t.Error("onDelta never received text")
	}
	stored, err := env.Bot.LoadAnswer(ctx, out.AnswerID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Sources[0].DocumentID != out.Sources[0].DocumentID || len(stored.TopHits) == 0 || stored.TopHits[0].FTSRank == 0 && stored.TopHits[0].VectorRank == 0 {
		t.Fatalf("stored record %+v does not match the answer", stored)
	}

	out2 := h.Handle(ctx, bot.Incoming{Conversation: conv, UserID: "U2", Text: "Do unused vacation days carry over?", Scope: everyone}, nil)
	if !out2.FromPipeline() || out2.AnswerID == out.AnswerID {
		t.Fatalf("second answer: %+v", out2)
	}
	second := rec.Questions()[1]
	if len(second.History) != 2 || second.History[0].Role != "user" || !strings.Contains(second.History[0].Text, "vacation days do I get") ||
		second.History[1].Role != "assistant" {
		t.Fatalf("history passed to the pipeline: %+v", second.History)
	}
}

func TestHandleNeverSilent(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	empty := bottest.New(t, []bottest.Doc{}...)
	mustNotAnswer := answerFunc(func(context.Context, rag.Question, func(string)) (*rag.Answer, error) {
		t.Error("the pipeline was called")
		return nil, errors.New("unreachable")
	})
	failing := answerFunc(func(context.Context, rag.Question, func(string)) (*rag.Answer, error) {
		return nil, errors.New("POST /v1/chat/completions: 502 Bad Gateway")
	})
	hanging := answerFunc(func(ctx context.Context, _ rag.Question, _ func(string)) (*rag.Answer, error) {
		<-ctx.Done()
		return nil, fmt.Errorf("compose answer: %w", ctx.Err())
	})
	tests := []struct {
		name     string
		h        *bot.Handler
		in       bot.Incoming
		want     bot.Reason
		wantText string
	}{
		{"no common group in a channel", bot.NewHandler(mustNotAnswer, env.Bot, bot.HandlerOptions{}),
			bot.Incoming{Conversation: conv, UserID: "U1", Text: "salary?", Audience: bot.AudienceChannel}, bot.ReasonNoCommonGroup, "ask me in a DM"},
		{"no group in a DM", bot.NewHandler(mustNotAnswer, env.Bot, bot.HandlerOptions{}),
			bot.Incoming{Conversation: conv, UserID: "U1", Text: "salary?", Audience: bot.AudiencePrivate}, bot.ReasonNoGroup, "access group"},
		{"empty question", bot.NewHandler(mustNotAnswer, env.Bot, bot.HandlerOptions{}),
			bot.Incoming{Conversation: conv, UserID: "U1", Text: "  ", Scope: rag.MustScope("everyone")}, bot.ReasonEmptyQuestion, "question"},
		{"model failure", bot.NewHandler(failing, env.Bot, bot.HandlerOptions{}),
			bot.Incoming{Conversation: conv, UserID: "U1", Text: "vacation days?", Scope: rag.MustScope("everyone")}, bot.ReasonModelFailure, "failed"},
		{"model failure in Spanish", bot.NewHandler(failing, env.Bot, bot.HandlerOptions{}),
			bot.Incoming{Conversation: conv, UserID: "U1", Text: "¿cuántos días de vacaciones tengo?", Scope: rag.MustScope("everyone")}, bot.ReasonModelFailure, "falló"},
		{"whole answer timed out", bot.NewHandler(hanging, env.Bot, bot.HandlerOptions{AnswerTimeout: 200 * time.Millisecond}),
			bot.Incoming{Conversation: conv, UserID: "U1", Text: "vacation days?", Scope: rag.MustScope("everyone")}, bot.ReasonTimeout, "longer than 200ms"},
		{"empty index", bot.NewHandler(empty.Pipeline, empty.Bot, bot.HandlerOptions{IndexEmpty: empty.Bot.IndexEmpty}),
			bot.Incoming{Conversation: conv, UserID: "U1", Text: "vacation days?", Scope: rag.MustScope("everyone")}, bot.ReasonEmptyIndex, "cita index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tt.h.Handle(context.Background(), tt.in, nil)
			if out.Reason != tt.want || !strings.Contains(strings.ToLower(out.Text), strings.ToLower(tt.wantText)) {
				t.Fatalf("reply %q (reason %q), want reason %q mentioning %q", out.Text, out.Reason, tt.want, tt.wantText)
			}
		})
	}
}

func TestHandleAbstainsWithoutEmptyIndexReasonWhenDocumentsExist(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	h := bot.NewHandler(env.Pipeline, env.Bot, bot.HandlerOptions{IndexEmpty: env.Bot.IndexEmpty})
	out := h.Handle(context.Background(), bot.Incoming{Conversation: conv, UserID: "U1", Text: "zxqv wobble frobnicate?", Scope: rag.MustScope("everyone")}, nil)
	if !out.Abstained || out.Reason != bot.ReasonNone || out.AnswerID == 0 {
		t.Fatalf("reply %+v, want a recorded abstention", out)
	}
}

func TestHandleRateLimitsPerUser(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	h := bot.NewHandler(env.Pipeline, env.Bot, bot.HandlerOptions{RateLimit: bot.RateLimit{PerMinute: 1, Burst: 2}, Now: func() time.Time { return now }})
	ask := func(user string) bot.Outgoing {
		return h.Handle(context.Background(), bot.Incoming{Conversation: conv, UserID: user, Text: "remote work days?", Scope: rag.MustScope("everyone")}, nil)
	}
	for i := range 2 {
		if out := ask("U1"); out.Reason != bot.ReasonNone {
			t.Fatalf("question %d: %q", i+1, out.Reason)
		}
	}
	if out := ask("U1"); out.Reason != bot.ReasonRateLimited {
		t.Fatalf("third question in a burst of 2: reason %q, want rate_limited", out.Reason)
	}
	if out := ask("U2"); out.Reason != bot.ReasonNone {
		t.Fatalf("another user was limited too: %q", out.Reason)
	}
	now = now.Add(61 * time.Second)
	if out := ask("U1"); out.Reason != bot.ReasonNone {
		t.Fatalf("after a minute: %q", out.Reason)
	}
}

func TestHandleEphemeralIsNotMemory(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	h := bot.NewHandler(env.Pipeline, env.Bot, bot.HandlerOptions{})
	c := bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C7"}
	out := h.Handle(context.Background(), bot.Incoming{Conversation: c, UserID: "U1", Text: "vacation days per year?",
		Scope: rag.MustScope("everyone"), Audience: bot.AudiencePrivate, Ephemeral: true}, nil)
	if out.AnswerID == 0 {
		t.Fatalf("ephemeral answer not recorded: %+v", out)
	}
	if ok, _ := env.Bot.HasTurns(context.Background(), c); ok {
		t.Fatal("an ephemeral answer became memory of the channel")
	}
	rec, _ := env.Bot.LoadAnswer(context.Background(), out.AnswerID)
	if rec.VisibleTo != "U1" {
		t.Fatalf("visible_to = %q, want U1", rec.VisibleTo)
	}
}

// TestHandleRecoversFromAPanicInTheAnswerer: a panic while answering becomes a reason reply
// (never silence, never a crashed server), the worker is given back and the stack is logged.
func TestHandleRecoversFromAPanicInTheAnswerer(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	var logs strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), nil))
	boom := answerFunc(func(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
		var hits []rag.Hit
		_ = hits[3] // index out of range
		return nil, nil
	})
	h := bot.NewHandler(boom, env.Bot, bot.HandlerOptions{Queue: bot.NewQueue(1, -1), Logger: logger})
	out := h.Handle(context.Background(), bot.Incoming{Conversation: conv, UserID: "U1", Text: "¿cuántos días de vacaciones tengo?",
		Scope: rag.MustScope("everyone")}, nil)
	if out.Reason != bot.ReasonInternalError || out.Outcome() != bot.OutcomeError || out.Lang != "es" || out.Text != bot.ReasonText("es", bot.ReasonInternalError) {
		t.Fatalf("after a panic: %+v, want the internal_error reason in Spanish", out)
	}
	if st := h.Queue().Stat(); st.Running != 0 {
		t.Fatalf("the worker was not given back: %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "index out of range") || !strings.Contains(logs.String(), "goroutine") {
		t.Fatalf("the panic was not logged with its stack:\n%s", logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
