package main

import (
	"context"
	"time"

	"github.com/citahq/cita/rag/translate"
)

// translationInstall says what to install for cross-lingual search.
const translationInstall = "install Debian's apertium and apertium-eng-spa packages (scripts/setup.sh does, or apt-get install apertium apertium-eng-spa); the Docker image has them"

// checkTranslation starts the offline translator and translates a word each way. Its absence is
// a warning, not a failure: search then stays monolingual (a Spanish question finds only
// Spanish documents unless they share names or numbers).
// dictDir is where FreeDict's dictionaries are looked for ("" means Debian's path).
func checkTranslation(ctx context.Context, opts translate.ApertiumOptions, dictDir string) checkResult {
	c := checkResult{name: "translation"}
	a, err := translate.NewApertium(opts)
	if err != nil {
		c.warn, c.detail, c.fix = true, "no offline translator, search stays monolingual: "+err.Error(), translationInstall
		if _, ferr := translate.LoadFreeDict(dictDir); ferr == nil {
			c.detail = "Apertium is missing (" + err.Error() + "); queries are translated word by word with FreeDict's dictionaries, which finds less"
		}
		return c
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	start := time.Now()
	if err := a.Warm(ctx); err != nil {
		c.warn, c.detail, c.fix = true, "Apertium is installed but does not translate, search stays monolingual: "+err.Error(),
			"reinstall apertium and apertium-eng-spa; `echo hola | apertium spa-eng` must print hello"
		return c
	}
	c.ok, c.detail = true, "Apertium spa-eng and eng-spa answer (started in "+time.Since(start).Round(time.Millisecond).String()+"): Spanish questions also search English documents and the reverse"
	return c
}
