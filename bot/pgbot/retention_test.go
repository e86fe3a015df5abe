package pgbot_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/rag"
)

// copies counts the rows of bot_answers and bot_turns that still hold text.
func copies(t *testing.T, env *bottest.Env, text string) int {
	t.Helper()
	var n int
	err := env.Pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM bot_answers a WHERE to_jsonb(a)::text LIKE '%' || $1 || '%') +
		(SELECT count(*) FROM bot_turns t WHERE t.body LIKE '%' || $1 || '%')`, text).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPruneEnforcesRetention is the regression test of issue 12, finding 10 (the retention
// part): answer records and turns, copies of document text, were never pruned, so a deleted
// document's text, or one whose access narrowed, lived on in them.
func TestPruneEnforcesRetention(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, sal, remote := docID(t, env, "vacation.md"), docID(t, env, "salaries.md"), docID(t, env, "remote.md")
	old := answer(t, env, thread, "old question?", "an old answer quoting the archived handbook", "", vac)
	if _, err := env.Pool.Exec(ctx, `UPDATE bot_answers SET created_at = now() - interval '100 days' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	if err := env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: old, Conversation: thread, UserID: "U2", Rating: 1}); err != nil {
		t.Fatal(err)
	}
	salary := answer(t, env, thread, "band B7?", "Band B7 earns 5,440,000 [1]", "", sal)
	vacation := answer(t, env, thread, "vacation?", "22 vacation days [1]", "", vac)
	home := answer(t, env, thread, "remote?", "three remote days [1]", "", remote)
	cutoff := time.Now().Add(-90 * 24 * time.Hour)

	rep, err := env.Bot.Prune(ctx, cutoff)
	if err != nil || rep.Expired != 1 || rep.Redacted != 0 {
		t.Fatalf("first prune %+v, %v; want the old answer expired and nothing redacted", rep, err)
	}
	if copies(t, env, "archived handbook") != 0 {
		t.Error("the expired answer's text survived")
	}
	var ratings int
	if err := env.Pool.QueryRow(ctx, `SELECT count(*) FROM bot_feedback WHERE answer_id = $1`, old).Scan(&ratings); err != nil || ratings != 0 {
		t.Errorf("the expired answer's ratings: %d (%v)", ratings, err)
	}

	// The salary document is deleted; the vacation policy moves to a group outside the answers'
	// scope {everyone, hr}; the remote-work policy narrows to hr, which the scope still holds.
	if _, err := env.Index.DeleteDocuments(ctx, "test", []string{"salaries.md"}); err != nil {
		t.Fatal(err)
	}
	if err := env.Index.SetGroups(ctx, "test", "vacation.md", []string{"board"}); err != nil {
		t.Fatal(err)
	}
	if err := env.Index.SetGroups(ctx, "test", "remote.md", []string{"hr"}); err != nil {
		t.Fatal(err)
	}
	if rep, err = env.Bot.Prune(ctx, cutoff); err != nil || rep.Expired != 0 || rep.Redacted != 2 {
		t.Fatalf("second prune %+v, %v; want the salary and vacation answers redacted", rep, err)
	}
	for _, text := range []string{"5,440,000", "22 vacation days"} {
		if n := copies(t, env, text); n != 0 {
			t.Errorf("%q survives in %d answer or turn rows", text, n)
		}
	}
	if copies(t, env, "three remote days") == 0 {
		t.Error("an answer whose documents still reach its scope was redacted")
	}
	why := map[int64]string{}
	rows, err := env.Pool.Query(ctx, `SELECT id, redaction_reason FROM bot_answers WHERE id = ANY($1) AND (redacted_at IS NULL) = (redaction_reason = '')`, []int64{salary, vacation, home})
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var r string
		if err := rows.Scan(&id, &r); err != nil {
			t.Fatal(err)
		}
		why[id] = r
	}
	if why[salary] != "document_deleted" || why[vacation] != "access_narrowed" || why[home] != "" {
		t.Errorf("redaction reasons %v", why)
	}
	turns, err := env.Bot.RecentTurns(ctx, thread, rag.MustScope("everyone", "hr"), 20)
	if err != nil || len(turns) != 2 || turns[1].Text != "three remote days [1]" {
		t.Errorf("memory after pruning: %v (%v); want only the remote-work turns", texts(turns), err)
	}
	if _, err := env.Bot.LoadTrace(ctx, vacation, bot.Viewer{Conversation: thread, UserID: "UB", Scope: rag.MustScope("board", "everyone", "hr")}); !errors.Is(err, bot.ErrNotVisible) || errors.Is(err, bot.ErrWithdrawn) {
		t.Errorf("trace of an answer redacted by retention: %v, want ErrNotVisible (not withdrawn)", err)
	}
	if err := env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: salary, Conversation: thread, UserID: "U2", Rating: 1}); !errors.Is(err, bot.ErrNotVisible) {
		t.Errorf("feedback on an answer redacted by retention: %v, want ErrNotVisible", err)
	}
	// Retention leaves the chat messages as they are: no withdrawal notice to show.
	if pending, err := env.Bot.RedactUnreadable(ctx, thread.Platform, thread.Workspace, thread.Channel, nil); err != nil || len(pending) != 0 {
		t.Errorf("notices pending after retention's redactions: %+v (%v); want none", pending, err)
	}
	if rep, err = env.Bot.Prune(ctx, cutoff); err != nil || rep != (pgbot.PruneReport{}) {
		t.Errorf("third prune %+v, %v; want nothing left to do", rep, err)
	}
}
