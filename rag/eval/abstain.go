package eval

import (
	"context"
	"fmt"
	"sort"

	"github.com/citahq/cita/rag"
)

// SplitByTitle keeps the corpus documents of every other title (sorted), so that the questions
// about the dropped titles have no answer in the index: the unanswerable half of an abstention
// evaluation. It returns the reduced dataset and the ids of the unanswerable queries.
func SplitByTitle(ds *Dataset) (*Dataset, map[string]bool) {
	titles := map[string]bool{}
	for _, d := range ds.Corpus {
		titles[d.Title] = true
	}
	var sorted []string
	for t := range titles {
		sorted = append(sorted, t)
	}
	sort.Strings(sorted)
	keep := map[string]bool{}
	for i, t := range sorted {
		if i%2 == 0 {
			keep[t] = true
		}
	}
	out := &Dataset{Name: ds.Name + "-half", Queries: ds.Queries, Qrels: ds.Qrels}
	kept := map[string]bool{}
	for _, d := range ds.Corpus {
		if keep[d.Title] {
			out.Corpus = append(out.Corpus, d)
			kept[d.ID] = true
		}
	}
	unanswerable := map[string]bool{}
	for _, q := range ds.Queries {
		answerable := false
		for id := range ds.Qrels[q.ID] {
			answerable = answerable || kept[id]
		}
		if !answerable {
			unanswerable[q.ID] = true
		}
	}
	return out, unanswerable
}

// AbstainPoint is the relevance guard's behaviour at one threshold.
type AbstainPoint struct {
	Threshold float64 `json:"threshold"`
	Precision float64 `json:"precision"` // abstentions that were right (the question had no answer)
	Recall    float64 `json:"recall"`    // unanswerable questions that were abstained on
	// FalseAbstain is the share of answerable questions the guard would refuse.
	FalseAbstain float64 `json:"false_abstain"`
}

// AbstainCurve retrieves every query of ds (indexed without the unanswerable titles) and
// reports the guard's precision and recall at each threshold of rag.Support (over the eight
// best hits, as the offline composer reads them).
func AbstainCurve(ctx context.Context, ds *Dataset, unanswerable map[string]bool, s rag.Searcher, scope rag.Scope, thresholds []float64) ([]AbstainPoint, error) {
	type obs struct {
		evidence     float64
		unanswerable bool
	}
	var all []obs
	for _, q := range ds.Queries {
		res, err := s.Search(ctx, rag.SearchRequest{Query: q.Text, Scope: scope, Limit: 8})
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		sources, _ := rag.AssembleSources(res.Hits, 8, 1<<20)
		support := rag.Support(rag.ComposeRequest{Question: q.Text, Lang: rag.AnswerLang(q.Text), Sources: sources,
			Translation: res.Trace.Translated, TranslationLang: res.Trace.TranslatedLang})
		all = append(all, obs{evidence: support.Score, unanswerable: unanswerable[q.ID]})
	}
	var out []AbstainPoint
	for _, th := range thresholds {
		var abst, right, unans, answerable, falseAbst int
		for _, o := range all {
			if o.unanswerable {
				unans++
			} else {
				answerable++
			}
			if o.evidence < th {
				abst++
				if o.unanswerable {
					right++
				} else {
					falseAbst++
				}
			}
		}
		p := AbstainPoint{Threshold: th}
		if abst > 0 {
			p.Precision = float64(right) / float64(abst)
		}
		if unans > 0 {
			p.Recall = float64(right) / float64(unans)
		}
		if answerable > 0 {
			p.FalseAbstain = float64(falseAbst) / float64(answerable)
		}
		out = append(out, p)
	}
	return out, nil
}
