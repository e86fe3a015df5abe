package discord

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
)

// TestDownVoteAsksWhatWasWrong: a 👎 is recorded and answered with a button that opens a form;
// what the rater types is stored with their rating (what `cita feedback export` writes), and
// someone who did not rate the answer cannot attach a comment to it.
func TestDownVoteAsksWhatWasWrong(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	ctx := context.Background()
	edit := e.ask(t, interaction{ID: "401", Token: "tok-401", Channel: chGeneral, User: userPlain, Question: vacationQ})
	ids := customIDs(edit)
	message := map[string]any{"id": originalID("401"), "channel_id": chGeneral, "content": textOf(edit), "flags": 0}
	act, _ := parseCustomID(ids[1])

	w := post(t, e.adapter, interaction{ID: "402", Token: "tok-402", Channel: chGeneral, User: userPlain, CustomID: ids[1], Message: message}.JSON(t))
	if w.Code != 200 {
		t.Fatalf("👎 answered %d", w.Code)
	}
	wait(e.adapter)
	thanks := e.fake.callsTo("PATCH", "/webhooks/1000/tok-402/messages/@original")
	if len(thanks) != 1 {
		t.Fatalf("%d replies to the 👎", len(thanks))
	}
	why := customIDs(thanks[0].JSON(t))
	if len(why) != 1 || why[0] != idWhy+ids[1][len(idVoteDown):] {
		t.Fatalf("the 👎's reply carries buttons %v, want the form's", why)
	}

	w = post(t, e.adapter, interaction{ID: "403", Token: "tok-403", Channel: chGeneral, User: userPlain, CustomID: why[0],
		Message: map[string]any{"id": "403000", "channel_id": chGeneral, "content": "Thanks", "flags": 64}}.JSON(t))
	var form struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data struct {
			CustomID string `json:"custom_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &form); err != nil || form.Type != discordgo.InteractionResponseModal ||
		form.Data.CustomID != idNote+ids[1][len(idVoteDown):] || !strings.Contains(w.Body.String(), `"custom_id":"`+noteInput+`"`) {
		t.Fatalf("the button answered %s (%v), want the form", w.Body, err)
	}

	submit := func(id, user, text string) string {
		t.Helper()
		var m map[string]any
		_ = json.Unmarshal(interaction{ID: id, Token: "tok-" + id, Channel: chGeneral, User: user}.JSON(t), &m)
		m["type"] = 5
		m["data"] = map[string]any{"custom_id": form.Data.CustomID, "components": []any{map[string]any{"type": 1,
			"components": []any{map[string]any{"type": 4, "custom_id": noteInput, "value": text}}}}}
		body, _ := json.Marshal(m)
		post(t, e.adapter, body)
		wait(e.adapter)
		edits := e.fake.callsTo("PATCH", "/webhooks/1000/tok-"+id+"/messages/@original")
		if len(edits) != 1 {
			t.Fatalf("%d replies to the form", len(edits))
		}
		return textOf(edits[0].JSON(t))
	}
	if got := submit("404", userPlain, "  It is 25 days since January.  "); !strings.Contains(got, "Thanks") {
		t.Errorf("form reply %q", got)
	}
	if got := submit("405", userHR, "I never rated it."); !strings.Contains(got, "first") {
		t.Errorf("a comment without a rating was answered %q", got)
	}
	var comments []string
	rows, err := e.env.Pool.Query(ctx, `SELECT comment FROM bot_feedback WHERE answer_id = $1 ORDER BY user_id`, act.AnswerID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		_ = rows.Scan(&c)
		comments = append(comments, c)
	}
	if len(comments) != 1 || comments[0] != "It is 25 days since January." {
		t.Errorf("stored comments %q, want the rater's only", comments)
	}
}

// TestRefusedDownVoteReplyIsNeverSilent: the 👎's reply (thanks, with the button to say what
// was wrong) is a final edit like any other (finalEdit): when Discord refuses it, cita tries
// once more; when that is refused too, the clicker gets the generic error as an ephemeral
// follow-up, never "thinking…" alone.
func TestRefusedDownVoteReplyIsNeverSilent(t *testing.T) {
	t.Parallel()
	for i, tc := range []struct {
		name    string
		refuse  int
		answers bool // whether the thanks ends shown
	}{
		{name: "the second attempt is shown", refuse: 1, answers: true},
		{name: "every edit refused", refuse: 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setupE2E(t)
			askID, clickID := []string{"411", "421"}[i], []string{"412", "422"}[i]
			edit := e.ask(t, interaction{ID: askID, Token: "tok-" + askID, Channel: chGeneral, User: userPlain, Question: vacationQ})
			ids := customIDs(edit)
			message := map[string]any{"id": originalID(askID), "channel_id": chGeneral, "content": textOf(edit), "flags": 0}
			edits := "/webhooks/1000/tok-" + clickID + "/messages/@original"
			e.fake.failNext("PATCH", "/api/v9"+edits, tc.refuse)
			post(t, e.adapter, interaction{ID: clickID, Token: "tok-" + clickID, Channel: chGeneral, User: userPlain, CustomID: ids[1], Message: message}.JSON(t))
			wait(e.adapter)
			if n := len(e.fake.callsTo("PATCH", edits)); n != 2 {
				t.Fatalf("%d edits of the 👎's reply; want the refused one and one more", n)
			}
			followUps := e.fake.callsTo("POST", "/webhooks/1000/tok-"+clickID)
			if tc.answers {
				if len(followUps) != 0 {
					t.Fatalf("%d follow-ups after the thanks was shown; want none", len(followUps))
				}
				return
			}
			if len(followUps) != 1 {
				t.Fatalf("%d follow-ups after every edit was refused; want one short error", len(followUps))
			}
			got := followUps[0].JSON(t)
			if !strings.Contains(textOf(got), bot.ReasonText("en", bot.ReasonInternalError)) {
				t.Fatalf("follow-up %v; want the short error", got)
			}
			if flags, _ := got["flags"].(float64); int(flags)&int(discordgo.MessageFlagsEphemeral) == 0 {
				t.Fatalf("follow-up %v; want it ephemeral", got)
			}
		})
	}
}
