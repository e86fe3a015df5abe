package metrics

import (
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// answerStages names the pipeline's Answer.Timings keys as metric stages; other keys keep
// their own name.
var answerStages = map[string]string{"generate": "generation"}

// searchStages names the hybrid search's Trace.Timings keys as metric stages.
var searchStages = map[string]string{"fts": "fts_arm", "vector": "vector_arm", "embed": "embed_query", "load": "load_hits"}

// ObserveTurn counts a handled question by platform and outcome and, when the pipeline ran,
// records its stage timings, whether it came from the cache and its tokens. It implements
// bot.Observer.
func (m *Metrics) ObserveTurn(platform string, out bot.Outgoing, took time.Duration) {
	if platform == "" {
		platform = "unknown"
	}
	m.questions.WithLabelValues(platform, out.Outcome()).Inc()
	if out.Answer == nil {
		return
	}
	m.answerSeconds.WithLabelValues(platform).Observe(took.Seconds())
	m.ObserveAnswer(out.Answer)
}

// ObserveAnswer records one pipeline answer's stage timings, cache use and tokens.
func (m *Metrics) ObserveAnswer(ans *rag.Answer) {
	for key, d := range ans.Timings {
		m.stageSeconds.WithLabelValues(stageName(answerStages, key)).Observe(d.Seconds())
	}
	if ans.Search != nil {
		for key, d := range ans.Search.Trace.Timings {
			if d > 0 { // an arm that did not run records zero
				m.stageSeconds.WithLabelValues(stageName(searchStages, key)).Observe(d.Seconds())
			}
		}
	}
	if ans.Cached {
		m.cache.WithLabelValues("hit").Inc()
	} else {
		m.cache.WithLabelValues("miss").Inc()
	}
	if ans.Cached {
		return // the tokens were spent, and counted, when the answer was first made
	}
	model := ans.Usage.Model
	if model == "" {
		model = "none"
	}
	if ans.Usage.PromptTokens > 0 {
		m.tokens.WithLabelValues(model, "prompt").Add(float64(ans.Usage.PromptTokens))
	}
	if ans.Usage.CompletionTokens > 0 {
		m.tokens.WithLabelValues(model, "completion").Add(float64(ans.Usage.CompletionTokens))
	}
}

func stageName(names map[string]string, key string) string {
	if n, ok := names[key]; ok {
		return n
	}
	return key
}

// ObserveVisible records when a reply step became visible, measured from the event reaching
// cita: "placeholder" (the first visible response) or "final". It fits the Slack adapter's
// Options.Trace.
func (m *Metrics) ObserveVisible(platform, step string, sinceReceived time.Duration) {
	m.visibleSeconds.WithLabelValues(platform, step).Observe(sinceReceived.Seconds())
}
