package translate

import (
	"context"
	"errors"
	"strings"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/lang"
)

// Merged asks every translator and joins their translations, each word once. It fails only when
// every translator fails.
type Merged []rag.Translator

var _ rag.Translator = Merged(nil)

// Translate implements rag.Translator.
func (m Merged) Translate(ctx context.Context, text, from, to string) (string, error) {
	var parts []string
	var errs []error
	seen := map[string]bool{}
	for _, t := range m {
		out, err := t.Translate(ctx, text, from, to)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, w := range strings.Fields(out) {
			if k := lang.Fold(strings.Trim(w, ".,;:?!¿¡")); !seen[k] {
				seen[k] = true
				parts = append(parts, w)
			}
		}
	}
	if len(errs) == len(m) && len(m) > 0 {
		return "", errors.Join(errs...)
	}
	return strings.Join(parts, " "), nil
}
