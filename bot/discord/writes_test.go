package discord

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// TestWithdrawalDuringASlowAnswerEditStays is item 1 of issue 22 on Discord: the edit that
// writes an hr answer into the deferred response takes 2 s; a viewer who may not read it is let
// into the channel meanwhile, and the answer is withdrawn. The slow edit must not leave the
// answer showing over the notice.
func TestWithdrawalDuringASlowAnswerEditStays(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, true, nil, nil)
	in := interaction{ID: "651", Token: "tok-651", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}
	e.fake.slowNext("PATCH", "/api/v9/webhooks/1000/tok-651/messages/@original", 2*time.Second)
	start := time.Now()
	a.gw.dispatch("INTERACTION_CREATE", json.RawMessage(in.JSON(t)))
	waitFor(t, "the answer recorded", func() bool {
		var n int
		err := e.env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM bot_answers WHERE channel = $1`, chHR).Scan(&n)
		return err == nil && n > 0
	})
	time.Sleep(200 * time.Millisecond) // the answer's edit is in flight
	a.gw.dispatch("CHANNEL_UPDATE", e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	}))
	time.Sleep(time.Until(start.Add(3 * time.Second)))
	wait(a.a)
	if edits := e.fake.callsTo("PATCH", "/webhooks/1000/tok-651/messages/@original"); len(edits) == 0 || !hrLeak(edits[0].JSON(t)) {
		t.Fatal("the slow edit did not write the hr answer (the test would prove nothing)")
	}
	shown := e.fake.shownIn(t, originalID("651"))
	if shown == nil || hrLeak(shown) || !isNotice(shown, "direct message") {
		t.Fatalf("the withdrawn answer's message shows, once every write is done: %v", shown)
	}
	var pending int
	if err := e.env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM bot_answers
		WHERE channel = $1 AND redacted_at IS NOT NULL AND NOT redaction_shown`, chHR).Scan(&pending); err != nil || pending != 0 {
		t.Fatalf("%d withdrawn answers still pending (%v)", pending, err)
	}
}
