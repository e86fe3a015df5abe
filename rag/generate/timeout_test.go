package generate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
)

// storeCounter is a rag.AnswerCache that never hits and counts the answers stored.
type storeCounter struct{ stored int }

func (c *storeCounter) Lookup(context.Context, rag.CacheKey) (*rag.Answer, error) { return nil, nil }
func (c *storeCounter) Store(context.Context, rag.CacheKey, *rag.Answer) error {
	c.stored++
	return nil
}

// boundedPipeline is the pipeline cmd/cita wires with a chat model and chat.timeout: the model
// composes, the extractive composer stands in when the model falls silent for timeout.
func boundedPipeline(t *testing.T, srv *fakeopenai.Server, timeout time.Duration, cache rag.AnswerCache) *rag.Pipeline {
	t.Helper()
	return rag.NewPipeline(hitsSearcher(), NewLLMComposer(newChat(t, srv, -1)), nil, rag.PipelineOptions{
		ModelTimeout: timeout, FallbackComposer: rag.Extractive{}, Cache: cache})
}

func TestHangingModelTimesOutToALabelledOfflineAnswer(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, replyWith("Full-time employees get 23 working days of vacation [1]."))
	srv.Delay(30 * time.Second) // hangs: the client's own timeout is 5 s
	cache := &storeCounter{}
	start := time.Now()
	var streamed strings.Builder
	ans, err := boundedPipeline(t, srv, 300*time.Millisecond, cache).Answer(context.Background(),
		rag.Question{Text: "How many vacation days do I get?", Scope: rag.MustScope("everyone")}, func(d string) { streamed.WriteString(d) })
	if err != nil {
		t.Fatalf("Answer: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("answered after %s; the model's timeout was 300ms", took)
	}
	label := rag.TimeoutNoticeText("en", 300*time.Millisecond)
	if !ans.ModelTimedOut || ans.Abstained || !strings.HasPrefix(ans.Text, label) || !strings.Contains(ans.Text, "23 working days") {
		t.Fatalf("answer %q (timed out %v, abstained %v), want the labelled offline answer", ans.Text, ans.ModelTimedOut, ans.Abstained)
	}
	if len(ans.Sources) == 0 || ans.Sources[0].ChunkID != 11 {
		t.Errorf("sources %+v, want the vacation policy cited", ans.Sources)
	}
	if !strings.Contains(streamed.String(), label) {
		t.Errorf("streamed %q, want the label streamed too", streamed.String())
	}
	if cache.stored != 0 {
		t.Errorf("the offline stand-in was cached %d time(s)", cache.stored)
	}
}

func TestSlowlyStreamingModelIsNotCutOff(t *testing.T) {
	t.Parallel()
	reply := "Full-time employees get 23 working days of vacation per year [1]. Unused days expire on 31 March [1]."
	srv := fakeopenai.New(t, replyWith(reply), fakeopenai.WithStreamInterval(60*time.Millisecond))
	start := time.Now()
	ans, err := boundedPipeline(t, srv, 250*time.Millisecond, nil).Answer(context.Background(),
		rag.Question{Text: "How many vacation days do I get?", Scope: rag.MustScope("everyone")}, func(string) {})
	if err != nil {
		t.Fatalf("Answer: %v", err)
	}
	if time.Since(start) < 250*time.Millisecond {
		t.Fatalf("the stream took under the timeout; the test proves nothing")
	}
	if ans.ModelTimedOut || ans.Text != reply {
		t.Errorf("answer %q (timed out %v), want the model's whole answer", ans.Text, ans.ModelTimedOut)
	}
}
