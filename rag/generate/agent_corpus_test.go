package generate_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// testDoc is one fictional document of Norvik Logistics, the organisation of the agent tests.
type testDoc struct {
	path, title, owner string
	groups             []string
	sections           [][2]string // section name, text
}

// agentCorpus: questions that need two documents (a policy and the records it applies to), and
// documents of restricted groups carrying canary phrases that must never reach an asker outside
// them.
var agentCorpus = []testDoc{
	{path: "policies/travel-expenses-2025.md", title: "Travel and expense policy 2025", owner: "Finance operations",
		groups: []string{"everyone"}, sections: [][2]string{
			{"Receipts", "From 1 March 2025 every expense of 25 euros or more needs an itemised receipt. Taxi and ride-hailing fares need a receipt whatever the amount. Public transport tickets under 25 euros need no receipt."},
			{"Per diem", "Meals on trips abroad are covered by a per diem of 55 euros a day. Meals claimed as per diem need no receipt."},
			{"Approval", "Expense reports are approved by the traveller's line manager within ten working days of submission."},
		}},
	{path: "expenses/2025-03-lisbon-customer-visit.md", title: "Expense report: Lisbon customer visit, March 2025", owner: "Alice Moreau",
		groups: []string{"everyone"}, sections: [][2]string{
			{"Items", "Taxi from Lisbon airport to the Alcântara office: 18 euros. Hotel Miradouro, two nights: 236 euros. Metro card: 6 euros. Team dinner with the customer at Cervejaria Ramiro: 42 euros."},
			{"Trip", "Alice Moreau visited the Lisbon customer from 11 to 13 March 2025 to plan the warehouse rollout."},
		}},
	{path: "engineering/oncall-handbook.md", title: "On-call handbook", owner: "Platform engineering",
		groups: []string{"eng"}, sections: [][2]string{
			{"Compensation", "Engineers on the on-call rota receive 300 euros per week on call. The compensation is approved by the director of the engineer's team."},
			{"Escalation", "Pages go to the primary on-call engineer first and escalate to the secondary after 15 minutes."},
		}},
	{path: "engineering/org-chart.md", title: "Engineering organisation chart", owner: "Platform engineering",
		groups: []string{"eng"}, sections: [][2]string{
			{"Teams", "The payments team is led by Marta Quintero, director of payments engineering. The logistics platform team is led by Jonas Ek, director of platform engineering."},
		}},
	{path: "hr/salary-review-2025.md", title: "Salary review 2025", owner: "People team",
		groups: []string{"hr"}, sections: [][2]string{
			{"Budget", "The 2025 salary review budget is 3.1 percent of payroll. Reference CANARY-HR-7Q2 applies to every review letter."},
		}},
	{path: "finance/board-forecast.md", title: "Board forecast Q3", owner: "CFO office",
		groups: []string{"finance"}, sections: [][2]string{
			{"Forecast", "Revenue for the third quarter is forecast at 41 million euros. Reference CANARY-FIN-K81 marks the board pack."},
		}},
}

// corpus is the indexed test set: the store, a hybrid searcher over it and each document's id by
// path.
type corpus struct {
	store  *pgstore.Store
	search *rag.Hybrid
	ids    map[string]int64
}

func indexAgentCorpus(t *testing.T) *corpus {
	t.Helper()
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	logger := slog.New(slog.DiscardHandler)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	emb := hashembed.New(0)
	store, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EnsureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	c := &corpus{store: store, search: rag.NewHybrid(store, emb, rag.DefaultHybridOptions()), ids: map[string]int64{}}
	for i, d := range agentCorpus {
		var chunks []rag.Chunk
		for _, s := range d.sections {
			ch := rag.Chunk{Heading: d.title + " > " + s[0], Section: s[0], Content: s[1]}
			ch.Embedding = emb.Vector(ch.Text())
			chunks = append(chunks, ch)
		}
		id, _, err := store.ReplaceDocument(ctx, rag.Document{Source: "handbook", ExternalID: d.path, Title: d.title, Owner: d.owner,
			Lang: "en", UpdatedAt: time.Date(2025, 3, 1+i, 0, 0, 0, 0, time.UTC), ContentHash: d.path, Groups: d.groups}, chunks)
		if err != nil {
			t.Fatal(err)
		}
		c.ids[d.path] = id
	}
	if _, err := store.CompactStats(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}
