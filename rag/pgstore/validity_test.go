package pgstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/citahq/cita/rag"
)

// docValid indexes one single-chunk document with a validity.
func (b *bundle) docValid(t *testing.T, id, title, text string, v rag.Validity) int64 {
	t.Helper()
	c := rag.Chunk{Heading: title, Content: text}
	c.Embedding = b.emb.Vector(c.Text())
	docID, _, err := b.store.ReplaceDocument(context.Background(), rag.Document{
		Source: "t", ExternalID: id, Title: title, Lang: "en", UpdatedAt: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC),
		ContentHash: id + "-hash", Groups: []string{"everyone"}, Validity: v,
	}, []rag.Chunk{c})
	if err != nil {
		t.Fatalf("index %s: %v", id, err)
	}
	if _, err := b.store.CompactStats(context.Background()); err != nil {
		t.Fatal(err)
	}
	return docID
}

// TestValidityFiltersEveryPath indexes a current policy, an expired one, one superseded by name
// and one that applies only from next year, and checks that the vector arm, the full-text arm,
// LoadHits and DocumentSections return only the current one for "now", and the 2023 one for a
// question about 2023, with its validity loaded for the answer's note.
func TestValidityFiltersEveryPath(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	next := time.Now().Year() + 1
	current := b.docValid(t, "travel-2025.md", "Travel policy", "Travel policy: the daily meal allowance is 60 euros.",
		rag.Validity{From: day(2025, 1, 1)})
	expired := b.docValid(t, "travel-2023.md", "Travel policy", "Travel policy: the daily meal allowance is 45 euros.",
		rag.Validity{From: day(2023, 1, 1), Until: day(2024, 1, 1)})
	superseded := b.docValid(t, "travel-2024.md", "Travel policy", "Travel policy: the daily meal allowance is 50 euros.",
		rag.Validity{From: day(2024, 1, 1), SupersededBy: "travel-2025.md", SupersededOn: day(2025, 1, 1)})
	future := b.docValid(t, "travel-next.md", "Travel policy", "Travel policy: the daily meal allowance is 70 euros.",
		rag.Validity{From: day(next, 1, 1)})
	archived := b.docValid(t, "archive/travel-old.md", "Travel policy", "Travel policy: the daily meal allowance is 30 euros.",
		rag.Validity{Superseded: true})
	all := []int64{current, expired, superseded, future, archived}
	scope := rag.MustScope("everyone")
	in2023 := scope.WithPeriod(rag.QuestionPeriod("what was the 2023 travel policy?", time.Now()))

	docsOf := func(hits []rag.ArmHit) []int64 {
		ids := make([]int64, len(hits))
		for i, h := range hits {
			ids[i] = h.ChunkID
		}
		loaded, err := b.store.LoadHits(ctx, ids, rag.MustScope("everyone").WithPeriod(rag.Period{From: day(1900, 1, 1), Until: day(9999, 1, 1)}))
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, h := range loaded {
			out = append(out, h.DocumentID)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name  string
		scope rag.Scope
		want  []int64
	}{
		{"now", scope, []int64{current}},
		{"2023", in2023, []int64{expired, archived}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vec, err := b.emb.Embed(ctx, []string{"daily meal allowance travel policy"})
			if err != nil {
				t.Fatal(err)
			}
			vhits, err := b.store.SearchVector(ctx, vec[0], tc.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got := docsOf(vhits); !slices.Equal(got, tc.want) {
				t.Errorf("vector arm: documents %v, want %v", got, tc.want)
			}
			exact, err := b.store.SearchVectorExact(ctx, vec[0], tc.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got := docsOf(exact); !slices.Equal(got, tc.want) {
				t.Errorf("exact vector arm: documents %v, want %v", got, tc.want)
			}
			fhits, _, err := b.store.SearchFTS(ctx, rag.FTSQuery{Text: "meal allowance"}, tc.scope, 10)
			if err != nil {
				t.Fatal(err)
			}
			if got := docsOf(fhits); !slices.Equal(got, tc.want) {
				t.Errorf("full-text arm: documents %v, want %v", got, tc.want)
			}
			var ids []int64
			for _, h := range append(vhits, exact...) {
				ids = append(ids, h.ChunkID)
			}
			for _, id := range all {
				_, err := b.store.DocumentSections(ctx, id, tc.scope)
				if readable := err == nil; readable != slices.Contains(tc.want, id) {
					t.Errorf("DocumentSections(%d): err %v, want readable %t", id, err, !readable)
				} else if err != nil && !errors.Is(err, rag.ErrDocumentNotFound) {
					t.Errorf("DocumentSections(%d): %v", id, err)
				}
			}
		})
	}

	// LoadHits applies the filter itself: every chunk asked for "now" comes back only if current.
	var chunkIDs []int64
	for _, id := range all {
		hits, err := b.store.DocumentSections(ctx, id, scope.WithPeriod(rag.Period{From: day(1900, 1, 1), Until: day(9999, 1, 1)}))
		if err != nil {
			t.Fatal(err)
		}
		chunkIDs = append(chunkIDs, hits[0].ChunkID)
	}
	hits, err := b.store.LoadHits(ctx, chunkIDs, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].DocumentID != current {
		t.Fatalf("LoadHits now: %v, want only the current document", hits)
	}
	hits, err = b.store.LoadHits(ctx, chunkIDs, in2023)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.DocumentID == superseded && !h.Validity.Superseded {
			t.Errorf("superseded document loaded without its mark: %+v", h.Validity)
		}
		if h.DocumentID == archived && (h.Validity.SupersededOn.IsZero() || !h.NoLongerCurrent(time.Now())) {
			t.Errorf("archived document: superseded_on not recorded: %+v", h.Validity)
		}
		if h.DocumentID == expired && rag.HistoryNote(h.Validity, time.Now(), "en") != "valid until 2024-01-01" {
			t.Errorf("expired note: %q", rag.HistoryNote(h.Validity, time.Now(), "en"))
		}
	}
}

// TestValidityRejectsReversedWindow: a document valid until before it starts is an error.
func TestValidityRejectsReversedWindow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := rag.Chunk{Content: "x"}
	c.Embedding = b.emb.Vector("x")
	_, _, err := b.store.ReplaceDocument(context.Background(), rag.Document{Source: "t", ExternalID: "x.md", Title: "x",
		UpdatedAt: time.Now(), ContentHash: "h", Groups: []string{"everyone"},
		Validity: rag.Validity{From: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}}, []rag.Chunk{c})
	if err == nil {
		t.Fatal("a reversed validity window was indexed")
	}
}
