package rag_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/rerank"
)

// rerankHits are fused hits whose fused order disagrees with word overlap with rerankQuery: the
// fake's default scorer ranks chunk 3 first, then 2, then 1.
func rerankHits() []rag.Hit {
	texts := []string{
		"The office opens at nine in the morning.",           // 0 of 3 query words
		"Vacation requests go to your manager.",              // "vacation"
		"Full-time employees get 23 vacation days per year.", // all three
		"Parking spots are assigned by lottery.",
	}
	hits := make([]rag.Hit, len(texts))
	for i, text := range texts {
		hits[i] = rag.Hit{ChunkID: int64(i + 1), DocumentID: int64(i + 1), DocVersion: 1, Title: "Handbook",
			Content: text, Score: 1 / float64(61+i), ArmRank: map[rag.Arm]int{rag.ArmFTS: i + 1}}
	}
	return hits
}

const rerankQuery = "vacation days employees"

func chunkOrder(hits []rag.Hit) []int64 {
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	return ids
}

func TestPipelineRerank(t *testing.T) {
	t.Parallel()
	fused := []int64{1, 2, 3, 4}
	tests := []struct {
		name      string
		setup     func(s *fakeopenai.Server)
		want      []int64
		wantTrace string // the trace timing that must be set
	}{
		{name: "reorders by the reranker's scores", want: []int64{3, 2, 1, 4}, wantTrace: rag.TimingRerank},
		{name: "500 keeps the fused order", setup: func(s *fakeopenai.Server) { s.FailNext(1, http.StatusInternalServerError, "") },
			want: fused, wantTrace: rag.TimingRerankFallback},
		{name: "timeout keeps the fused order", setup: func(s *fakeopenai.Server) { s.Delay(2 * time.Second) },
			want: fused, wantTrace: rag.TimingRerankFallback},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakeopenai.New(t)
			if tc.setup != nil {
				tc.setup(srv)
			}
			client, err := rerank.New(rerank.Config{BaseURL: srv.URL, Model: "rerank-test", Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			s := &fixedSearcher{hits: rerankHits()}
			// 100 ms only where the test is about the timeout (the fake waits 2 s there): a loaded
			// machine can take longer than that to answer over loopback.
			timeout := time.Minute
			if tc.name == "timeout keeps the fused order" {
				timeout = 100 * time.Millisecond
			}
			p := rag.NewPipeline(s, rag.Extractive{}, nil, rag.PipelineOptions{Reranker: client, RerankTopN: 30,
				RerankTimeout: timeout, MinEvidence: -1, Logger: slog.New(slog.DiscardHandler)})
			start := time.Now()
			ans, err := p.Answer(context.Background(), rag.Question{Text: rerankQuery, Scope: rag.MustScope("hr")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took >= 2*time.Second {
				t.Errorf("answer took %s: the rerank timeout did not bound the call", took)
			}
			if got := chunkOrder(ans.Search.Hits); !slices.Equal(got, tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
			if _, ok := ans.Search.Trace.Timings[tc.wantTrace]; !ok {
				t.Errorf("trace timings %v lack %q", ans.Search.Trace.Timings, tc.wantTrace)
			}
			if s.limit != 30 {
				t.Errorf("searched for %d hits, want RerankTopN=30 candidates", s.limit)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Query != rerankQuery || len(reqs[0].Documents) != 4 {
				t.Fatalf("reranker requests = %+v, want one with the query and 4 documents", reqs)
			}
			if tc.wantTrace == rag.TimingRerank {
				top := ans.Search.Hits[0]
				if top.ArmRank[rag.ArmRerank] != 1 || top.ArmRank[rag.ArmFTS] != 3 || len(ans.Search.Trace.Arms[rag.ArmRerank]) != 4 {
					t.Errorf("top hit ranks %v, trace %v: want rerank #1 and fts #3 kept", top.ArmRank, ans.Search.Trace.Arms[rag.ArmRerank])
				}
			}
		})
	}
}

func TestPipelineRerankTopNAndRetrieve(t *testing.T) {
	t.Parallel()
	srv := fakeopenai.New(t, fakeopenai.WithRerankFunc(func(req fakeopenai.Request) ([]float64, *fakeopenai.HTTPError) {
		scores := make([]float64, len(req.Documents)) // reverse the order given
		for i := range scores {
			scores[i] = float64(i)
		}
		return scores, nil
	}))
	client, err := rerank.New(rerank.Config{BaseURL: srv.URL, Model: "m", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var hits []rag.Hit
	for i := range 12 {
		hits = append(hits, rag.Hit{ChunkID: int64(i + 1), Content: fmt.Sprintf("vacation text %d", i)})
	}
	s := &fixedSearcher{hits: hits}
	p := rag.NewPipeline(s, rag.Extractive{}, nil, rag.PipelineOptions{Reranker: client, RerankTopN: 5, Retrieve: 4,
		MinEvidence: -1, Logger: slog.New(slog.DiscardHandler)})
	ans, err := p.Answer(context.Background(), rag.Question{Text: "vacation", Scope: rag.MustScope("hr")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Requests()[0].Documents); got != 5 {
		t.Errorf("reranked %d hits, want RerankTopN=5", got)
	}
	if got := chunkOrder(ans.Search.Hits); !slices.Equal(got, []int64{5, 4, 3, 2}) {
		t.Errorf("order = %v, want the 5 reranked reversed, cut to Retrieve=4", got)
	}
}
