package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/syncrun"
)

// scrape returns the /metrics page.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

func TestObserveTurnCountsOutcomesAndStages(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	ans := &rag.Answer{
		Timings: map[string]time.Duration{"rewrite": 20 * time.Millisecond, "search": 30 * time.Millisecond, "generate": time.Second},
		Search: &rag.SearchResult{Trace: rag.SearchTrace{Timings: map[string]time.Duration{
			"fts": 5 * time.Millisecond, "vector": 7 * time.Millisecond, "rerank": 40 * time.Millisecond}}},
		Usage: rag.Usage{Model: "gpt-x", PromptTokens: 900, CompletionTokens: 120},
	}
	m.ObserveTurn("slack", bot.Outgoing{Text: "22 days [1]", Answer: ans}, 1500*time.Millisecond)
	m.ObserveTurn("slack", bot.Outgoing{Text: "busy", Reason: bot.ReasonBusy}, time.Millisecond)
	m.ObserveTurn("discord", bot.Outgoing{Abstained: true, Answer: &rag.Answer{Cached: true, Usage: rag.Usage{Model: "gpt-x", PromptTokens: 900}}}, time.Millisecond)
	page := scrape(t, m)
	for _, want := range []string{
		`cita_questions_total{outcome="answered",platform="slack"} 1`,
		`cita_questions_total{outcome="busy",platform="slack"} 1`,
		`cita_questions_total{outcome="abstained",platform="discord"} 1`,
		`cita_stage_duration_seconds_count{stage="generation"} 1`,
		`cita_stage_duration_seconds_count{stage="fts_arm"} 1`,
		`cita_stage_duration_seconds_count{stage="vector_arm"} 1`,
		`cita_stage_duration_seconds_count{stage="rerank"} 1`,
		`cita_stage_duration_seconds_count{stage="rewrite"} 1`,
		`cita_answer_cache_total{result="hit"} 1`,
		`cita_answer_cache_total{result="miss"} 1`,
		`cita_model_tokens_total{kind="prompt",model="gpt-x"} 900`, // the cached answer's tokens are not counted again
		`cita_model_tokens_total{kind="completion",model="gpt-x"} 120`,
		`cita_answer_duration_seconds_count{platform="slack"} 1`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// runnerFunc is a hand-written sync runner.
type runnerFunc func(ctx context.Context, src syncrun.Source, ro syncrun.RunOptions) (syncrun.Result, error)

func (f runnerFunc) Run(ctx context.Context, src syncrun.Source, ro syncrun.RunOptions) (syncrun.Result, error) {
	return f(ctx, src, ro)
}

func TestInstrumentRunnerCountsRunsAndDocuments(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	results := []struct {
		res syncrun.Result
		err error
	}{
		{syncrun.Result{Run: syncrun.Run{Complete: true, Added: 3, Unchanged: 10}, Took: 2 * time.Second}, nil},
		{syncrun.Result{Run: syncrun.Run{Complete: true, Changed: 1, Failed: 2}}, nil},
		{syncrun.Result{}, syncrun.ErrBusy},
		{syncrun.Result{}, errors.New("list drive: 500")},
		{syncrun.Result{Run: syncrun.Run{Complete: true, Withheld: 2}}, nil},
		{syncrun.Result{Run: syncrun.Run{Complete: true, DeletesBlocked: 40}}, fmt.Errorf("wiki: %w: ...", syncrun.ErrMassDelete)},
	}
	i := 0
	r := m.InstrumentRunner(runnerFunc(func(context.Context, syncrun.Source, syncrun.RunOptions) (syncrun.Result, error) {
		defer func() { i++ }()
		return results[i].res, results[i].err
	}))
	for range results {
		_, _ = r.Run(context.Background(), syncrun.Source{Name: "wiki"}, syncrun.RunOptions{})
	}
	page := scrape(t, m)
	for _, want := range []string{
		`cita_sync_runs_total{result="ok",source="wiki"} 1`,
		`cita_sync_runs_total{result="skipped_locked",source="wiki"} 1`,
		`cita_sync_runs_total{result="failed",source="wiki"} 1`,
		`cita_sync_documents_total{result="added",source="wiki"} 3`,
		`cita_sync_documents_total{result="unchanged",source="wiki"} 10`,
		`cita_sync_documents_total{result="failed",source="wiki"} 2`,
		`cita_sync_runs_total{result="partial",source="wiki"} 2`,
		`cita_sync_documents_total{result="withheld",source="wiki"} 2`,
		`cita_sync_runs_total{result="deletions_blocked",source="wiki"} 1`,
		`cita_sync_deletions_blocked{source="wiki"} 40`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestWatchQueueAndInstrumentTransport(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	q := bot.NewQueue(1, 3)
	m.WatchQueue(q)
	release, err := q.Acquire(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = q.Acquire(ctx, nil) }()
	deadline := time.Now().Add(2 * time.Second)
	for q.Stat().Waiting != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if page := scrape(t, m); !strings.Contains(page, "cita_answer_queue_depth 1\n") || !strings.Contains(page, "cita_answer_workers_busy 1\n") {
		t.Fatalf("queue gauges:\n%s", grep(page, "cita_answer_"))
	}

	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{"ok":true}`) }))
	defer api.Close()
	client := &http.Client{Transport: m.InstrumentTransport("slack", nil)}
	resp, err := client.Post(api.URL+"/api/chat.postMessage", "application/x-www-form-urlencoded", strings.NewReader("channel=C1"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if page := scrape(t, m); !strings.Contains(page, `cita_platform_request_duration_seconds_count{code="200",method="chat.postMessage",platform="slack"} 1`) {
		t.Fatalf("platform call not recorded:\n%s", grep(page, "platform_request"))
	}
}

func grep(page, sub string) string {
	var out []string
	for _, l := range strings.Split(page, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
