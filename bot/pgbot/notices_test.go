package pgbot_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/bot/pgbot"
)

// recordChange writes a change as a sync pass does (syncrun records them with its run).
func recordChange(t *testing.T, env *bottest.Env, run, doc int64, kind string) {
	t.Helper()
	var version *int64
	if kind == bot.SourceUpdated {
		v := int64(1 << 40) // newer than every version an answer cited
		version = &v
	}
	_, err := env.Pool.Exec(context.Background(), `INSERT INTO source_changes (run_id, document_id, kind, doc_version, changed_at)
		VALUES ($1, $2, $3, $4, $5)`, run, doc, kind, version, time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
}

func conv(thread string) bot.ConversationKey {
	return bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: thread}
}

// TestSourceNoticesFollowTheAudienceRule: a notice names a changed document only while the
// answer's audience may read it, skips ephemeral and withdrawn answers, is claimed once, and a
// later change of the same document is not reported again in a thread already told of it.
func TestSourceNoticesFollowTheAudienceRule(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, sal, remote := docID(t, env, "vacation.md"), docID(t, env, "salaries.md"), docID(t, env, "remote.md")
	answer(t, env, conv("narrowed"), "q", "a", "", vac)
	answer(t, env, conv("ephemeral"), "q", "a", "U1", vac)
	withdrawn := answer(t, env, conv("withdrawn"), "q", "a", "", vac)
	answer(t, env, conv("readable"), "q", "a", "", sal, remote)
	answer(t, env, bot.ConversationKey{Platform: "discord", Workspace: "G", Channel: "1", Thread: "2"}, "q", "a", "", sal)
	if _, err := env.Pool.Exec(ctx, `UPDATE bot_answers SET redacted_at = now(), redaction_reason = 'audience_widened' WHERE id = $1`, withdrawn); err != nil {
		t.Fatal(err)
	}
	// The vacation policy is now for finance only: the threads that cited it may not read it.
	if _, err := env.Pool.Exec(ctx, `UPDATE documents SET groups = '{finance}' WHERE id = $1`, vac); err != nil {
		t.Fatal(err)
	}
	recordChange(t, env, 1, vac, bot.SourceUpdated)
	recordChange(t, env, 1, sal, bot.SourceUpdated)
	recordChange(t, env, 1, remote, bot.SourceDeleted)

	notices, err := env.Bot.ClaimSourceNotices(ctx, []string{"slack"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bot.SourceNotice{}
	for _, n := range notices {
		if n.Conversation.Platform != "slack" {
			t.Errorf("notice for %+v, a platform not asked for", n.Conversation)
		}
		got[n.Conversation.Thread] = n
	}
	if len(got) != 2 {
		t.Fatalf("notices for %v, want the threads narrowed and readable only", got)
	}
	if n := got["narrowed"]; len(n.Changes) != 1 || n.Changes[0].Title != "" || n.Changes[0].DocumentID != vac {
		t.Errorf("narrowed thread's notice %+v names a document its audience may no longer read", n)
	}
	if n := got["readable"]; len(n.Changes) != 2 || n.Changes[0].Title != "t" || n.Changes[1].Title != "t" {
		t.Errorf("readable thread's notice %+v, want both documents named", n)
	}
	for _, n := range notices {
		if err := env.Bot.SourceNoticeDone(ctx, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	if again, err := env.Bot.ClaimSourceNotices(ctx, []string{"slack"}); err != nil || len(again) != 0 {
		t.Fatalf("claimed again: %+v, %v", again, err)
	}
	recordChange(t, env, 2, sal, bot.SourceUpdated)
	if later, err := env.Bot.ClaimSourceNotices(ctx, []string{"slack"}); err != nil || len(later) != 0 {
		t.Fatalf("a thread already told of the document heard of it again: %+v, %v", later, err)
	}
	var posted int
	if err := env.Pool.QueryRow(ctx, `SELECT count(*) FROM bot_source_notices WHERE posted_at IS NOT NULL`).Scan(&posted); err != nil || posted != 2 {
		t.Fatalf("%d notices recorded as posted (%v), want 2", posted, err)
	}
}

// TestSourceNoticesAreClaimedOnceAcrossReplicas: replicas claiming at the same time get each
// notice once between them.
func TestSourceNoticesAreClaimedOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, remote := docID(t, env, "vacation.md"), docID(t, env, "remote.md")
	for _, th := range []string{"a", "b", "c"} {
		answer(t, env, conv(th), "q", "a", "", vac, remote)
	}
	recordChange(t, env, 7, vac, bot.SourceUpdated)
	recordChange(t, env, 7, remote, bot.SourceDeleted)
	replicas := []*pgbot.Store{pgbot.New(env.Pool), pgbot.New(env.Pool), pgbot.New(env.Pool)}
	got := make([][]bot.SourceNotice, len(replicas))
	errs := make([]error, len(replicas))
	var wg sync.WaitGroup
	for i, r := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = r.ClaimSourceNotices(ctx, []string{"slack"})
		}()
	}
	wg.Wait()
	threads := map[string]int{}
	for i := range replicas {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for _, n := range got[i] {
			threads[n.Conversation.Thread]++
			if len(n.Changes) != 2 {
				t.Errorf("notice in %s lists %d documents, want both", n.Conversation.Thread, len(n.Changes))
			}
		}
	}
	if len(threads) != 3 || threads["a"] != 1 || threads["b"] != 1 || threads["c"] != 1 {
		t.Fatalf("notices per thread %v, want one each in a, b and c", threads)
	}
}
