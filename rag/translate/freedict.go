package translate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/lang"
)

// DefaultDictDir is where Debian's dict-freedict-* packages install their dictd files.
const DefaultDictDir = "/usr/share/dictd"

// freedictFiles maps "from-to" to the FreeDict database's base name.
var freedictFiles = map[string]string{"es-en": "freedict-spa-eng", "en-es": "freedict-eng-spa"}

// maxSenses bounds the translations kept per headword: the first senses are the common ones.
const maxSenses = 3

// FreeDict translates word by word with FreeDict's Spanish-English and English-Spanish
// dictionaries, read whole into memory (about 10,000 headwords). It knows no grammar: each word
// becomes its first translations, inflected words are matched by stripping common endings,
// stopwords are left out, and other words it does not know come back as they were (names,
// typos), as rag.Translator asks.
type FreeDict struct {
	dicts map[string]map[string][]string // pair -> folded headword -> translations
}

var _ rag.Translator = (*FreeDict)(nil)

// LoadFreeDict reads both dictionaries from dir (DefaultDictDir when empty). The error names the
// missing file (install dict-freedict-spa-eng and dict-freedict-eng-spa).
func LoadFreeDict(dir string) (*FreeDict, error) {
	if dir == "" {
		dir = DefaultDictDir
	}
	f := &FreeDict{dicts: map[string]map[string][]string{}}
	for pair, base := range freedictFiles {
		d, err := readDictd(filepath.Join(dir, base))
		if err != nil {
			return nil, fmt.Errorf("freedict %s: %w", pair, err)
		}
		f.dicts[pair] = d
	}
	return f, nil
}

// Translate implements rag.Translator. It returns ErrUnsupported for a pair other than es-en
// and en-es, and never fails otherwise.
func (f *FreeDict) Translate(_ context.Context, text, from, to string) (string, error) {
	d := f.dicts[from+"-"+to]
	if d == nil {
		return "", fmt.Errorf("freedict %s-%s: %w", from, to, ErrUnsupported)
	}
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stopword(w) {
			continue
		}
		if t := lookup(d, lang.Fold(w), from); len(t) > 0 {
			out = append(out, t...)
		} else {
			out = append(out, w)
		}
	}
	return strings.Join(out, " "), nil
}

// lookup finds a word's translations, trying the word itself, then with common inflectional
// endings of its language removed (plurals, verb endings), then with an -ar/-er/-ir ending.
func lookup(d map[string][]string, w, lang string) []string {
	if len([]rune(w)) < 3 {
		return nil
	}
	if t, ok := d[w]; ok {
		return t
	}
	var suffixes []string
	if lang == "es" {
		suffixes = []string{"es", "s", "a", "o", "as", "os", "an", "en", "aron", "ieron", "ado", "ada", "ados", "adas", "ido", "ida", "ando", "iendo"}
	} else {
		suffixes = []string{"s", "es", "ies", "ed", "d", "ing", "ly"}
	}
	for _, s := range suffixes {
		stem, ok := strings.CutSuffix(w, s)
		if !ok || len([]rune(stem)) < 3 {
			continue
		}
		cands := []string{stem}
		if lang == "es" {
			cands = append(cands, stem+"ar", stem+"er", stem+"ir", stem+"o", stem+"a")
		} else {
			cands = append(cands, stem+"e", stem+"y")
		}
		for _, c := range cands {
			if t, ok := d[c]; ok {
				return t
			}
		}
	}
	return nil
}

func stopword(w string) bool { return len(rag.ContentTokens(w)) == 0 }

// readDictd reads a dictd database (base.index and base.dict.dz) into folded single-word
// headwords and their first translations.
func readDictd(base string) (map[string][]string, error) {
	idx, err := os.Open(base + ".index")
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	dz, err := os.Open(base + ".dict.dz")
	if err != nil {
		return nil, err
	}
	defer dz.Close()
	zr, err := gzip.NewReader(dz) // dictzip is gzip with a chunk table in the extra field
	if err != nil {
		return nil, fmt.Errorf("%s.dict.dz: %w", base, err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s.dict.dz: %w", base, err)
	}
	out := map[string][]string{}
	sc := bufio.NewScanner(idx)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 || strings.HasPrefix(parts[0], "00database") || strings.Contains(parts[0], " ") {
			continue
		}
		off, err1 := decodeB64(parts[1])
		n, err2 := decodeB64(parts[2])
		if err1 != nil || err2 != nil || off+n > int64(len(body)) {
			return nil, fmt.Errorf("%s.index: bad line %q", base, sc.Text())
		}
		head := lang.Fold(parts[0])
		for _, t := range entryTranslations(body[off : off+n]) {
			if len(out[head]) < maxSenses && !contains(out[head], t) {
				out[head] = append(out[head], t)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s.index: %w", base, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no headwords", base)
	}
	return out, nil
}

// entryTranslations returns an entry's translations: the lines after the headword line, without
// sense numbers, split at commas.
func entryTranslations(entry []byte) []string {
	lines := bytes.Split(entry, []byte("\n"))
	var out []string
	for _, l := range lines[1:] {
		s := strings.TrimSpace(string(l))
		if i := strings.Index(s, ". "); i > 0 && i <= 3 && strings.Trim(s[:i], "0123456789") == "" {
			s = s[i+2:]
		}
		for _, t := range strings.Split(s, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decodeB64 decodes dictd's base64 numbers (most significant digit first).
func decodeB64(s string) (int64, error) {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var n int64
	for _, c := range s {
		i := strings.IndexRune(digits, c)
		if i < 0 {
			return 0, fmt.Errorf("bad base64 digit %q", c)
		}
		n = n*64 + int64(i)
	}
	return n, nil
}
