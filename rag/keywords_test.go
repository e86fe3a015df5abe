package rag_test

import (
	"context"
	"testing"

	"github.com/citahq/cita/rag"
)

type hitsOnly []rag.Hit

func (h hitsOnly) Search(context.Context, rag.SearchRequest) (*rag.SearchResult, error) {
	return &rag.SearchResult{Hits: h}, nil
}

// TestKeywordQueriesInOnePassageAreNeverRefused: people type keywords. When one passage holds
// every content word of the query, the offline answerer quotes it, whatever the query's form.
func TestKeywordQueriesInOnePassageAreNeverRefused(t *testing.T) {
	t.Parallel()
	hits := hitsOnly{
		{ChunkID: 1, DocumentID: 1, Lang: "es", Title: "Política de viajes 2026", Heading: "Política de viajes 2026 > Importes",
			Content: "Los desplazamientos se autorizan en la herramienta de viajes. La dieta diaria en viajes nacionales es de 38 euros; en viajes internacionales, de 60 euros. El alojamiento se reserva con la agencia."},
		{ChunkID: 2, DocumentID: 2, Lang: "es", Title: "Política de viajes 2024", Heading: "Política de viajes 2024 > Transporte",
			Content: "El tren es el medio preferente para los viajes nacionales de menos de cuatro horas."},
		{ChunkID: 3, DocumentID: 3, Lang: "en", Title: "Parking", Heading: "Parking > Visitors",
			Content: "Visitors park on level -1; the daily rate is 12 euros."},
	}
	p := rag.NewPipeline(hits, rag.Extractive{}, nil, rag.PipelineOptions{})
	for _, q := range []string{
		"dieta diaria viajes nacionales euros",
		"viajes internacionales dieta",
		"visitors parking daily rate",
	} {
		ans, err := p.Answer(context.Background(), rag.Question{Text: q, Scope: rag.MustScope("everyone")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ans.Abstained || len(ans.Sources) == 0 {
			t.Errorf("%q: refused (%s, support %.2f); one passage holds every word", q, ans.AbstainReason, ans.Evidence)
		}
	}
}
