package slack_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/rag"
)

// panicky panics on its first n answers, then answers with inner.
type panicky struct {
	inner bot.Answerer
	left  atomic.Int32
}

func (p *panicky) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	if p.left.Add(-1) >= 0 {
		var m map[string]int
		m["boom"]++ // a nil map write: a real bug, not a deliberate panic value
	}
	return p.inner.Answer(ctx, q, onDelta)
}

// TestPanicWhileAnsweringGetsAReasonAndTheServerLives is finding 10 of issue 12: a panic in a
// chat worker ended the whole server. It must be logged with its stack, the asker told why,
// and the next question answered.
func TestPanicWhileAnsweringGetsAReasonAndTheServerLives(t *testing.T) {
	t.Parallel()
	b := &bundle{env: setup(t).env, fake: newFakeSlack(t), traces: map[string][]time.Duration{}}
	b.fake.user(fakeUser{ID: "U1", Email: "ana@example.com"})
	b.fake.channel("C1", "U1", "UBOT")
	p := &panicky{inner: b.env.Pipeline}
	p.left.Store(1)
	b.start(t, p)
	got := b.mention(t, "EvP1", "C1", "U1", "How many vacation days do I get per year?").Form["blocks"]
	if !strings.Contains(got, "went wrong") {
		t.Fatalf("after a panic the asker got %q, want a reason", got)
	}
	if logs := b.logs.String(); !strings.Contains(logs, "panic") || !strings.Contains(logs, "assignment to entry in nil map") || !strings.Contains(logs, "goroutine") {
		t.Fatalf("the panic was not logged with its stack:\n%s", logs)
	}
	if got := b.mention(t, "EvP2", "C1", "U1", "How many vacation days do I get per year?").Form["blocks"]; !strings.Contains(got, "22") {
		t.Fatalf("the next question after a panic: %s", got)
	}
}

// TestPanicInTheAdapterGetsAReason: a panic in the adapter's own code (here the Trace hook, at
// the placeholder) still ends in a visible reason in the thread.
func TestPanicInTheAdapterGetsAReason(t *testing.T) {
	t.Parallel()
	var once atomic.Bool
	b := setup(t, func(o *slackbot.Options) {
		o.Trace = func(stage string, d time.Duration) {
			if stage == "placeholder" && once.CompareAndSwap(false, true) {
				panic("trace hook broke")
			}
		}
	})
	got := b.mention(t, "EvQ1", "C1", "U1", "How many vacation days do I get per year?").Form["blocks"]
	if !strings.Contains(got, "went wrong") {
		t.Fatalf("after a panic in the adapter the asker got %q, want a reason", got)
	}
	if logs := b.logs.String(); !strings.Contains(logs, "trace hook broke") || !strings.Contains(logs, "goroutine") {
		t.Fatalf("the panic was not logged with its stack:\n%s", logs)
	}
	if got := b.mention(t, "EvQ2", "C1", "U1", "How many vacation days do I get per year?").Form["blocks"]; !strings.Contains(got, "22") {
		t.Fatalf("the next question after a panic: %s", got)
	}
}
