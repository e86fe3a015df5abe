package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/translate"
)

// offlineTranslator is the wired query translator: nil when none, with the name of its kind
// ("apertium", "freedict", "both" or "none": part of the answer cache's variant) and the
// function that stops it.
type offlineTranslator struct {
	rag.Translator
	name string
	stop func()
}

// newTranslator returns the offline query translator of the given kind. "auto" (or "") is
// Apertium when it is installed, else FreeDict's dictionaries when they are (word by word:
// weaker, see docs/answer-quality.md, "Cross-lingual search, measured"), else none. A kind
// whose data is missing returns an error saying what to install; "off" returns none.
func newTranslator(kind string, logger *slog.Logger, timeout time.Duration) (offlineTranslator, error) {
	none := offlineTranslator{name: "none", stop: func() {}}
	switch kind {
	case "", "auto":
		if t, err := newTranslator("apertium", logger, timeout); err == nil {
			return t, nil
		}
		if t, err := newTranslator("freedict", logger, timeout); err == nil {
			logger.Debug("Apertium is not installed; translating queries word by word with FreeDict")
			return t, nil
		}
		logger.Debug("no offline translator installed; searching monolingually")
		return none, nil
	case "off":
		return none, nil
	case "apertium":
		a, err := translate.NewApertium(translate.ApertiumOptions{Logger: logger, Timeout: timeout})
		if err != nil {
			return none, fmt.Errorf("%w (install the apertium and apertium-eng-spa packages: scripts/setup.sh)", err)
		}
		return offlineTranslator{Translator: a, name: kind, stop: func() { _ = a.Close() }}, nil
	case "freedict":
		f, err := translate.LoadFreeDict("")
		if err != nil {
			return none, fmt.Errorf("%w (install dict-freedict-spa-eng and dict-freedict-eng-spa: scripts/setup.sh)", err)
		}
		return offlineTranslator{Translator: f, name: kind, stop: func() {}}, nil
	case "both":
		a, err := newTranslator("apertium", logger, timeout)
		if err != nil {
			return none, err
		}
		f, err := newTranslator("freedict", logger, timeout)
		if err != nil {
			a.stop()
			return none, err
		}
		return offlineTranslator{Translator: translate.Merged{a.Translator, f.Translator}, name: kind, stop: a.stop}, nil
	}
	return none, errors.New("--translator: use one of auto, apertium, freedict, both, off")
}

// warmTranslator starts the translator's processes now (when it has any), so the first question
// does not wait for them to load their data; a failure is logged, and queries retry later.
func (a *app) warmTranslator(ctx context.Context, logger *slog.Logger) {
	w, ok := a.translator.Translator.(interface{ Warm(context.Context) error })
	if !ok {
		return
	}
	start := time.Now()
	if err := w.Warm(ctx); err != nil {
		logger.WarnContext(ctx, "offline translator did not start; search stays monolingual until it does",
			slog.String("error", err.Error()), slog.String("fix", translationInstall))
		return
	}
	logger.InfoContext(ctx, "offline translator ready", slog.Duration("took", time.Since(start)))
}
