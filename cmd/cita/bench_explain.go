package main

import (
	"context"
	"fmt"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/bench"
	"github.com/citahq/cita/rag/pgstore"
)

// explainQuestion returns the bench's Explain hook: it asks q through each arm once more with
// pgstore's plan collector and prints every plan to stderr, under label.
func explainQuestion(e *env, a *app) func(ctx context.Context, label string, q bench.Query) error {
	return func(ctx context.Context, label string, q bench.Query) error {
		plans := &pgstore.Plans{}
		pctx := pgstore.WithPlans(ctx, plans)
		scope := rag.MustScope(q.Group)
		if _, _, err := a.store.SearchFTS(pctx, rag.FTSQuery{Text: q.Text}, scope, rag.DefaultHybridOptions().CandidatesPerArm); err != nil {
			return err
		}
		vecs, err := a.embedder.Embed(ctx, []string{q.Text})
		if err != nil {
			return err
		}
		if _, err := a.store.SearchVector(pctx, vecs[0], scope, 10); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "\n== %s: %q (scope %s)\n", label, q.Text, q.Group)
		for _, p := range plans.List() {
			fmt.Fprintf(e.stderr, "-- %s\n%s\n", p.Name, p.Text)
		}
		return nil
	}
}
