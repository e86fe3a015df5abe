package pgbot_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

var thread = bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "1700000000.000100"}

// answer saves an answer in conv citing the given documents (by id), shown to visibleTo alone
// (ephemeral) when set.
func answer(t *testing.T, env *bottest.Env, conv bot.ConversationKey, question, text, visibleTo string, docIDs ...int64) int64 {
	t.Helper()
	rec := &bot.AnswerRecord{Conversation: conv, AskerID: "U1", VisibleTo: visibleTo, Ephemeral: visibleTo != "", Question: question,
		StandaloneQuery: question, Text: text, ScopeGroups: []string{"everyone", "hr"},
		Timings: map[string]time.Duration{"search": 12 * time.Millisecond}, Total: 40 * time.Millisecond}
	for i, id := range docIDs {
		rec.Sources = append(rec.Sources, bot.SourceRef{N: i + 1, ChunkID: int64(100 + i), DocumentID: id, DocVersion: 1, Title: "t", Path: "p"})
	}
	rec.Consulted = rec.Sources
	id, err := env.Bot.SaveAnswer(context.Background(), rec)
	if err != nil {
		t.Fatalf("save answer: %v", err)
	}
	return id
}

func docID(t *testing.T, env *bottest.Env, path string) int64 {
	t.Helper()
	var id int64
	if err := env.Pool.QueryRow(context.Background(), `SELECT id FROM documents WHERE external_id = $1`, path).Scan(&id); err != nil {
		t.Fatalf("document %s: %v", path, err)
	}
	return id
}

// saveAndLoad saves rec and loads it back by its new id.
func saveAndLoad(t *testing.T, env *bottest.Env, rec *bot.AnswerRecord) *bot.AnswerRecord {
	t.Helper()
	ctx := context.Background()
	id, err := env.Bot.SaveAnswer(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := env.Bot.LoadAnswer(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// countConcurrent runs fn n times at once, as n replicas would, and counts the calls that
// returned true; an error fails the test.
func countConcurrent(t *testing.T, n int, fn func() (bool, error)) int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	count := 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := fn()
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				count++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return count
}

func texts(turns []rag.Turn) []string {
	var out []string
	for _, t := range turns {
		out = append(out, t.Role+":"+t.Text)
	}
	return out
}

func TestRecentTurnsKeepsOrderAndLimit(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac := docID(t, env, "vacation.md")
	for _, q := range []string{"q1", "q2", "q3"} {
		answer(t, env, thread, q, "a-"+q, "", vac)
	}
	answer(t, env, bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "other"}, "elsewhere", "x", "", vac)
	got, err := env.Bot.RecentTurns(ctx, thread, rag.MustScope("everyone"), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user:q2", "assistant:a-q2", "user:q3", "assistant:a-q3"}
	if g := texts(got); len(g) != len(want) || g[0] != want[0] || g[3] != want[3] {
		t.Fatalf("turns = %v, want %v", g, want)
	}
	if ok, err := env.Bot.HasTurns(ctx, thread); err != nil || !ok {
		t.Fatalf("HasTurns(thread) = %v, %v; want true", ok, err)
	}
	if ok, _ := env.Bot.HasTurns(ctx, bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "nobody"}); ok {
		t.Fatal("HasTurns is true for a thread without answers")
	}
}

func TestRecentTurnsHideAnswersOutsideTheScope(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, sal := docID(t, env, "vacation.md"), docID(t, env, "salaries.md")
	answer(t, env, thread, "vacation?", "22 days", "", vac)
	answer(t, env, thread, "band B7?", "5,440,000", "", sal)
	answer(t, env, thread, "both?", "22 days and 5,440,000", "", vac, sal)
	answer(t, env, thread, "unknown?", "I couldn't find this", "") // abstention: no document
	tests := []struct {
		scope rag.Scope
		want  []string
	}{
		{rag.MustScope("everyone"), []string{"user:vacation?", "assistant:22 days", "user:unknown?", "assistant:I couldn't find this"}},
		{rag.MustScope("hr"), []string{"user:band B7?", "assistant:5,440,000", "user:unknown?", "assistant:I couldn't find this"}},
		{rag.MustScope("everyone", "hr"), nil}, // all 8
	}
	for _, tt := range tests {
		t.Run(tt.scope.Key(), func(t *testing.T) {
			got, err := env.Bot.RecentTurns(ctx, thread, tt.scope, 20)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if len(got) != 8 {
					t.Fatalf("turns = %v, want all 8", texts(got))
				}
				return
			}
			if g := texts(got); len(g) != len(tt.want) || g[0] != tt.want[0] || g[1] != tt.want[1] || g[2] != tt.want[2] {
				t.Fatalf("turns = %v, want %v", g, tt.want)
			}
		})
	}
	if _, err := env.Bot.RecentTurns(ctx, thread, rag.Scope{}, 5); !errors.Is(err, rag.ErrNoScope) {
		t.Fatalf("empty scope: err = %v, want ErrNoScope", err)
	}
}

func TestRecentTurnsFollowPermissionChangesAndDeletes(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, remote := docID(t, env, "vacation.md"), docID(t, env, "remote.md")
	answer(t, env, thread, "vacation?", "22 days", "", vac)
	answer(t, env, thread, "remote?", "3 days", "", remote)
	everyone := rag.MustScope("everyone")
	if got, _ := env.Bot.RecentTurns(ctx, thread, everyone, 10); len(got) != 4 {
		t.Fatalf("before: %v", texts(got))
	}
	if err := env.Index.SetGroups(ctx, "test", "vacation.md", []string{"hr"}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Index.DeleteDocuments(ctx, "test", []string{"remote.md"}); err != nil {
		t.Fatal(err)
	}
	got, err := env.Bot.RecentTurns(ctx, thread, everyone, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("after the vacation doc became hr-only and remote.md was deleted, scope everyone still sees %v", texts(got))
	}
	if got, _ := env.Bot.RecentTurns(ctx, thread, rag.MustScope("hr"), 10); len(got) != 0 {
		t.Fatalf("hr sees %v; the answer was given when vacation.md was everyone-only, which hr alone never could read", texts(got))
	}
}

// TestRecentTurnsHideAnswersFromWithheldDocuments: when a document's access can no longer be
// resolved (sync withholds it), the answers that used it stop feeding follow-ups at once, and
// feed them again once its access resolves.
func TestRecentTurnsHideAnswersFromWithheldDocuments(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	answer(t, env, thread, "vacation?", "22 days", "", docID(t, env, "vacation.md"))
	everyone := rag.MustScope("everyone")
	if got, _ := env.Bot.RecentTurns(ctx, thread, everyone, 10); len(got) != 2 {
		t.Fatalf("before: %v", texts(got))
	}
	if err := env.Index.WithholdDocument(ctx, "test", "vacation.md", "no access group"); err != nil {
		t.Fatal(err)
	}
	for _, scope := range []rag.Scope{everyone, rag.MustScope("everyone", "hr")} {
		if got, err := env.Bot.RecentTurns(ctx, thread, scope, 10); err != nil || len(got) != 0 {
			t.Fatalf("with vacation.md withheld, %v still sees %v (%v)", scope.Groups(), texts(got), err)
		}
	}
	if err := env.Index.SetGroups(ctx, "test", "vacation.md", []string{"everyone"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := env.Bot.RecentTurns(ctx, thread, everyone, 10); len(got) != 2 {
		t.Fatalf("after its access resolves: %v", texts(got))
	}
}

func TestEphemeralAnswersAreNotMemoryAndOnlyTheAskerRatesThem(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	conv := bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C9"}
	id := answer(t, env, conv, "secret?", "answer", "U1", docID(t, env, "vacation.md"))
	if ok, _ := env.Bot.HasTurns(ctx, conv); ok {
		t.Fatal("an ephemeral answer became a turn of the channel")
	}
	if err := env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: id, Conversation: conv, UserID: "U2", Rating: 1}); !errors.Is(err, bot.ErrNotVisible) {
		t.Fatalf("another user rating an ephemeral answer: err = %v, want ErrNotVisible", err)
	}
	if err := env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: id, Conversation: conv, UserID: "U1", Rating: -1}); err != nil {
		t.Fatalf("asker rating: %v", err)
	}
}

func TestFeedback(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	id := answer(t, env, thread, "q", "a", "", docID(t, env, "vacation.md"))
	rate := func(user string, conv bot.ConversationKey, rating int) error {
		return env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: id, Conversation: conv, UserID: user, Rating: rating})
	}
	if err := rate("U1", thread, 1); err != nil {
		t.Fatal(err)
	}
	if err := rate("U2", thread, 1); err != nil {
		t.Fatal(err)
	}
	if err := rate("U2", thread, -1); err != nil { // changes their mind
		t.Fatal(err)
	}
	if sum, n, err := env.Bot.Ratings(ctx, id); err != nil || sum != 0 || n != 2 {
		t.Fatalf("ratings = %d over %d (%v), want 0 over 2", sum, n, err)
	}
	other := thread
	other.Channel = "C2"
	if err := rate("U3", other, 1); !errors.Is(err, bot.ErrNotVisible) {
		t.Fatalf("rating from another channel: err = %v, want ErrNotVisible", err)
	}
	if err := rate("U1", thread, 5); err == nil {
		t.Fatal("a rating of 5 was accepted")
	}
	if err := env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: id + 1000, Conversation: thread, UserID: "U1", Rating: 1}); !errors.Is(err, bot.ErrAnswerNotFound) {
		t.Fatalf("unknown answer: err = %v, want ErrAnswerNotFound", err)
	}
}

func TestLoadAnswerRoundTrip(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac := docID(t, env, "vacation.md")
	rec := &bot.AnswerRecord{Conversation: thread, AskerID: "U1", Question: "and staging?", StandaloneQuery: "vacation days staging",
		Text: "22 days [1]", ScopeGroups: []string{"everyone"}, Evidence: 0.8, Reason: bot.ReasonNone,
		Sources: []bot.SourceRef{{N: 1, ChunkID: 7, DocumentID: vac, DocVersion: 3, Title: "Vacation policy", URL: "https://x/v", Path: "vacation.md"}},
		TopHits: []bot.HitRef{{ChunkID: 7, DocumentID: vac, Title: "Vacation policy", Score: 0.03, FTSRank: 1, VectorRank: 4}},
		Timings: map[string]time.Duration{"search": 15 * time.Millisecond, "generate": 2 * time.Millisecond},
		Total:   120 * time.Millisecond, Model: "extractive", PromptTokens: 10, CompletionTokens: 5,
		Dropped: []int64{11, 12}, Cached: true, Lang: "es", ReplyRef: "1700000100.000009"}
	rec.Consulted = rec.Sources
	got := saveAndLoad(t, env, rec)
	id := got.ID
	if id == 0 || got.StandaloneQuery != rec.StandaloneQuery || got.Conversation != thread || len(got.Sources) != 1 ||
		got.Sources[0].DocVersion != 3 || got.TopHits[0].VectorRank != 4 || got.Timings["search"] != 15*time.Millisecond ||
		got.Total != 120*time.Millisecond || got.PromptTokens != 10 || len(got.Dropped) != 2 || got.Dropped[1] != 12 || !got.Cached ||
		got.Lang != "es" || got.ReplyRef != "1700000100.000009" || !got.RedactedAt.IsZero() {
		t.Fatalf("loaded %+v\nsaved %+v", got, rec)
	}
	var groups []string
	if err := env.Pool.QueryRow(ctx, `SELECT doc_groups FROM bot_answer_documents WHERE answer_id = $1`, id).Scan(&groups); err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || groups[0] != "everyone" {
		t.Fatalf("recorded document groups %v, want the index's [everyone]", groups)
	}
	if _, err := env.Bot.LoadAnswer(ctx, id+99); !errors.Is(err, bot.ErrAnswerNotFound) {
		t.Fatalf("err = %v, want ErrAnswerNotFound", err)
	}
}

func TestMarkEventOncePerID(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	first := countConcurrent(t, 16, func() (bool, error) { return env.Bot.MarkEvent(ctx, "Ev123ABC456") })
	if first != 1 {
		t.Fatalf("%d deliveries were marked first, want 1", first)
	}
	if ok, _ := env.Bot.MarkEvent(ctx, "Ev999"); !ok {
		t.Fatal("a new event id was not first")
	}
	n, err := env.Bot.PruneEvents(ctx, time.Now().Add(time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("pruned %d (%v), want 2", n, err)
	}
	if ok, _ := env.Bot.MarkEvent(ctx, "Ev123ABC456"); !ok {
		t.Fatal("a pruned event id is still marked")
	}
}

func TestIndexEmpty(t *testing.T) {
	t.Parallel()
	env := bottest.New(t, []bottest.Doc{}...) // no documents
	ctx := context.Background()
	if empty, err := env.Bot.IndexEmpty(ctx); err != nil || !empty {
		t.Fatalf("with no document IndexEmpty = %v, %v; want true", empty, err)
	}
	env.Add(t, bottest.Corpus[0])
	if empty, err := env.Bot.IndexEmpty(ctx); err != nil || empty {
		t.Fatalf("with one document IndexEmpty = %v, %v; want false", empty, err)
	}
}

func TestRecentTurnsMarkAbstentions(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac := docID(t, env, "vacation.md")
	answer(t, env, thread, "how many vacation days?", "23 days [1]", "", vac)
	rec := &bot.AnswerRecord{Conversation: thread, AskerID: "U1", Question: "paternity leave?", StandaloneQuery: "paternity leave?",
		Text: "I couldn't find this in our documentation. You could ask Paula Henao.", ScopeGroups: []string{"everyone"},
		Abstained: true, AbstainReason: "weak_evidence"}
	if _, err := env.Bot.SaveAnswer(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, err := env.Bot.RecentTurns(ctx, thread, rag.MustScope("everyone"), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("turns %v, want 4", texts(got))
	}
	for i, want := range []bool{false, false, false, true} {
		if got[i].Abstained != want {
			t.Errorf("turn %d (%s) abstained=%v, want %v", i, texts(got)[i], got[i].Abstained, want)
		}
	}
}
