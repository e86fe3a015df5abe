package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/citahq/cita/internal/evalindex"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

// runFollowUpEval indexes the corpus/ folder beside path into a scratch namespace and reports,
// for the rewriter cita is wired with (the chat model's, else the offline one), nDCG@10 of the
// gold files searching each follow-up as asked, as rewritten and as a person rewrote it.
func runFollowUpEval(ctx context.Context, e *env, path string, asJSON bool) error {
	set, a, closeApp, err := openEvalSet(ctx, e, eval.LoadFollowUps, path)
	if err != nil {
		return err
	}
	defer closeApp()
	corpus := filepath.Join(filepath.Dir(path), "corpus")
	if _, err := evalindex.Folder(ctx, a.store, a.embedder, e.logger, "eval:followups", corpus, []string{"eval"}); err != nil {
		return err
	}
	chat, err := a.chatModel(e)
	if err != nil {
		return err
	}
	rep, err := eval.RunFollowUps(ctx, set, a.search, rewriterFor(chat, e), rag.MustScope("eval"))
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(rep)
	}
	fmt.Fprintf(e.stdout, "%s: %d follow-ups over %s; nDCG@10 of the gold files (hybrid)\n", path, len(set), corpus)
	fmt.Fprintf(e.stdout, "%-9s %3s %7s %10s %7s %11s\n", "", "n", "asked", "rewritten", "human", "gap closed")
	row := func(name string, s eval.FollowUpScores) {
		fmt.Fprintf(e.stdout, "%-9s %3d %7.3f %10.3f %7.3f %11.2f\n", name, s.N, s.Asked, s.Rewritten, s.Human, s.Closed)
	}
	row("overall", rep.Overall)
	shapes := make([]string, 0, len(rep.ByShape))
	for k := range rep.ByShape {
		shapes = append(shapes, k)
	}
	sort.Strings(shapes)
	for _, k := range shapes {
		row(k, rep.ByShape[k])
	}
	return nil
}
