package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// TestRandomizedAccessControl indexes random documents with random groups and asks random
// queries with random scopes: no returned chunk, in either arm or the fused result, is ever
// outside the asker's groups.
func TestRandomizedAccessControl(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(42, 7))
	groups := []string{"everyone", "hr", "finance", "engineering", "sales", "board", "legal", "ops"}
	vocab := strings.Fields("café exportación vacaciones salario presupuesto despliegue staging producción incidente " +
		"ERR_4402 SKU-77812 5.440.000 certificado INVIMA trazabilidad feria agronegocios laptop VPN contrato proveedor " +
		"payment gateway timeout on-call rotation budget invoice supplier terms parental leave bonus retention")
	docGroups := map[int64][]string{}
	for d := 0; d < 60; d++ {
		g := randomGroups(rng, groups, 4)
		var texts []string
		for c := 0; c < 1+rng.IntN(3); c++ {
			texts = append(texts, randomText(rng, vocab, 8+rng.IntN(20)))
		}
		id := b.doc(t, "rand", fmt.Sprintf("doc-%d", d), fmt.Sprintf("Documento %d", d), []string{"es", "en", "simple"}[rng.IntN(3)], g, texts...)
		docGroups[id] = rag.NormalizeGroups(g)
	}
	h := b.hybrid()
	for q := 0; q < 150; q++ {
		scope := rag.MustScope(randomGroups(rng, groups, 5)...)
		words := make([]string, 1+rng.IntN(5))
		for i := range words {
			words[i] = vocab[rng.IntN(len(vocab))]
		}
		res, err := h.Search(ctx, rag.SearchRequest{Query: strings.Join(words, " "), Scope: scope, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		allowed := func(docID int64) bool {
			for _, g := range docGroups[docID] {
				if scope.Contains(g) {
					return true
				}
			}
			return false
		}
		for _, hit := range res.Hits {
			if !allowed(hit.DocumentID) {
				t.Fatalf("query %q scope %v got document %d with groups %v", words, scope, hit.DocumentID, docGroups[hit.DocumentID])
			}
		}
		var armIDs []int64
		for _, hits := range res.Trace.Arms {
			for _, a := range hits {
				armIDs = append(armIDs, a.ChunkID)
			}
		}
		var outside int
		if err := b.store.Pool().QueryRow(ctx, `SELECT count(*) FROM chunks WHERE id = ANY($1) AND NOT groups && $2::text[]`, armIDs, scope.Groups()).Scan(&outside); err != nil {
			t.Fatal(err)
		}
		if outside > 0 {
			t.Fatalf("query %q scope %v: an arm returned %d chunks outside the scope", words, scope, outside)
		}
	}
}
