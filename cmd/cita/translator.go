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

// translatorKinds are the values of --translator.
var translatorKinds = []string{"auto", "apertium", "freedict", "both", "off"}

// newTranslator returns the offline query translator of the given kind and a function that
// stops it. "auto" is Apertium when it is installed, else FreeDict's dictionaries when they
// are (word by word: weaker, see README "Retrieval quality"), else none. A kind whose data is
// missing returns an error saying what to install; "off" returns nil.
func newTranslator(kind string, logger *slog.Logger) (rag.Translator, func(), error) {
	noop := func() {}
	switch kind {
	case "":
		return newTranslator("auto", logger)
	case "off":
		return nil, noop, nil
	case "auto":
		if t, stop, err := newTranslator("apertium", logger); err == nil {
			return t, stop, nil
		}
		if t, stop, err := newTranslator("freedict", logger); err == nil {
			logger.Debug("Apertium is not installed; translating queries word by word with FreeDict")
			return t, stop, nil
		}
		logger.Debug("no offline translator installed; searching monolingually")
		return nil, noop, nil
	case "apertium":
		a, err := translate.NewApertium(translate.ApertiumOptions{Logger: logger})
		if err != nil {
			return nil, noop, fmt.Errorf("%w (install the apertium and apertium-eng-spa packages: scripts/setup.sh)", err)
		}
		return a, func() { _ = a.Close() }, nil
	case "freedict":
		f, err := translate.LoadFreeDict("")
		if err != nil {
			return nil, noop, fmt.Errorf("%w (install dict-freedict-spa-eng and dict-freedict-eng-spa: scripts/setup.sh)", err)
		}
		return f, noop, nil
	case "both":
		a, stop, err := newTranslator("apertium", logger)
		if err != nil {
			return nil, noop, err
		}
		f, _, err := newTranslator("freedict", logger)
		if err != nil {
			stop()
			return nil, noop, err
		}
		return translate.Merged{a, f}, stop, nil
	}
	return nil, noop, errors.New("--translator: use one of auto, apertium, freedict, both, off")
}

// warmTranslator starts the translator's processes now (when it has any), so the first question
// does not wait for them to load their data; a failure is logged, and queries retry later.
func (a *app) warmTranslator(ctx context.Context, logger *slog.Logger) {
	w, ok := a.translator.(interface{ Warm(context.Context) error })
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
