package discord

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
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
	editing := e.fake.slowNext("PATCH", "/api/v9/webhooks/1000/tok-651/messages/@original", 2*time.Second)
	a.gw.dispatch("INTERACTION_CREATE", json.RawMessage(in.JSON(t)))
	select { // the answer's edit is in flight, for 2 s
	case <-editing:
	case <-time.After(30 * time.Second):
		t.Fatal("the answer's edit never reached Discord")
	}
	a.gw.dispatch("CHANNEL_UPDATE", e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	}))
	waitFor(t, "the answer withdrawn", func() bool {
		var n int
		err := e.env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM bot_answers WHERE channel = $1 AND redacted_at IS NOT NULL`, chHR).Scan(&n)
		return err == nil && n > 0
	})
	wait(a.a) // the slow edit and every notice are done
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

// TestRefusedFinalEditsAreNeverSilent: when Discord refuses the edit that writes an answer, or a
// reason, into the deferred response, cita tries once more; when that is refused too, the asker
// gets a short error as a follow-up, without any document text, never "thinking…" alone (as
// bot/slack does when Slack refuses its final writes).
func TestRefusedFinalEditsAreNeverSilent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      interaction
		refuse  int  // how many edits of the response Discord refuses
		answers bool // whether the hr answer ends shown
	}{
		{name: "the second attempt is shown", refuse: 1, answers: true,
			in: interaction{ID: "691", Token: "tok-691", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}},
		{name: "every answer edit refused", refuse: 1 << 20,
			in: interaction{ID: "692", Token: "tok-692", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}},
		{name: "every reason edit refused", refuse: 1 << 20, // a DM from someone in no configured guild
			in: interaction{ID: "693", Token: "tok-693", Channel: "6930", User: "99", DM: true, Question: salaryQ}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setupE2E(t)
			edits := "/webhooks/1000/" + tc.in.Token + "/messages/@original"
			e.fake.failNext("PATCH", "/api/v9"+edits, tc.refuse)
			post(t, e.adapter, tc.in.JSON(t))
			wait(e.adapter)
			if n := len(e.fake.callsTo("PATCH", edits)); n != 2 {
				t.Fatalf("%d edits of the response; want the refused one and one more", n)
			}
			followUps := e.fake.callsTo("POST", "/webhooks/1000/"+tc.in.Token)
			if tc.answers {
				if shown := e.fake.shownIn(t, originalID(tc.in.ID)); !hrLeak(shown) || len(followUps) != 0 {
					t.Fatalf("the response shows %v, with %d follow-ups; want the answer, alone", shown, len(followUps))
				}
				return
			}
			if len(followUps) != 1 {
				t.Fatalf("%d follow-ups after every edit was refused; want one short error", len(followUps))
			}
			got := followUps[0].JSON(t)
			if !strings.Contains(textOf(got), bot.ReasonText("en", bot.ReasonInternalError)) || hrLeak(got) {
				t.Fatalf("follow-up %v; want the short error and no document text", got)
			}
		})
	}
}
