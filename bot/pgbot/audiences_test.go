package pgbot_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

func TestAudienceVersionsAreSharedAndCounted(t *testing.T) {
	t.Parallel()
	env := bottest.New(t, []bottest.Doc{}...)
	ctx := context.Background()
	users, roles, ch := bot.SubjectUsers, bot.SubjectRoles, bot.ChannelSubject("C1")
	st, err := env.Bot.AudienceStates(ctx, "slack", "T1", users, roles, ch)
	if err != nil || len(st) != 3 || st[0].Version != 0 || st[2].Readers != nil {
		t.Fatalf("before any change: %+v, %v; want three zero states", st, err)
	}
	var wg sync.WaitGroup
	for range 16 { // sixteen replicas hearing of changes at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := env.Bot.BumpAudience(ctx, "slack", "T1", users); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := env.Bot.BumpAudience(ctx, "slack", "T1", roles, ch); err != nil {
		t.Fatal(err)
	}
	st, _ = env.Bot.AudienceStates(ctx, "slack", "T1", ch, users, roles)
	if st[0].Version != 1 || st[1].Version != 16 || st[2].Version != 1 {
		t.Fatalf("states %+v, want channel 1, users 16, roles 1", st)
	}
	other, _ := env.Bot.AudienceStates(ctx, "slack", "T2", users)
	discord, _ := env.Bot.AudienceStates(ctx, "discord", "T1", users)
	if other[0].Version != 0 || discord[0].Version != 0 {
		t.Fatalf("another workspace or platform saw the change: %+v %+v", other, discord)
	}
}

func TestRecordReadersBumpsOnlyOnAChange(t *testing.T) {
	t.Parallel()
	env := bottest.New(t, []bottest.Doc{}...)
	ctx := context.Background()
	hrOnly := []rag.Scope{rag.MustScope("everyone", "hr")}
	mixed := []rag.Scope{rag.MustScope("everyone", "hr"), rag.MustScope("everyone")}
	// Every replica sees the same new readers at once: one change.
	changes := countConcurrent(t, 8, func() (bool, error) {
		changed, _, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", hrOnly, 0)
		return changed, err
	})
	if changes != 1 {
		t.Fatalf("%d replicas saw a change, want 1", changes)
	}
	if changed, v, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", hrOnly, 1); err != nil || changed || v != 1 {
		t.Fatalf("same readers again: changed=%v version=%d err=%v; want unchanged at 1", changed, v, err)
	}
	if changed, v, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", mixed, 1); err != nil || !changed || v != 2 {
		t.Fatalf("a new reader: changed=%v version=%d err=%v; want changed at 2", changed, v, err)
	}
	// Recorded readers are not settled until their withdrawals succeeded: checks still see the
	// readers settled before (none here), and withdraw again.
	st, _ := env.Bot.AudienceStates(ctx, "slack", "T1", bot.ChannelSubject("C1"))
	if st[0].Version != 2 || st[0].Readers != nil || string(st[0].Recorded) != string(bot.ReadersFingerprint(mixed)) {
		t.Fatalf("state %+v, want version 2, the mixed readers recorded and none settled", st[0])
	}
	if err := env.Bot.ReadersSettled(ctx, "slack", "T1", "C1", bot.ReadersFingerprint(mixed)); err != nil {
		t.Fatal(err)
	}
	st, _ = env.Bot.AudienceStates(ctx, "slack", "T1", bot.ChannelSubject("C1"))
	if st[0].Version != 2 || string(st[0].Readers) != string(bot.ReadersFingerprint(mixed)) {
		t.Fatalf("state %+v after settling, want version 2 and the mixed readers", st[0])
	}
	if err := env.Bot.ReadersSettled(ctx, "slack", "T1", "C1", []byte("short")); err == nil {
		t.Fatal("a malformed fingerprint was stored")
	}
}

// TestReadersReadBeforeAChangeAreRefused: readers looked up before another replica recorded a
// joiner (AddReader) or a doubt (MarkDoubt) must not replace them; looked up after, they do,
// and end the doubt.
func TestReadersReadBeforeAChangeAreRefused(t *testing.T) {
	t.Parallel()
	env := bottest.New(t, []bottest.Doc{}...)
	ctx := context.Background()
	hrOnly := []rag.Scope{rag.MustScope("everyone", "hr")}
	if _, v, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", hrOnly, 0); err != nil || v != 1 {
		t.Fatalf("first readers: version %d, %v", v, err)
	}
	// A guest joins (replica B) while replica A still reads the old member list.
	v, err := env.Bot.AddReader(ctx, "slack", "T1", "C1", "UGUEST", rag.Scope{})
	if err != nil || v != 2 {
		t.Fatalf("add reader: version %d, %v", v, err)
	}
	stale := []rag.Scope{rag.MustScope("everyone", "hr"), rag.MustScope("everyone")}
	if _, _, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", stale, 1); !errors.Is(err, bot.ErrReadersMoved) {
		t.Fatalf("readers read before the join replaced it: %v", err)
	}
	joiners, err := env.Bot.ChannelJoiners(ctx, "slack", "T1", "C1", bot.JoinerTTL)
	if err != nil || len(joiners) != 1 || joiners[0].UserID != "UGUEST" || time.Since(joiners[0].Joined) > time.Minute {
		t.Fatalf("joiners %v, %v; want [UGUEST]", joiners, err)
	}
	if joiners, _ := env.Bot.ChannelJoiners(ctx, "slack", "T1", "C1", 0); len(joiners) != 0 {
		t.Fatalf("joiners older than the ttl still count: %v", joiners)
	}
	withGuest := append(stale, rag.Scope{})
	if changed, v, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", withGuest, 2); err != nil || !changed || v != 3 {
		t.Fatalf("readers read after the join: changed=%v version=%d err=%v; want changed at 3", changed, v, err)
	}
	// A permission change being read: readers read before it are refused, and the same readers
	// read after it end the doubt without a new version.
	if err := env.Bot.MarkDoubt(ctx, "slack", "T1", "C1"); err != nil {
		t.Fatal(err)
	}
	st, _ := env.Bot.AudienceStates(ctx, "slack", "T1", bot.ChannelSubject("C1"))
	if !st[0].Doubt || st[0].Version != 4 {
		t.Fatalf("state %+v, want in doubt at version 4", st[0])
	}
	if _, _, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", withGuest, 3); !errors.Is(err, bot.ErrReadersMoved) {
		t.Fatalf("readers read before the doubt ended it: %v", err)
	}
	if changed, v, err := env.Bot.RecordReaders(ctx, "slack", "T1", "C1", withGuest, 4); err != nil || changed || v != 4 {
		t.Fatalf("same readers read after the doubt: changed=%v version=%d err=%v; want unchanged at 4", changed, v, err)
	}
	if st, _ := env.Bot.AudienceStates(ctx, "slack", "T1", bot.ChannelSubject("C1")); st[0].Doubt {
		t.Fatal("the doubt outlived readers read after it")
	}
}

func TestReadersFingerprintIgnoresOrderAndRepeats(t *testing.T) {
	t.Parallel()
	a := bot.ReadersFingerprint([]rag.Scope{rag.MustScope("hr", "everyone"), rag.MustScope("everyone"), rag.MustScope("everyone")})
	b := bot.ReadersFingerprint([]rag.Scope{rag.MustScope("everyone"), rag.MustScope("everyone", "hr")})
	c := bot.ReadersFingerprint([]rag.Scope{rag.MustScope("everyone:hr")})
	d := bot.ReadersFingerprint([]rag.Scope{rag.MustScope("everyone"), {}})
	e := bot.ReadersFingerprint([]rag.Scope{rag.MustScope("everyone")})
	if string(a) != string(b) {
		t.Fatal("order or repeats changed the fingerprint")
	}
	if string(a) == string(c) || string(d) == string(e) {
		t.Fatal("different readers share a fingerprint (a group whose name joins two, or a reader with no group)")
	}
}

func TestRedactUnreadableWithdrawsOnlyWhatANewReaderMayNotRead(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac, sal := docID(t, env, "vacation.md"), docID(t, env, "salaries.md")
	hr := answer(t, env, thread, "band B7?", "5,440,000", "", sal)
	both := answer(t, env, thread, "both?", "22 days and 5,440,000", "", vac, sal)
	everyone := answer(t, env, thread, "vacation?", "22 days", "", vac)
	ephemeral := answer(t, env, thread, "band B7 privately?", "5,440,000", "UHR", sal)
	elsewhere := answer(t, env, bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C2", Thread: "1"}, "band?", "5,440,000", "", sal)
	if err := env.Bot.SetReplyRef(ctx, hr, "1700000100.000001"); err != nil {
		t.Fatal(err)
	}
	readers := []rag.Scope{rag.MustScope("everyone", "hr"), rag.MustScope("everyone")}

	got, err := env.Bot.RedactUnreadable(ctx, "slack", "T1", "C1", readers)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].AnswerID != hr || got[1].AnswerID != both || got[0].ReplyRef != "1700000100.000001" ||
		got[0].Conversation != thread || got[0].Lang != "en" {
		t.Fatalf("withdrawn %+v, want the two answers citing salaries.md (%d, %d) with their message and thread", got, hr, both)
	}
	// Not shown yet: the next check returns them again, until the notice is recorded.
	if again, _ := env.Bot.RedactUnreadable(ctx, "slack", "T1", "C1", readers); len(again) != 2 {
		t.Fatalf("pending notices: %+v", again)
	}
	if red, ok, err := env.Bot.PendingRedaction(ctx, hr); err != nil || !ok || red.ReplyRef != "1700000100.000001" || red.Conversation != thread {
		t.Fatalf("pending notice of answer %d: %+v, %v, %v", hr, red, ok, err)
	}
	if _, ok, err := env.Bot.PendingRedaction(ctx, everyone); err != nil || ok {
		t.Fatalf("an answer standing has a pending notice (%v)", err)
	}
	for _, r := range got {
		if err := env.Bot.RedactionShown(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if again, _ := env.Bot.RedactUnreadable(ctx, "slack", "T1", "C1", readers); len(again) != 0 {
		t.Fatalf("after the notices were shown: %+v", again)
	}
	for _, id := range []int64{everyone, ephemeral, elsewhere} {
		if rec, _ := env.Bot.LoadAnswer(ctx, id); !rec.RedactedAt.IsZero() {
			t.Fatalf("answer %d (%q, visible to %q) was withdrawn", id, rec.Question, rec.VisibleTo)
		}
	}
	// A withdrawal redacts as retention does: the same fields, every copy of document text gone.
	rec, err := env.Bot.LoadAnswer(ctx, hr)
	if err != nil || rec.RedactedAt.IsZero() || rec.Redaction != bot.RedactionAudience || rec.Text != "" || len(rec.Sources) != 0 || rec.Question != "band B7?" {
		t.Fatalf("withdrawn answer loads as %+v (%v); want RedactedAt, reason %q, no text or sources, the question kept", rec, err, bot.RedactionAudience)
	}
	viewer := bot.Viewer{Conversation: thread, UserID: "UHR", Scope: rag.MustScope("everyone", "hr")}
	if _, err := env.Bot.LoadTrace(ctx, hr, viewer); !errors.Is(err, bot.ErrWithdrawn) {
		t.Fatalf("trace of a withdrawn answer from its conversation: %v, want ErrWithdrawn", err)
	}
	viewer.Conversation.Thread = "elsewhere"
	if _, err := env.Bot.LoadTrace(ctx, hr, viewer); !errors.Is(err, bot.ErrNotVisible) || errors.Is(err, bot.ErrWithdrawn) {
		t.Fatalf("trace of a withdrawn answer from another conversation: %v, want ErrNotVisible only", err)
	}
	if err := env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: hr, Conversation: thread, UserID: "UHR", Rating: 1}); !errors.Is(err, bot.ErrNotVisible) {
		t.Fatalf("feedback on a withdrawn answer: %v, want ErrNotVisible", err)
	}
	if ok, err := env.Bot.HasTurns(ctx, thread); err != nil || !ok {
		t.Fatalf("after a withdrawal the thread is no longer one the bot answered in (%v): its follow-ups would need a mention", err)
	}
	if red, ok, err := env.Bot.PendingRedaction(ctx, hr); err != nil || ok {
		t.Fatalf("notice of answer %d is shown, yet pending: %+v, %v, %v", hr, red, ok, err)
	}
	turns, _ := env.Bot.RecentTurns(ctx, thread, rag.MustScope("everyone", "hr"), 20)
	if g := texts(turns); len(g) != 2 || g[0] != "user:vacation?" {
		t.Fatalf("memory after the withdrawal, for an hr scope: %v; want only the vacation exchange", g)
	}
	// A reader with no group reads nothing: every answer built on documents goes.
	got, _ = env.Bot.RedactUnreadable(ctx, "slack", "T1", "C1", []rag.Scope{rag.MustScope("everyone"), {}})
	if len(got) != 1 || got[0].AnswerID != everyone {
		t.Fatalf("with a reader of no group: %+v, want the vacation answer %d", got, everyone)
	}
}

// BenchmarkAudienceStates is the check every question makes: three subjects, one query.
func BenchmarkAudienceStates(b *testing.B) {
	env := bottest.New(b, []bottest.Doc{}...)
	ctx := context.Background()
	if err := env.Bot.BumpAudience(ctx, "slack", "T1", bot.SubjectUsers, bot.SubjectRoles, bot.ChannelSubject("C1")); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := env.Bot.AudienceStates(ctx, "slack", "T1", bot.SubjectUsers, bot.SubjectRoles, bot.ChannelSubject("C1")); err != nil {
			b.Fatal(err)
		}
	}
}

func TestChannelsWithAnswersListsOnlyStandingSharedAnswers(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	sal := docID(t, env, "salaries.md")
	in := func(ch string) bot.ConversationKey {
		return bot.ConversationKey{Platform: "discord", Workspace: "G1", Channel: ch, Thread: "1"}
	}
	answer(t, env, in("C2"), "band?", "5,440,000", "", sal)
	answer(t, env, in("C1"), "band?", "5,440,000", "", sal)
	answer(t, env, in("C1"), "band again?", "5,440,000", "", sal)
	answer(t, env, in("C3"), "band privately?", "5,440,000", "U1", sal) // ephemeral
	answer(t, env, in("C4"), "band?", "5,440,000", "", sal)
	answer(t, env, bot.ConversationKey{Platform: "discord", Workspace: "G2", Channel: "C5", Thread: "1"}, "band?", "5,440,000", "", sal)
	answer(t, env, bot.ConversationKey{Platform: "slack", Workspace: "G1", Channel: "C6", Thread: "1"}, "band?", "5,440,000", "", sal)
	if _, err := env.Bot.RedactUnreadable(ctx, "discord", "G1", "C4", []rag.Scope{rag.MustScope("everyone")}); err != nil {
		t.Fatal(err)
	}
	got, err := env.Bot.ChannelsWithAnswers(ctx, "discord", "G1")
	if err != nil || strings.Join(got, ",") != "C1,C2" {
		t.Fatalf("channels with answers %v (%v), want C1,C2: not the ephemeral one, the withdrawn one, another guild or platform", got, err)
	}
}
