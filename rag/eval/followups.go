package eval

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/citahq/cita/rag"
)

// FollowUp is one line of a follow-up set: a conversation's earlier turns (user and assistant,
// alternating, oldest first), the follow-up as asked, a person's standalone rewrite of it and
// the corpus files that answer it. Shape says what kind of follow-up it is ("ellipsis",
// "pronoun", "detail", "shift").
type FollowUp struct {
	ID        string   `json:"id"`
	History   []string `json:"history"`
	Question  string   `json:"question"`
	Rewrite   string   `json:"rewrite"`
	GoldFiles []string `json:"gold_files"`
	Shape     string   `json:"shape"`
}

// LoadFollowUps reads a follow-up set (one JSON object per line).
func LoadFollowUps(path string) ([]FollowUp, error) {
	var out []FollowUp
	if err := readJSONL(path, func(f FollowUp) { out = append(out, f) }); err != nil {
		return nil, err
	}
	for _, f := range out {
		if f.ID == "" || f.Question == "" || f.Rewrite == "" || len(f.GoldFiles) == 0 || len(f.History)%2 != 0 {
			return nil, fmt.Errorf("%s: %q needs id, question, rewrite, gold_files and a history of user and assistant turns", path, f.ID)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no follow-ups", path)
	}
	return out, nil
}

// FollowUpScores are nDCG@10 of the gold files when searching the follow-up as asked, as the
// rewriter rewrote it, and as a person rewrote it, and the share of the gap between the first
// and the last that the rewriter closes.
type FollowUpScores struct {
	N         int     `json:"n"`
	Asked     float64 `json:"asked"`
	Rewritten float64 `json:"rewritten"`
	Human     float64 `json:"human"`
	Closed    float64 `json:"gap_closed"`
}

// FollowUpReport has the scores overall and per shape, and each follow-up's rewrite.
type FollowUpReport struct {
	Overall  FollowUpScores            `json:"overall"`
	ByShape  map[string]FollowUpScores `json:"by_shape"`
	Rewrites map[string]string         `json:"rewrites"`
}

// RunFollowUps rewrites each follow-up with rw from its history and searches the three queries
// under scope, scoring the documents found (by path, deduplicated, best first) against its gold
// files.
func RunFollowUps(ctx context.Context, set []FollowUp, s rag.Searcher, rw rag.Rewriter, scope rag.Scope) (*FollowUpReport, error) {
	rep := &FollowUpReport{ByShape: map[string]FollowUpScores{}, Rewrites: map[string]string{}}
	sums := map[string]*FollowUpScores{"": {}}
	for _, f := range set {
		var history []rag.Turn
		for i, t := range f.History {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			history = append(history, rag.Turn{Role: role, Text: t})
		}
		rewritten, err := rw.Rewrite(ctx, f.Question, history)
		if err != nil {
			return nil, fmt.Errorf("rewrite %s: %w", f.ID, err)
		}
		rep.Rewrites[f.ID] = rewritten
		rel := map[string]int{}
		for _, g := range f.GoldFiles {
			rel[filepath.ToSlash(g)] = 1
		}
		var scores [3]float64
		for i, q := range []string{f.Question, rewritten, f.Rewrite} {
			res, err := s.Search(ctx, rag.SearchRequest{Query: q, Scope: scope, Limit: 20})
			if err != nil {
				return nil, fmt.Errorf("search %s: %w", f.ID, err)
			}
			var ranked []string
			seen := map[string]bool{}
			for _, h := range res.Hits {
				if p := filepath.ToSlash(h.Path); !seen[p] {
					seen[p] = true
					ranked = append(ranked, p)
				}
			}
			scores[i], _, _, _ = scoreQuery(ranked, rel)
		}
		for _, key := range []string{"", f.Shape} {
			if sums[key] == nil {
				sums[key] = &FollowUpScores{}
			}
			sc := sums[key]
			sc.N++
			sc.Asked += scores[0]
			sc.Rewritten += scores[1]
			sc.Human += scores[2]
		}
	}
	for key, sc := range sums {
		n := float64(sc.N)
		sc.Asked, sc.Rewritten, sc.Human = sc.Asked/n, sc.Rewritten/n, sc.Human/n
		if gap := sc.Human - sc.Asked; gap > 0 {
			sc.Closed = (sc.Rewritten - sc.Asked) / gap
		}
		if key == "" {
			rep.Overall = *sc
		} else {
			rep.ByShape[key] = *sc
		}
	}
	return rep, nil
}
