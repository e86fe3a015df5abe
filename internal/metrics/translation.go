package metrics

import "github.com/prometheus/client_golang/prometheus"

// translationReasons are the reasons rag.Hybrid reports a failed query translation with; both
// are exported at 0 from the start, so an alert on their rate has a series to read.
var translationReasons = []string{"timeout", "error"}

// WatchTranslations registers the counter of failed query translations
// (cita_translation_failures_total{reason}): each one is a question searched in its own
// language only, whose answer was not cached.
func (m *Metrics) WatchTranslations() {
	m.translationFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "translation_failures_total",
		Help: "Query translations that failed (the offline translator timed out, crashed, was restarting or is not installed), by reason " +
			"(timeout, error); each question was searched in its own language only and its answer not cached."}, []string{"reason"})
	for _, r := range translationReasons {
		m.translationFailures.WithLabelValues(r)
	}
	m.reg.MustRegister(m.translationFailures)
}

// ObserveTranslationFailure implements rag.TranslationObserver; it does nothing before
// WatchTranslations.
func (m *Metrics) ObserveTranslationFailure(reason string) {
	if m.translationFailures == nil {
		return
	}
	m.translationFailures.WithLabelValues(reason).Inc()
}
