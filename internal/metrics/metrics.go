// Package metrics is cita's Prometheus instrumentation: questions by platform and outcome,
// latency per pipeline stage, cache hits, model tokens, platform API calls, sync runs and
// documents, the answer queue and the database pool. One Metrics owns its own registry (no
// global state), so tests and several servers in one process do not collide.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric name.
const namespace = "cita"

// latencyBuckets span 5 ms to 60 s: a cached answer to a slow model.
var latencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// Metrics holds cita's collectors. Create it with New; its methods are safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	questions      *prometheus.CounterVec
	answerSeconds  *prometheus.HistogramVec
	stageSeconds   *prometheus.HistogramVec
	cache          *prometheus.CounterVec
	tokens         *prometheus.CounterVec
	visibleSeconds *prometheus.HistogramVec
	platformCalls  *prometheus.HistogramVec
	syncRuns       *prometheus.CounterVec
	syncDocuments  *prometheus.CounterVec
	syncSeconds    *prometheus.HistogramVec
	gapFollow      *prometheus.CounterVec // nil before WatchGaps
	// syncDeletesBlocked is the deletions the last listing pass of a source held back.
	syncDeletesBlocked *prometheus.GaugeVec
	// syncChangeLag is the lag each pass measured between a change at the source and its end.
	syncChangeLag *prometheus.HistogramVec
	// syncLastSuccess is when the last pass without error of a source finished.
	syncLastSuccess *prometheus.GaugeVec
	// sweepRuns, sweepFailures and sweepClosed count reconciliation sweeps (WatchSweeps).
	sweepRuns, sweepFailures, sweepClosed *prometheus.CounterVec
	// translationFailures counts failed query translations (WatchTranslations).
	translationFailures *prometheus.CounterVec
}

// New returns the collectors registered on a fresh registry, with the Go runtime and process
// collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.questions = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "questions_total",
		Help: "Questions handled, by platform and outcome (answered, abstained, error, busy, rate_limited, refused)."},
		[]string{"platform", "outcome"})
	m.answerSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "answer_duration_seconds",
		Help: "Time from the event reaching cita to the reply being ready, by platform.", Buckets: latencyBuckets},
		[]string{"platform"})
	m.stageSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "stage_duration_seconds",
		Help:    "Time spent in each answering stage (rewrite, search, embed_query, fts_arm, vector_arm, load_hits, rerank, generation, cache).",
		Buckets: latencyBuckets}, []string{"stage"})
	m.cache = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "answer_cache_total",
		Help: "Answers served from the answer cache (hit) or computed (miss)."}, []string{"result"})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "model_tokens_total",
		Help: "Tokens reported by the chat model, by model and kind (prompt, completion)."}, []string{"model", "kind"})
	m.visibleSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "reply_visible_seconds",
		Help:    "Time from the event reaching cita to a visible step: placeholder (first visible response) or final answer.",
		Buckets: latencyBuckets}, []string{"platform", "step"})
	m.platformCalls = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "platform_request_duration_seconds",
		Help:    "Chat platform API calls (posting and updating replies, lookups), by platform, method and status code.",
		Buckets: latencyBuckets}, []string{"platform", "method", "code"})
	m.syncRuns = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "sync_runs_total",
		Help: "Scheduled sync passes by source and result (ok, partial, failed, skipped_locked, interrupted, deletions_blocked)."}, []string{"source", "result"})
	m.syncDocuments = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "sync_documents_total",
		Help: "Documents seen by sync passes by source and result (added, changed, unchanged, deleted, acl_only, failed, withheld: access unresolved, readable by nobody)."}, []string{"source", "result"})
	m.syncSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "sync_duration_seconds",
		Help:    "Duration of sync passes by source.",
		Buckets: []float64{1, 5, 15, 60, 300, 900, 3600}}, []string{"source"})
	m.syncDeletesBlocked = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "sync_deletions_blocked",
		Help: "Deletions the last pass of a source held back as a mass deletion (over max_delete_fraction, or all of its documents); " +
			"confirm with cita sync --source NAME --allow-mass-delete, or repair the source."}, []string{"source"})
	m.syncChangeLag = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "sync_change_lag_seconds",
		Help:    "Per pass, the longest lag between a change at the source and the pass applying it (from a watcher's event, else the document's modification time).",
		Buckets: []float64{.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400}}, []string{"source"})
	m.syncLastSuccess = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "sync_last_success_timestamp_seconds",
		Help: "When the last sync pass without error of a source finished (Unix time)."}, []string{"source"})
	m.reg.MustRegister(m.syncChangeLag, m.syncLastSuccess)
	m.reg.MustRegister(m.questions, m.answerSeconds, m.stageSeconds, m.cache, m.tokens, m.visibleSeconds, m.platformCalls,
		m.syncRuns, m.syncDocuments, m.syncSeconds, m.syncDeletesBlocked,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry returns the registry, for registering more collectors and for tests.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler returns the /metrics endpoint in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
