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
	Logger      *slog.Logger // nil means slog.Default()
}

// Apertium translates queries through two kept-alive Apertium pipelines, Spanish to English and
// English to Spanish, each started on its first query. It is safe for concurrent use: queries in
// one direction take turns (a query takes a few milliseconds). A pipeline that crashes or times
// out is stopped, every process reaped, and started again in the background by a later query,
// which waits for it at most RestartWait.
type Apertium struct {
	pipes        map[string]*pipeline
	senses       map[string]*sensePipes // the analyser and bilingual dictionary of each direction
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
	a := &Apertium{pipes: map[string]*pipeline{}, senses: map[string]*sensePipes{}, timeout: opts.Timeout, startTimeout: opts.StartTimeout}
	for pair, mode := range apertiumModes {
		stages, err := readMode(opts.ModesDir, mode)
		if err != nil {
			return nil, err
		}
		p := newPipeline(mode, stages, opts.Logger)
		p.restartWait = opts.RestartWait
		a.pipes[pair] = p
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

// Warm starts both pipelines now, so the first question does not wait for the programs to load
// their data. It returns the first error; Translate retries a failed start later anyway.
func (a *Apertium) Warm(ctx context.Context) error {
	var errs []error
	for pair := range a.pipes {
		from, to, _ := strings.Cut(pair, "-")
		if _, err := a.Translate(ctx, "hola", from, to); err != nil {
			errs = append(errs, err)
		}
		if _, err := a.Senses(ctx, "hola", from, to); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Close stops both pipelines and reaps their processes; later queries fail.
func (a *Apertium) Close() error {
	for _, p := range a.pipes {
		p.close()
	}
	for _, sp := range a.senses {
		sp.analyse.close()
		sp.bidix.close()
	}
	return nil
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
