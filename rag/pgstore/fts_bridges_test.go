package pgstore_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// A bridge finds a chunk that holds none of the question's own words, under the same access
// filter.
func TestFullTextSearchesBridges(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.doc(t, "t", "permisos.md", "Permisos", "es", []string{"everyone"},
		"Por traslado del domicilio habitual se conceden dos días hábiles.")
	b.doc(t, "t", "both.md", "Otros permisos", "es", []string{"everyone"},
		"La mudanza o el traslado del domicilio se comunica al departamento de personas.")
	b.doc(t, "t", "hidden.md", "Permisos de dirección", "es", []string{"board"},
		"Por traslado del domicilio habitual la dirección tiene cinco días.")
	scope := rag.MustScope("everyone")
	q := rag.FTSQuery{Text: "mudanza", Bridges: []rag.Bridge{
		{From: "mudanza", FromLang: "es", To: "traslado del domicilio", Lang: "es", Weight: 0.85},
		{From: "mudanza", FromLang: "es", To: "cambio de domicilio", Lang: "es", Weight: 0.85},
	}}
	hits, terms, err := b.store.SearchFTS(context.Background(), q, scope, 10)
	if err != nil {
		t.Fatal(err)
	}
	paths := b.paths(t, hits)
	if !slices.Contains(paths, "permisos.md") {
		t.Errorf("hits %v (terms %v): the bridge must find the chunk that says traslado", paths, terms)
	}
	if slices.Contains(paths, "hidden.md") {
		t.Errorf("hits %v include a chunk the scope may not read", paths)
	}
	if !slices.ContainsFunc(terms, func(s string) bool { return strings.HasPrefix(s, "≈") }) {
		t.Errorf("terms %v do not mark the bridges' (≈)", terms)
	}
	// Without bridges, the chunk that only says traslado is not found.
	plain, _, err := b.store.SearchFTS(context.Background(), rag.FTSQuery{Text: "mudanza"}, scope, 10)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(b.paths(t, plain), "permisos.md") {
		t.Error("the chunk was found without the bridge: the test proves nothing")
	}
}

// paths returns the documents of an arm's hits, in rank order.
func (b *bundle) paths(t *testing.T, hits []rag.ArmHit) []string {
	t.Helper()
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	loaded, err := b.store.LoadHits(context.Background(), ids, rag.MustScope("everyone", "board"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range loaded {
		out = append(out, h.Path)
	}
	return out
}

// The words no readable document uses are reported, counted in the scope only: a word that
// only a document the asker may not read holds is unknown to the asker too, and a word a bridge
// renders into a readable document's words is known.
func TestHybridReportsTheWordsNoReadableDocumentUses(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.doc(t, "t", "benefits.md", "Benefits", "en", []string{"everyone"},
		"Health insurance covers the employee, their partner and their children.",
		"Employees who move house get two days of paid leave.")
	b.doc(t, "t", "board.md", "Board benefits", "en", []string{"board"},
		"Board members get a dentist plan and a company car.")
	h := b.hybrid()
	scope := rag.MustScope("everyone")
	res, err := h.Search(context.Background(), rag.SearchRequest{Query: "does the insurance cover the dentist?", Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Trace.Unknown, []string{"dentist"}) {
		t.Errorf("unknown words %v, want [dentist] (only a document outside the scope holds it)", res.Trace.Unknown)
	}
	if slices.ContainsFunc(res.Trace.Terms, func(s string) bool { return strings.HasPrefix(s, "?") || strings.HasPrefix(s, "+") }) {
		t.Errorf("terms %v still hold the word labels", res.Trace.Terms)
	}
	board, err := h.Search(context.Background(), rag.SearchRequest{Query: "does the insurance cover the dentist?", Scope: rag.MustScope("everyone", "board")})
	if err != nil {
		t.Fatal(err)
	}
	if len(board.Trace.Unknown) != 0 {
		t.Errorf("unknown words %v for a scope that reads the dentist plan", board.Trace.Unknown)
	}
}
