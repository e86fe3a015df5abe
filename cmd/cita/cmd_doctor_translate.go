package main

import (
	"context"
	"time"

	"github.com/citahq/cita/rag/translate"
)

// translationInstall says what to install for cross-lingual search.
const translationInstall = "install Debian's apertium and apertium-eng-spa packages (scripts/setup.sh does, or apt-get install apertium apertium-eng-spa); the Docker image has them"

// checkTranslation starts the offline translator and translates a word each way. Cross-lingual
// search is on by default: without a chat model (offline, modelTranslates false) it needs
// Apertium, so its absence fails the check (exit 1) with what to install; FreeDict's word-by-word
// fallback, or a chat model that writes the translation itself, make it a warning.
// dictDir is where FreeDict's dictionaries are looked for ("" means Debian's path).
func checkTranslation(ctx context.Context, opts translate.ApertiumOptions, dictDir string, modelTranslates bool) checkResult {
	c := checkResult{name: "translation"}
	a, err := translate.NewApertium(opts)
	if err != nil {
		c.warn, c.detail, c.fix = modelTranslates, "no offline translator, search stays monolingual: "+err.Error(), translationInstall
		if modelTranslates {
			c.detail = "no offline translator (" + err.Error() + "); the chat model translates questions, but answers given without it (a timeout) search monolingually"
		}
		if _, ferr := translate.LoadFreeDict(dictDir); ferr == nil {
			c.warn = true
			c.detail = "Apertium is missing (" + err.Error() + "); queries are translated word by word with FreeDict's dictionaries, which finds less"
		}
		return c
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	start := time.Now()
	if err := a.Warm(ctx); err != nil {
		c.warn, c.detail, c.fix = modelTranslates, "Apertium is installed but does not translate, search stays monolingual: "+err.Error(),
			"reinstall apertium and apertium-eng-spa; `echo hola | apertium spa-eng` must print hello"
		return c
	}
	c.ok, c.detail = true, "Apertium spa-eng and eng-spa answer (started in "+time.Since(start).Round(time.Millisecond).String()+"): Spanish questions also search English documents and the reverse"
	return c
}
