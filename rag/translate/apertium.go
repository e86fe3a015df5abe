// Package translate translates search queries between Spanish and English offline, with data
// Debian packages install: Apertium's rule-based translator (apertium, apertium-eng-spa), run as
// kept-alive child processes, and FreeDict's bilingual dictionaries (dict-freedict-spa-eng,
// dict-freedict-eng-spa). Both implement rag.Translator. The Apertium programs are GPL: cita runs
// them as separate processes and neither links nor ships them.
package translate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"github.com/citahq/cita/rag"
)

// ErrUnsupported is returned for a language pair the translator does not know.
var ErrUnsupported = errors.New("unsupported language pair")

// errClosed is returned by a translator after Close.
var errClosed = errors.New("translator closed")

// Defaults of ApertiumOptions. A warm query takes 2-5 ms.
const (
	DefaultTimeout      = time.Second
	DefaultStartTimeout = 15 * time.Second
)

// apertiumModes maps "from-to" (rag language codes) to the Apertium mode that translates it.
var apertiumModes = map[string]string{"es-en": "spa-eng", "en-es": "eng-spa"}

// ApertiumOptions configures Apertium; the zero value uses Debian's paths and DefaultTimeout.
type ApertiumOptions struct {
	ModesDir string        // where the .mode files are; default DefaultModesDir
	Timeout  time.Duration // per query; default DefaultTimeout
	// StartTimeout bounds the first query after a (re)start, when the programs load their
	// data; default DefaultStartTimeout.
	StartTimeout time.Duration
	// RestartWait caps how long a query waits for a pipeline restarting after a crash or a
	// timeout (the restart goes on in the background); default DefaultRestartWait.
	RestartWait time.Duration
	// Pipelines is how many pipelines of each kind run (per direction: the translation, the
	// analyser and the bilingual dictionary); default DefaultPipelines.
	Pipelines int
	Logger    *slog.Logger // nil means slog.Default()
}

// Apertium translates queries through kept-alive Apertium pipelines, Spanish to English and
// English to Spanish, a pool of them per direction (ApertiumOptions.Pipelines), each started on
// its first query. It is safe for concurrent use: a query takes a free pipeline of its
// direction, and waits for one when all are busy (a query takes a few milliseconds). A pipeline
// that crashes or times out is stopped, every process reaped, and started again in the
// background by a later query, which waits for it at most RestartWait.
type Apertium struct {
	pipes        map[string]*pipelinePool
	senses       map[string]*sensePipes // the analysers and bilingual dictionaries of each direction
	timeout      time.Duration
	startTimeout time.Duration
}

var (
	_ rag.Translator      = (*Apertium)(nil)
	_ rag.SenseTranslator = (*Apertium)(nil)
	_ rag.WordClasser     = (*Apertium)(nil)
)

// NewApertium checks that both modes and all their programs are installed and returns the
// translator; no process starts until the first query. The error names what is missing (install
// the apertium and apertium-eng-spa packages).
func NewApertium(opts ApertiumOptions) (*Apertium, error) {
	if opts.ModesDir == "" {
		opts.ModesDir = DefaultModesDir
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.RestartWait <= 0 {
		opts.RestartWait = DefaultRestartWait
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Pipelines <= 0 {
		opts.Pipelines = DefaultPipelines
	}
	a := &Apertium{pipes: map[string]*pipelinePool{}, senses: map[string]*sensePipes{}, timeout: opts.Timeout, startTimeout: opts.StartTimeout}
	for pair, mode := range apertiumModes {
		stages, err := readMode(opts.ModesDir, mode)
		if err != nil {
			return nil, err
		}
		a.pipes[pair] = newPipelinePool(mode, opts.Pipelines, func() *pipeline {
			p := newPipeline(mode, stages, opts.Logger)
			p.restartWait = opts.RestartWait
			return p
		})
		sp, err := newSensePipes(mode, stages, opts)
		if err != nil {
			return nil, err
		}
		a.senses[pair] = sp
	}
	return a, nil
}

// Translate implements rag.Translator: it returns text in language to. Words Apertium does not
// know (names, codes, typos) come back as they were, without its marks, so a caller can tell
// them from translated ones. It returns ErrUnsupported for a pair other than es-en and en-es,
// and an error when the pipeline fails or takes longer than the timeout.
func (a *Apertium) Translate(ctx context.Context, text, from, to string) (string, error) {
	p := a.pipes[from+"-"+to]
	if p == nil {
		return "", fmt.Errorf("apertium %s-%s: %w", from, to, ErrUnsupported)
	}
	line := streamSafe(text)
	if line == "" {
		return "", nil
	}
	out, err := p.translate(ctx, line, a.timeout, a.startTimeout)
	if err != nil {
		return "", err
	}
	return stripMarks(out), nil
}

// Warm starts every pipeline now, all at once, so the first questions do not wait for the
// programs to load their data. It returns their errors; Translate retries a failed start later
// anyway.
func (a *Apertium) Warm(ctx context.Context) error {
	var errs []error
	for _, pool := range a.pools() {
		errs = append(errs, pool.warm(ctx, "hola", a.timeout, a.startTimeout))
	}
	return errors.Join(errs...)
}

// Close stops every pipeline and reaps their processes; later queries fail.
func (a *Apertium) Close() error {
	for _, pool := range a.pools() {
		pool.close()
	}
	return nil
}

// pools returns every pool: the translations, the analysers and the dictionaries.
func (a *Apertium) pools() []*pipelinePool {
	var out []*pipelinePool
	for _, p := range a.pipes {
		out = append(out, p)
	}
	for _, sp := range a.senses {
		out = append(out, sp.analyse, sp.bidix)
	}
	return out
}

// streamSafe makes text a valid Apertium stream of one line: the format's reserved characters
// and control characters become spaces (a search query loses nothing by it).
func streamSafe(text string) string {
	return strings.Join(strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`\[]^$/@<>{}*#~|`, r)
	}), " ")
}

// stripMarks removes Apertium's marks from its output: "*" before a word its analyser does not
// know ("*Kubernetes"), "@" before one its bilingual dictionary lacks, "#" before one it could
// not inflect. The words stay.
func stripMarks(out string) string {
	words := strings.Fields(out)
	kept := words[:0]
	for _, w := range words {
		if w = strings.TrimLeft(w, "*@#"); w != "" {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}
