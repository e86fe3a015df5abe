package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/bot/slack/slackload"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/indexer"
)

// loadUsage documents `cita bench --load`.
const loadUsage = `Usage: cita bench --load N [--per-asker 3] [--workers W] [--queue Q] [--corpus testdata/corpus]
                  [--assistant] [--fake-model]

Indexes the sample corpus into an isolated namespace (dropped afterwards) and lets N askers ask
at once through the whole path of a Slack question: a signed Events API request to the real
Slack adapter, access resolution, the placeholder, the answer queue (W workers, a line of Q; the
server section of the configuration by default), the answering pipeline on PostgreSQL, and the
final reply, against a loopback fake of the Slack Web API. Each asker waits for its reply before
asking again. Prints throughput, the latency of the final reply and of the first visible
response (the placeholder) as percentiles, and the outcomes (answered, abstained, busy...).

--assistant asks in Slack assistant threads (a DM thread per question) instead: the first
visible response is the "Searching the handbook…" status, and the answer's first words are
measured too (streamed natively within Slack's rate tiers, else a message updated in place).
--fake-model answers with a loopback chat model streaming a word every 20 ms (the answer cache is
off, so every answer goes through it), and measures the first words on Slack from the moment the
model received the request, that is once retrieval had ended.

Flags:
`

// loadRequested reports whether bench args ask for the load benchmark.
func loadRequested(args []string) bool {
	for _, a := range args {
		if a == "--load" || a == "-load" || strings.HasPrefix(a, "--load=") || strings.HasPrefix(a, "-load=") {
			return true
		}
	}
	return false
}

func runLoadBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags("bench", e, loadUsage)
	load := fs.Int("load", 0, "concurrent askers")
	perAsker := fs.Int("per-asker", 3, "questions each asker asks, one after the other")
	workers := fs.Int("workers", 0, "answer workers (default: server.workers, 8)")
	queueSize := fs.Int("queue", 0, "places in the answer line (default: server.queue_size, 64; -1: none)")
	corpus := fs.String("corpus", "testdata/corpus", "folder of documents to index")
	access := fs.String("access", "", "access rules for the corpus (default: corpus.yaml next to the folder, when present)")
	questionsFile := fs.String("questions", "", "JSONL file of {\"question\": ...} (default: sample-questions.jsonl next to the folder)")
	noCache := fs.Bool("no-cache", false, "turn the answer cache off (repeated questions otherwise hit it)")
	asJSON := fs.Bool("json", false, "print the figures as one JSON object")
	assistant := fs.Bool("assistant", false, "ask in Slack assistant threads (status, native streaming) instead of channel mentions")
	fakeModel := fs.Bool("fake-model", false, "answer with a loopback chat model that streams a word every 20 ms (no answer cache)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (go tool pprof) to FILE, from the first question to the last reply")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *load <= 0 {
		return fmt.Errorf("--load: give the number of concurrent askers, e.g. --load 50")
	}
	root, err := filepath.Abs(*corpus)
	if err != nil {
		return err
	}
	if *access == "" {
		*access = sibling(root, "corpus.yaml")
	}
	if *questionsFile == "" {
		*questionsFile = sibling(root, "sample-questions.jsonl")
	}
	questions, err := readQuestions(*questionsFile)
	if err != nil {
		return err
	}

	a, closeApp, err := openScratchApp(ctx, e, "cita_load")
	if err != nil {
		return err
	}
	defer closeApp()
	rep, err := indexFolder(ctx, e, a, root, *access)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "indexed %d documents (%d chunks) into a scratch namespace\n", rep.Listed, rep.Chunks)

	var model *slackload.FakeModel
	if *fakeModel {
		model = slackload.NewFakeModel(20 * time.Millisecond)
		defer model.Close()
		a.cfg.Chat.BaseURL, a.cfg.Chat.Model, a.cfg.Chat.APIKey, a.cfg.Chat.Agent = model.URL(), "fake", "", false
		if a.cfg.Chat.Timeout <= 0 {
			a.cfg.Chat.Timeout = config.DefaultChatTimeout
		}
		*noCache = true
	}
	if *noCache {
		off := false
		a.cfg.Cache.Enabled = &off
	}
	server := a.cfg.Server
	if *workers != 0 {
		server.Workers = *workers
	}
	if *queueSize != 0 {
		server.QueueSize = *queueSize
	}
	server = server.WithDefaults()
	p, err := a.pipeline(ctx, e)
	if err != nil {
		return err
	}
	store := pgbot.New(a.pool)
	tally := &slackload.Tally{}
	queue := bot.NewQueue(server.Workers, server.QueueSize)
	handler := bot.NewHandler(p, store, bot.HandlerOptions{Queue: queue, Observer: tally, IndexEmpty: store.IndexEmpty,
		RateLimit: bot.RateLimit{PerMinute: 6000, Burst: max(*perAsker, 1)}, Logger: e.logger})
	goroutinesBefore := runtime.NumGoroutine()
	fmt.Fprintf(e.stderr, "asking %d questions, %d at a time (%d workers, a line of %d)\n", *load**perAsker, *load, server.Workers, server.QueueSize)
	stopProfile := func() {}
	if *cpuProfile != "" {
		if stopProfile, err = startCPUProfile(*cpuProfile); err != nil {
			return err
		}
	}
	res, err := slackload.Run(ctx, slackload.Config{Handler: handler, Store: store, Concurrency: *load, PerAsker: *perAsker,
		Questions: questions, Logger: e.logger, Assistant: *assistant, Model: model})
	stopProfile()
	if err != nil {
		return err
	}
	settleGoroutines(goroutinesBefore)
	return printLoad(e, *asJSON, loadFigures{
		Concurrency: *load, Asked: res.Asked, Replied: res.Replied, TimedOut: res.TimedOut, Workers: server.Workers, Queue: server.QueueSize,
		Throughput: res.Throughput(), WallS: res.Wall.Seconds(),
		FinalP50: ms(slackload.Percentile(res.Final, 50)), FinalP95: ms(slackload.Percentile(res.Final, 95)), FinalP99: ms(slackload.Percentile(res.Final, 99)),
		FirstP50: ms(slackload.Percentile(res.Placeholder, 50)), FirstP95: ms(slackload.Percentile(res.Placeholder, 95)),
		PipelinePerS: float64(tally.Outcomes()[bot.OutcomeAnswered]+tally.Outcomes()[bot.OutcomeHedged]+tally.Outcomes()[bot.OutcomeAbstained]) / res.Wall.Seconds(),
		Assistant:    *assistant, FakeModel: *fakeModel, NativeStreams: res.Calls["chat.startStream"],
		StatusP50: ms(slackload.Percentile(res.Status, 50)), StatusP95: ms(slackload.Percentile(res.Status, 95)),
		WordsP50: ms(slackload.Percentile(res.FirstWords, 50)), WordsP95: ms(slackload.Percentile(res.FirstWords, 95)),
		AfterModelP50: ms(slackload.Percentile(res.FirstWordsAfterModel, 50)), AfterModelP95: ms(slackload.Percentile(res.FirstWordsAfterModel, 95)),
		AfterModelN: len(res.FirstWordsAfterModel),
		Outcomes:    tally.Outcomes(), CacheHits: tally.CacheHits(), AcquiredConns: a.pool.Stat().AcquiredConns(), GoroutinesLeft: runtime.NumGoroutine() - goroutinesBefore,
	})
}

// loadFigures is what `cita bench --load` prints.
type loadFigures struct {
	Concurrency    int            `json:"concurrency"`
	Asked          int            `json:"asked"`
	Replied        int            `json:"replied"`
	TimedOut       int            `json:"timed_out"`
	Workers        int            `json:"workers"`
	Queue          int            `json:"queue"`
	Throughput     float64        `json:"questions_per_s"`
	PipelinePerS   float64        `json:"pipeline_answers_per_s"`
	WallS          float64        `json:"wall_s"`
	FinalP50       float64        `json:"final_p50_ms"`
	FinalP95       float64        `json:"final_p95_ms"`
	FinalP99       float64        `json:"final_p99_ms"`
	FirstP50       float64        `json:"first_visible_p50_ms"`
	FirstP95       float64        `json:"first_visible_p95_ms"`
	Assistant      bool           `json:"assistant"`
	FakeModel      bool           `json:"fake_model"`
	NativeStreams  int            `json:"native_streams"`
	StatusP50      float64        `json:"status_p50_ms,omitempty"`
	StatusP95      float64        `json:"status_p95_ms,omitempty"`
	WordsP50       float64        `json:"first_words_p50_ms,omitempty"`
	WordsP95       float64        `json:"first_words_p95_ms,omitempty"`
	AfterModelP50  float64        `json:"first_words_after_retrieval_p50_ms,omitempty"`
	AfterModelP95  float64        `json:"first_words_after_retrieval_p95_ms,omitempty"`
	AfterModelN    int            `json:"first_words_after_retrieval_n,omitempty"`
	Outcomes       map[string]int `json:"outcomes"`
	CacheHits      int            `json:"cache_hits"`
	AcquiredConns  int32          `json:"db_conns_acquired_after"`
	GoroutinesLeft int            `json:"goroutines_left_after"`
}

func printLoad(e *env, asJSON bool, f loadFigures) error {
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(f)
	}
	var outcomes []string
	for k, v := range f.Outcomes {
		outcomes = append(outcomes, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(outcomes)
	fmt.Fprintf(e.stdout, "load %d askers, %d questions (%d workers, line of %d): %.1f replies/s over %.1fs, %.1f of them answers or abstentions/s\n",
		f.Concurrency, f.Asked, f.Workers, f.Queue, f.Throughput, f.WallS, f.PipelinePerS)
	fmt.Fprintf(e.stdout, "  reply latency p50 %.0f ms, p95 %.0f ms, p99 %.0f ms\n", f.FinalP50, f.FinalP95, f.FinalP99)
	target := "met"
	if f.FirstP95 >= 1000 {
		target = "MISSED"
	}
	if f.Assistant {
		target = "met"
		if f.StatusP95 >= 1000 {
			target = "MISSED"
		}
		fmt.Fprintf(e.stdout, "  assistant threads: status visible p50 %.1f ms, p95 %.1f ms (target < 1 s: %s)\n", f.StatusP50, f.StatusP95, target)
		fmt.Fprintf(e.stdout, "  first words on Slack p50 %.0f ms, p95 %.0f ms after the question; %d of %d answers streamed natively (the rest: chat.update, past the rate tier)\n",
			f.WordsP50, f.WordsP95, f.NativeStreams, f.Replied)
		if f.FakeModel {
			target = "met"
			if f.AfterModelP95 >= 2000 {
				target = "MISSED"
			}
			fmt.Fprintf(e.stdout, "  first words after retrieval ended (the model got the request) p50 %.0f ms, p95 %.0f ms over %d answers (target < 2 s: %s)\n",
				f.AfterModelP50, f.AfterModelP95, f.AfterModelN, target)
		}
	} else {
		fmt.Fprintf(e.stdout, "  first visible response (placeholder) p50 %.1f ms, p95 %.1f ms (target < 1 s: %s)\n", f.FirstP50, f.FirstP95, target)
	}
	fmt.Fprintf(e.stdout, "  outcomes: %s (%d from the answer cache); replied %d, timed out %d\n", strings.Join(outcomes, ", "), f.CacheHits, f.Replied, f.TimedOut)
	fmt.Fprintf(e.stdout, "  after the run: %d database connections acquired, %d goroutines more than before\n", f.AcquiredConns, f.GoroutinesLeft)
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// settleGoroutines waits up to five seconds for the goroutine count to fall back to n.
func settleGoroutines(n int) {
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

// indexFolder indexes the folder root into a's index as cita index does, with the access rules
// of the file access ("" for none: every document to the default groups).
func indexFolder(ctx context.Context, e *env, a *app, root, access string) (*indexer.Report, error) {
	rules := config.AccessRules{}
	if access != "" {
		var err error
		if rules, err = config.LoadAccessRules(access); err != nil {
			return nil, err
		}
	} else if err := rules.Compile(); err != nil {
		return nil, err
	}
	items, _, err := indexer.ListFolder(ctx, root, rules.GroupsFor)
	if err != nil {
		return nil, err
	}
	return indexer.New(a.store, a.embedder, indexer.Options{}, e.logger).Sync(ctx, "folder:"+root, items, true)
}

// sibling returns name in dir's parent when it exists, else "".
func sibling(dir, name string) string {
	p := filepath.Join(filepath.Dir(dir), name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// readQuestions reads the "question" field of every line of a JSONL file.
func readQuestions(path string) ([]string, error) {
	if path == "" {
		return nil, fmt.Errorf("--questions: no sample-questions.jsonl next to the corpus; give a JSONL file of {\"question\": ...}")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var q struct {
			Question string `json:"question"`
		}
		if line := strings.TrimSpace(sc.Text()); line == "" {
			continue
		} else if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if q.Question != "" {
			out = append(out, q.Question)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	return out, nil
}
