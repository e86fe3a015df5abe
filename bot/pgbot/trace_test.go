package pgbot_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// TestLoadTraceChecksTheViewerInSQL covers every rule of LoadTrace: conversation, ephemeral
// replies, the viewer's groups against the answer's scope and against the documents it used (as
// they were and as they are now), and what a visible trace holds.
func TestLoadTraceChecksTheViewerInSQL(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, sal := docID(t, env, "vacation.md"), docID(t, env, "salaries.md")
	public := answer(t, env, thread, "vacation?", "22 days", "", vac) // scope {everyone, hr}
	salary := answer(t, env, thread, "band B7?", "5,440,000", "", sal)
	private := answer(t, env, thread, "mine?", "22 days", "UHR", vac)
	none := answer(t, env, thread, "unknown?", "I couldn't find this", "") // no document
	other := bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "other"}
	viewer := func(user string, conv bot.ConversationKey, groups ...string) bot.Viewer {
		v := bot.Viewer{Conversation: conv, UserID: user}
		if len(groups) > 0 {
			v.Scope = rag.MustScope(groups...)
		}
		return v
	}
	tests := []struct {
		name   string
		id     int64
		viewer bot.Viewer
		want   error
	}{
		{"member who may read the source", public, viewer("U2", thread, "everyone"), nil},
		{"another conversation", public, viewer("U2", other, "everyone"), bot.ErrNotVisible},
		{"no group", public, viewer("U2", thread), bot.ErrNotVisible},
		{"a group the answer did not search", public, viewer("U2", thread, "board"), bot.ErrNotVisible},
		{"a source the viewer may not read", salary, viewer("U2", thread, "everyone"), bot.ErrNotVisible},
		{"hr may read it", salary, viewer("UHR", thread, "hr"), nil},
		{"someone else's ephemeral reply", private, viewer("U2", thread, "everyone", "hr"), bot.ErrNotVisible},
		{"the ephemeral reply's own asker", private, viewer("UHR", thread, "everyone"), nil},
		{"an abstention, shared scope", none, viewer("U2", thread, "everyone"), nil},
		{"an abstention, scope not shared", none, viewer("U2", thread, "board"), bot.ErrNotVisible},
		{"unknown answer", salary + 99, viewer("U2", thread, "everyone"), bot.ErrAnswerNotFound},
	}
	for _, tt := range tests {
		rec, err := env.Bot.LoadTrace(ctx, tt.id, tt.viewer)
		if !errors.Is(err, tt.want) || (tt.want == nil) != (rec != nil) {
			t.Errorf("%s: LoadTrace = %v, %v; want %v", tt.name, rec != nil, err, tt.want)
		}
	}

	rec, err := env.Bot.LoadTrace(ctx, public, viewer("U2", thread, "everyone", "board"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.ScopeGroups, []string{"everyone"}) || rec.OtherGroups != 1 {
		t.Errorf("trace groups %v and %d others; want [everyone] and 1 (hr, not the viewer's)", rec.ScopeGroups, rec.OtherGroups)
	}

	// Access narrows after the answer: the vacation policy becomes hr-only.
	if err := env.Index.SetGroups(ctx, "test", "vacation.md", []string{"hr"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Bot.LoadTrace(ctx, public, viewer("U2", thread, "everyone")); !errors.Is(err, bot.ErrNotVisible) {
		t.Errorf("after the source became hr-only: %v; want ErrNotVisible", err)
	}
	if _, err := env.Bot.LoadTrace(ctx, public, viewer("UHR", thread, "hr")); !errors.Is(err, bot.ErrNotVisible) {
		t.Errorf("hr, who could not read the source when it was answered: %v; want ErrNotVisible", err)
	}
	// A deleted source hides the trace too.
	if _, err := env.Index.DeleteDocuments(ctx, "test", []string{"salaries.md"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Bot.LoadTrace(ctx, salary, viewer("UHR", thread, "hr")); !errors.Is(err, bot.ErrNotVisible) {
		t.Errorf("after the source was deleted: %v; want ErrNotVisible", err)
	}
}

// TestTraceNamesOnlyCitedHits: a stored answer keeps no name for an uncited hit, and a record
// written before that rule (a name without the cited flag) loses it when loaded.
func TestTraceNamesOnlyCitedHits(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, sal := docID(t, env, "vacation.md"), docID(t, env, "salaries.md")
	rec := &bot.AnswerRecord{Conversation: thread, AskerID: "UHR", Question: "q", StandaloneQuery: "q", Text: "t",
		ScopeGroups: []string{"everyone", "hr"},
		Sources:     []bot.SourceRef{{N: 1, ChunkID: 7, DocumentID: vac, DocVersion: 1, Title: "Vacation policy", Path: "vacation.md"}},
		TopHits: []bot.HitRef{
			{Cited: true, ChunkID: 7, DocumentID: vac, Title: "Vacation policy", Heading: "Vacation policy", Path: "vacation.md", FTSRank: 1},
			{ChunkID: 9, DocumentID: sal, Title: "Salary bands", Heading: "Salary bands", Path: "salaries.md", FTSRank: 2, VectorRank: 1},
		}}
	rec.Consulted = rec.Sources
	id, err := env.Bot.SaveAnswer(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := env.Bot.LoadTrace(ctx, id, bot.Viewer{Conversation: thread, UserID: "U2", Scope: rag.MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.TopHits) != 2 || got.TopHits[0].Heading != "Vacation policy" || !got.TopHits[0].Cited {
		t.Fatalf("cited hit %+v", got.TopHits)
	}
	if h := got.TopHits[1]; h.Cited || h.Title != "" || h.Heading != "" || h.Path != "" || h.ChunkID != 0 || h.DocumentID != 0 ||
		h.FTSRank != 2 || h.VectorRank != 1 {
		t.Fatalf("uncited hit %+v: want its ranks only", h)
	}
}

// TestTraceShowsAgentStepsToWhoHoldsTheWholeScope: an agent searched with every group of the
// answer's scope, so its queries and the documents it read are shown only to a viewer holding
// all of them; others see the steps' tools, counts and timings only.
func TestTraceShowsAgentStepsToWhoHoldsTheWholeScope(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	steps := []rag.AgentStep{
		{N: 1, Tool: "search", Query: "band B7 salary", Results: 3, ChunkIDs: []int64{4, 5}},
		{N: 2, Tool: "get_document", DocumentID: 41, Results: 2},
	}
	id, err := env.Bot.SaveAnswer(ctx, &bot.AnswerRecord{Conversation: thread, AskerID: "UHR", Question: "vacation?",
		StandaloneQuery: "vacation?", Text: "22 days [1]", ScopeGroups: []string{"everyone", "hr"}, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := env.Bot.LoadTrace(ctx, id, bot.Viewer{Conversation: thread, UserID: "UHR", Scope: rag.MustScope("everyone", "hr")})
	if err != nil || len(whole.Steps) != 2 || whole.Steps[0].Query != "band B7 salary" || whole.Steps[1].DocumentID != 41 {
		t.Fatalf("steps for a viewer holding the whole scope: %+v, %v", whole, err)
	}
	part, err := env.Bot.LoadTrace(ctx, id, bot.Viewer{Conversation: thread, UserID: "U2", Scope: rag.MustScope("everyone")})
	if err != nil || len(part.Steps) != 2 {
		t.Fatalf("steps for a viewer holding part of the scope: %+v, %v", part, err)
	}
	for _, st := range part.Steps {
		if st.Query != "" || st.DocumentID != 0 || len(st.ChunkIDs) != 0 || st.Results == 0 || st.Tool == "" {
			t.Errorf("step shown to a viewer outside hr: %+v; want its tool and count only", st)
		}
	}
	if lines := bot.StepLines(part.Steps); lines[0] != "1. searched: 3 passage(s) (0s)" || lines[1] != "2. read a document: 2 passage(s) (0s)" {
		t.Errorf("step lines without queries and documents: %q", lines)
	}
}
