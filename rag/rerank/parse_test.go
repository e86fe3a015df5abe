package rerank

import (
	"slices"
	"strings"
	"testing"
)

func TestParseScores(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		flavor  string
		body    string
		n       int
		want    []float64
		wantErr string
	}{
		{name: "cohere reordered", flavor: FlavorCohere, n: 3,
			body: `{"id":"x","results":[{"index":2,"relevance_score":0.9},{"index":0,"relevance_score":0.5},{"index":1,"relevance_score":0.1}],"meta":{}}`,
			want: []float64{0.5, 0.1, 0.9}},
		{name: "jina with document echo", flavor: FlavorCohere, n: 2,
			body: `{"model":"j","usage":{"total_tokens":5},"results":[{"index":1,"document":{"text":"b"},"relevance_score":0.7},{"index":0,"document":{"text":"a"},"relevance_score":0.2}]}`,
			want: []float64{0.2, 0.7}},
		{name: "tei", flavor: FlavorTEI, n: 2, body: `[{"index":1,"score":3.5},{"index":0,"score":-1.25}]`,
			want: []float64{-1.25, 3.5}},
		{name: "top_n ignored by server", flavor: FlavorCohere, n: 3,
			body: `{"results":[{"index":2,"relevance_score":0.9}]}`, wantErr: "scored 1 of 3"},
		{name: "index out of range", flavor: FlavorTEI, n: 1, body: `[{"index":1,"score":1}]`, wantErr: "out-of-range"},
		{name: "index missing", flavor: FlavorTEI, n: 1, body: `[{"score":1}]`, wantErr: "out-of-range"},
		{name: "duplicate", flavor: FlavorTEI, n: 2, body: `[{"index":0,"score":1},{"index":0,"score":2}]`, wantErr: "scored twice"},
		{name: "score missing", flavor: FlavorCohere, n: 1, body: `{"results":[{"index":0}]}`, wantErr: "no finite score"},
		{name: "tei body for cohere flavor", flavor: FlavorCohere, n: 1, body: `[{"index":0,"score":1}]`, wantErr: "decode response"},
		{name: "cohere body for tei flavor", flavor: FlavorTEI, n: 1, body: `{"results":[]}`, wantErr: "decode TEI response"},
		{name: "no results field", flavor: FlavorCohere, n: 1, body: `{"scores":[1]}`, wantErr: `no "results" field`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseScores(tc.flavor, []byte(tc.body), tc.n)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("parseScores = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// FuzzParseScores: rerank answers are outside input; the parser must not panic and, when it
// succeeds, must return exactly n scores.
func FuzzParseScores(f *testing.F) {
	f.Add(`{"results":[{"index":0,"relevance_score":0.5}]}`, 1, false)
	f.Add(`[{"index":1,"score":2},{"index":0,"score":1}]`, 2, true)
	f.Add(`[{"index":-1,"score":1}]`, 1, true)
	f.Fuzz(func(t *testing.T, body string, n int, tei bool) {
		if n < 0 || n > 1000 {
			return
		}
		flavor := FlavorCohere
		if tei {
			flavor = FlavorTEI
		}
		got, err := parseScores(flavor, []byte(body), n)
		if err == nil && len(got) != n {
			t.Errorf("parseScores returned %d scores for %d documents", len(got), n)
		}
	})
}
