package pgstore_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// A cached "I couldn't find this" stops being served as soon as a document the asker may read
// answers it; a document only others may read leaves it cached. (It was served for the
// abstention TTL, ten minutes by default, after the answering document was indexed.)
func TestCachedAbstentionGoesStaleWhenAReadableDocumentArrives(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cache := pgstore.NewCache(b.store.Pool(), pgstore.CacheOptions{Variant: "test", ChangeMargin: time.Microsecond}, slog.New(slog.DiscardHandler))
	b.doc(t, "t", "expenses.md", "Expense policy", "en", []string{"everyone"},
		"Meals on business trips are reimbursed up to 40 EUR per day with a receipt.")
	p := rag.NewPipeline(b.hybrid(), rag.Extractive{}, nil, rag.PipelineOptions{Cache: cache})
	scope := rag.MustScope("everyone")
	ask := func(label string) *rag.Answer {
		t.Helper()
		ans, err := p.Answer(context.Background(), rag.Question{Text: "What is the guest wifi password in the Lisbon office?", Scope: scope}, nil)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return ans
	}
	first := ask("first")
	if !first.Abstained {
		t.Fatalf("nothing answers the question yet, got %q", first.Text)
	}
	if again := ask("again"); !again.Cached || !again.Abstained {
		t.Fatalf("the abstention should be served from the cache while nothing changed (cached %v)", again.Cached)
	}
	// A document the asker may not read changes nothing.
	b.doc(t, "t", "board-wifi.md", "Board room network", "en", []string{"board"},
		"The guest wifi password in the Lisbon office board room is kept by the board secretary.")
	if again := ask("after a private document"); !again.Cached {
		t.Error("a document outside the scope made the cached abstention stale: the cache tells its existence")
	}
	b.doc(t, "t", "wifi.md", "Office network", "en", []string{"everyone"},
		"The guest wifi password in the Lisbon office is printed on the card at reception: Gaivota-2025.")
	after := ask("after the answering document")
	if after.Cached || after.Abstained || !strings.Contains(after.Text, "Gaivota-2025") {
		t.Errorf("after the answer was indexed: cached %v, abstained %v, text %q; want a fresh answer quoting it",
			after.Cached, after.Abstained, after.Text)
	}
}

// A hedged reply comes back hedged, and is as tentative as an abstention: a document made
// readable again to its scope (a withheld one whose groups resolve) makes it stale.
func TestCachedHedgedReplyIsTentative(t *testing.T) {
	t.Parallel()
	b := setupCache(t, pgstore.CacheOptions{})
	doc, version := b.index(t, "policy", []string{"everyone"}, "Travel is booked through the portal.")
	b.index(t, "hidden", []string{"everyone"}, "Bikes may be parked in the basement.")
	if err := b.store.WithholdDocument(context.Background(), "cache", "hidden", "owner unknown"); err != nil {
		t.Fatal(err)
	}
	scope := rag.MustScope("everyone")
	k := key("can I bring my bike to work", scope)
	hedged := answerCiting("I'm not sure this answers your question.", [2]int64{doc, version})
	hedged.Hedged, hedged.HedgeReason, hedged.SearchedAt = true, rag.HedgeUncertain, time.Now()
	mustStore(t, b.cache, k, hedged)
	got := lookup(t, b.cache, k)
	if got == nil || !got.Hedged || got.HedgeReason != rag.HedgeUncertain || got.Abstained {
		t.Fatalf("cached hedged reply = %+v, want it back hedged", got)
	}
	if err := b.store.SetGroups(context.Background(), "cache", "hidden", []string{"everyone"}); err != nil {
		t.Fatal(err)
	}
	if got := lookup(t, b.cache, k); got != nil {
		t.Error("a document that became readable again left the hedged reply cached")
	}
}
