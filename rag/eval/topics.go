package eval

import (
	"context"
	"fmt"

	"github.com/citahq/cita/rag"
)

// TopicQuestion is one line of a gap-grouping set (testdata/gaps): a question and the need it
// expresses; questions with the same need belong in one topic.
type TopicQuestion struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Lang     string `json:"lang"`
	Need     string `json:"need"`
}

// LoadTopicQuestions reads a gap-grouping set. It returns an error naming a line without its
// question or need.
func LoadTopicQuestions(path string) ([]TopicQuestion, error) {
	var out []TopicQuestion
	if err := readJSONL(path, func(q TopicQuestion) { out = append(out, q) }); err != nil {
		return nil, err
	}
	for _, q := range out {
		if q.Question == "" || q.Need == "" {
			return nil, fmt.Errorf("%s: %s needs a question and a need", path, q.ID)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	return out, nil
}

// TopicScore is pairwise precision and recall of a grouping: of the pairs of questions grouped
// together, the share with the same need; of the pairs with the same need, the share grouped
// together.
type TopicScore struct {
	Threshold float64 `json:"threshold"`
	Questions int     `json:"questions"`
	Topics    int     `json:"topics"`
	Needs     int     `json:"needs"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// RunTopics reads every question's signature once, then groups them online, in the set's
// order, at each threshold, and scores each grouping.
func RunTopics(ctx context.Context, qs []TopicQuestion, r *rag.TopicReader, thresholds []float64) []TopicScore {
	sigs := make([]rag.Signature, len(qs))
	for i, q := range qs {
		sigs[i] = r.Signature(ctx, q.Question)
	}
	var out []TopicScore
	for _, t := range thresholds {
		topics := rag.NewTopics(t)
		got := make([]int, len(qs))
		for i, s := range sigs {
			got[i] = topics.Assign(s)
		}
		out = append(out, ScoreTopics(qs, got, t))
	}
	return out
}

// ScoreTopics scores a grouping (got[i] is question i's topic).
func ScoreTopics(qs []TopicQuestion, got []int, threshold float64) TopicScore {
	s := TopicScore{Threshold: threshold, Questions: len(qs)}
	topics, needs := map[int]bool{}, map[string]bool{}
	var both, pred, gold int
	for i := range qs {
		topics[got[i]] = true
		needs[qs[i].Need] = true
		for j := i + 1; j < len(qs); j++ {
			p, g := got[i] == got[j], qs[i].Need == qs[j].Need
			if p {
				pred++
			}
			if g {
				gold++
			}
			if p && g {
				both++
			}
		}
	}
	s.Topics, s.Needs = len(topics), len(needs)
	if pred > 0 {
		s.Precision = float64(both) / float64(pred)
	}
	if gold > 0 {
		s.Recall = float64(both) / float64(gold)
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}
