package rag

import (
	"context"
	"slices"
	"testing"
)

// referenceArmStore returns fixed arm rankings: the full-text arm finds the article first and a
// neighbour second; the vector arm, which blurs numbers, ranks the neighbour and others above it.
type referenceArmStore struct{ titles map[int64]string }

func (s referenceArmStore) SearchVector(context.Context, []float32, Scope, int) ([]ArmHit, error) {
	return []ArmHit{{ChunkID: 2, Rank: 1, Score: 0.9}, {ChunkID: 3, Rank: 2, Score: 0.89}, {ChunkID: 4, Rank: 3, Score: 0.88}, {ChunkID: 1, Rank: 4, Score: 0.2}}, nil
}

func (s referenceArmStore) SearchFTS(context.Context, FTSQuery, Scope, int) ([]ArmHit, []string, error) {
	return []ArmHit{{ChunkID: 5, Rank: 1, Score: 2.1}, {ChunkID: 1, Rank: 2, Score: 2.0}, {ChunkID: 2, Rank: 3, Score: 1.9}}, nil, nil
}

func (s referenceArmStore) LoadHits(_ context.Context, ids []int64, _ Scope) ([]Hit, error) {
	out := make([]Hit, len(ids))
	for i, id := range ids {
		out[i] = Hit{ChunkID: id, Title: s.titles[id]}
	}
	return out, nil
}

func TestHybridLetsTheFullTextArmLeadOnAnExactReference(t *testing.T) {
	t.Parallel()
	store := referenceArmStore{titles: map[int64]string{1: "Artículo 99", 2: "Artículo 98", 5: "Título IV"}}
	h := NewHybrid(store, &recordingEmbedder{}, DefaultHybridOptions())
	ids := func(query string, arms []Arm) []int64 {
		res, err := h.Search(context.Background(), SearchRequest{Query: query, Scope: MustScope("everyone"), Arms: arms})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for i, hit := range res.Hits {
			out = append(out, hit.ChunkID)
			if i > 0 && hit.Score > res.Hits[i-1].Score {
				t.Errorf("%q: hit %d scores %.4f above the one before it (%.4f)", query, i, hit.Score, res.Hits[i-1].Score)
			}
		}
		return out
	}
	// The article titled with the reference first, then the full-text arm's order, then the
	// vector arm's other hits.
	if got, want := ids("art. 99", nil), []int64{1, 5, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("hybrid on a reference: %v, want %v", got, want)
	}
	// A single arm is measured as it ranks.
	if got, want := ids("art. 99", []Arm{ArmFTS}), []int64{5, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("full-text arm alone: %v, want %v", got, want)
	}
	// Anything else is fused as before: the vector arm's agreement lifts chunk 2 above chunk 1.
	if got, want := ids("who forms the government", nil), []int64{5, 2, 1, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("plain question fused %v, want %v", got, want)
	}
}

func TestParseReference(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query string
		want  Reference
		ok    bool
	}{
		{"art. 99", Reference{"art", "99"}, true},
		{"Artículo 99", Reference{"art", "99"}, true},
		{"articulo 14 de la Constitución", Reference{"art", "14"}, true},
		{"¿Qué dice el artículo 155?", Reference{"art", "155"}, true},
		{"section 4.2", Reference{"sec", "4.2"}, true},
		{"§ 12", Reference{"sec", "12"}, true},
		{"Título IV", Reference{"title", "iv"}, true},
		{"title i want to read", Reference{}, false},
		{"section c of the form", Reference{}, false},
		{"Capítulo segundo", Reference{}, false},
		{"art deco furniture", Reference{}, false},
		{"how many days of leave do I get", Reference{}, false},
		{"what did the author write in section 3 of his first report", Reference{}, false},
		{"ERR_4402", Reference{}, false},
	}
	for _, c := range cases {
		got, ok := ParseReference(c.query)
		if ok != c.ok || got != c.want {
			t.Errorf("ParseReference(%q) = %+v, %v; want %+v, %v", c.query, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseReference(f *testing.F) {
	for _, seed := range []string{"art. 99", "§ 4.2", "Título IV", "¿Qué dice el artículo 155?", "art.", "section ."} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		ref, ok := ParseReference(q)
		if ok && (ref.Kind == "" || ref.Number == "") {
			t.Errorf("ParseReference(%q) = %+v: a reference without kind or number", q, ref)
		}
	})
}
