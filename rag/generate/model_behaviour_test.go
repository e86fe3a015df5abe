package generate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
)

// TestModelFailuresAnswerOfflineAndSayWhatHappened: when the model gives no usable answer the
// same sources are answered offline, and the label says what happened: an error status, an
// error status until the timeout, or a reply citing sources that do not exist.
func TestModelFailuresAnswerOfflineAndSayWhatHappened(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		reply   string
		fail    int // requests answered with HTTP 500 first
		retries int
		why     string
		label   string
	}{
		{name: "500", reply: "unused", fail: 1, retries: -1, why: "error",
			label: "_The answering model failed (HTTP 500), so this answer quotes the documents directly"},
		{name: "500 until the timeout", reply: "unused", fail: 100, retries: 5, why: "timeout",
			label: "_The answering model kept failing (its last reply was HTTP 500) and gave no answer within 3s"},
		{name: "invented citation", reply: "Full-time employees get 30 days of vacation [7].", retries: -1, why: "bad_citations",
			label: "_The answering model's reply cited sources that don't exist, so this answer quotes the documents directly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t, replyWith(tc.reply))
			if tc.fail > 0 {
				srv.FailNext(tc.fail, 500, "")
			}
			cache := &storeCounter{}
			// A timeout only where the test is about it, and one a loaded machine cannot beat: the
			// first HTTP 500 must come back before it (then the client's backoff, 0.5 s, 1 s,
			// 2 s..., outlasts it). With 400 ms a slow loopback answer made it "did not reply".
			timeout := time.Minute
			if tc.why == "timeout" {
				timeout = 3 * time.Second
			}
			p := rag.NewPipeline(hitsSearcher(), NewLLMComposer(newChat(t, srv, tc.retries)), nil, rag.PipelineOptions{
				ModelTimeout: timeout, FallbackComposer: rag.Extractive{}, Cache: cache})
			ans, err := p.Answer(context.Background(), rag.Question{Text: "How many vacation days do I get?", Scope: rag.MustScope("everyone")}, nil)
			if err != nil {
				t.Fatalf("Answer: %v", err)
			}
			if ans.Abstained || ans.ModelFallback != tc.why || !strings.HasPrefix(ans.Text, tc.label) || !strings.Contains(ans.Text, "23 working days") {
				t.Fatalf("answer %q (fallback %q, abstained %v); want the offline quote labelled %q", ans.Text, ans.ModelFallback, ans.Abstained, tc.label)
			}
			if strings.Contains(ans.Text, "did not reply within") && tc.why != "timeout" {
				t.Errorf("a %s is reported as a timeout: %q", tc.why, ans.Text)
			}
			if cache.stored != 0 {
				t.Errorf("the offline stand-in was cached")
			}
		})
	}
}

// TestTheModelDecidesWhatTheLexicalGuardDoubts: with a model the lexical guard only skips the
// hopeless cases, so a paraphrase the word overlap scores below the offline threshold reaches
// the model, which answers it; offline the same question is refused by the guard.
func TestTheModelDecidesWhatTheLexicalGuardDoubts(t *testing.T) {
	t.Parallel()
	const question = "How much paid leave is there for full-time staff?"
	sources := vacationSources()
	support := rag.Support(rag.ComposeRequest{Question: question, Lang: "en", Sources: sources})
	if support.Score < rag.PreFilterEvidence || support.Score >= rag.DefaultMinEvidence {
		t.Fatalf("test premise: support %.3f, want between %.2f and %.2f", support.Score, rag.PreFilterEvidence, rag.DefaultMinEvidence)
	}
	offline, err := rag.NewPipeline(hitsSearcher(), rag.Extractive{}, nil, rag.PipelineOptions{}).Answer(context.Background(),
		rag.Question{Text: question, Scope: rag.MustScope("everyone")}, nil)
	if err != nil || !offline.Abstained {
		t.Fatalf("offline: %v, abstained %v; the premise is a refusal", err, offline.Abstained)
	}
	srv := fakeopenai.New(t, replyWith("Full-time employees get 23 working days of vacation per year [1]."))
	ans, err := newOnlinePipeline(t, srv).Answer(context.Background(), rag.Question{Text: question, Scope: rag.MustScope("everyone")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Abstained || len(srv.Requests()) != 1 || !strings.Contains(ans.Text, "23 working days") {
		t.Fatalf("with a model: %q (abstained %v, %d model calls); want the model's answer", ans.Text, ans.Abstained, len(srv.Requests()))
	}
}
