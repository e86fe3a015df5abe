package extract

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Sentinel errors; Extract wraps them with the file name and the reason, so check with errors.Is.
var (
	// ErrUnsupported means the file's extension names no format this package reads.
	ErrUnsupported = errors.New("unsupported format")
	// ErrTooLarge means the file, an archive member or the archive's total uncompressed size is over
	// its limit, or the archive's compression ratio looks like a zip bomb.
	ErrTooLarge = errors.New("too large")
	// ErrEncrypted means the file is password-protected.
	ErrEncrypted = errors.New("password-protected")
	// ErrCorrupt means the file could not be parsed as its format (including binary data in a text
	// format).
	ErrCorrupt = errors.New("corrupt file")
)

// Limits bounds the work and memory one file may cost. A zero field takes its value from
// DefaultLimits.
type Limits struct {
	MaxFileBytes         int64         // the file itself
	MaxMemberBytes       int64         // one member of a zip-based format, uncompressed
	MaxTotalUncompressed int64         // all members read from one archive, uncompressed
	MaxRatio             float64       // uncompressed/compressed for the archive and for each member
	Timeout              time.Duration // wall time for one file
}

// DefaultLimits returns limits that fit ordinary office documents with a wide margin.
func DefaultLimits() Limits {
	return Limits{
		MaxFileBytes:         100 << 20,
		MaxMemberBytes:       200 << 20,
		MaxTotalUncompressed: 500 << 20,
		MaxRatio:             200,
		Timeout:              2 * time.Minute,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = d.MaxFileBytes
	}
	if l.MaxMemberBytes <= 0 {
		l.MaxMemberBytes = d.MaxMemberBytes
	}
	if l.MaxTotalUncompressed <= 0 {
		l.MaxTotalUncompressed = d.MaxTotalUncompressed
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = d.MaxRatio
	}
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	return l
}

// extractor parses one format. name is only for messages and the fallback title.
type extractor func(ctx context.Context, name string, data []byte, limits Limits) (*Document, error)

// extractors maps a lower-case extension to its extractor; formats register themselves here.
var extractors = map[string]extractor{}

func register(fn extractor, exts ...string) {
	for _, ext := range exts {
		extractors[ext] = fn
	}
}

func init() {
	register(extractMarkdown, ".md", ".markdown")
	register(extractPlainText, ".txt", ".text")
	register(extractDelimited, ".csv", ".tsv")
	register(extractHTML, ".html", ".htm")
}

// Supported reports whether Extract reads files with this name's extension.
func Supported(name string) bool {
	_, ok := extractors[strings.ToLower(filepath.Ext(name))]
	return ok
}

// Extract reads one file's bytes and returns its structure. name chooses the format by extension
// and gives the fallback title. It returns an error wrapping ErrUnsupported for unknown formats,
// ErrTooLarge for oversize input or zip bombs, ErrEncrypted for password-protected files and
// ErrCorrupt for input that does not parse; each error names the file and the reason.
func Extract(ctx context.Context, name string, data []byte, limits Limits) (*Document, error) {
	limits = limits.withDefaults()
	ext := strings.ToLower(filepath.Ext(name))
	fn, ok := extractors[ext]
	if !ok {
		return nil, fmt.Errorf("extract %q: %w: extension %q", name, ErrUnsupported, ext)
	}
	if int64(len(data)) > limits.MaxFileBytes {
		return nil, fmt.Errorf("extract %q: %w: %d bytes, limit %d", name, ErrTooLarge, len(data), limits.MaxFileBytes)
	}
	ctx, cancel := context.WithTimeout(ctx, limits.Timeout)
	defer cancel()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("extract %q: %w", name, err)
	}
	doc, err := fn(ctx, name, data, limits)
	if err != nil {
		return nil, fmt.Errorf("extract %q: %w", name, err)
	}
	if doc.Title == "" {
		doc.Title = titleFromFileName(name)
	}
	doc.Sections = dropEmptySections(doc.Sections)
	return doc, nil
}

// titleFromFileName turns "docs/guia_de-vacaciones.md" into "guia de vacaciones".
func titleFromFileName(name string) string {
	base := filepath.Base(filepath.ToSlash(name))
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	base = strings.TrimSuffix(base, filepath.Ext(base))
	base = strings.NewReplacer("_", " ", "-", " ").Replace(base)
	base = strings.Join(strings.Fields(base), " ")
	if base == "" {
		return name
	}
	return base
}

func dropEmptySections(sections []Section) []Section {
	kept := sections[:0]
	for _, s := range sections {
		if len(s.Blocks) > 0 {
			kept = append(kept, s)
		}
	}
	return kept
}
