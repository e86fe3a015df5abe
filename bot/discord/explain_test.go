package discord

import (
	"strings"
	"testing"
)

// TestExplainOnlyForWhoMayReadTheAnswer is the regression test of issue 12, finding 9 on
// Discord: "How I answered" was shown to whoever clicked from the answer's conversation, whatever
// their roles, and named passages the answer did not cite.
func TestExplainOnlyForWhoMayReadTheAnswer(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	edit := e.ask(t, interaction{ID: "301", Token: "tok-301", Channel: chHR, User: userHR, Roles: []string{roleHR},
		Question: "What is the base salary of band B7?"})
	if !strings.Contains(sourcesOf(edit), "Salary bands") {
		t.Fatalf("the #hr answer does not cite the salary bands: %q", sourcesOf(edit))
	}
	ids := customIDs(edit)
	message := map[string]any{"id": originalID("301"), "channel_id": chHR, "content": textOf(edit), "flags": 0}

	reply := e.click(t, interaction{ID: "302", Token: "tok-302", Channel: chHR, User: userPlain, CustomID: ids[2], Message: message})
	if strings.Contains(reply, "How I answered") || strings.Contains(reply, "Salary") {
		t.Fatalf("a member who may not read the cited document saw the trace: %q", reply)
	}

	reply = e.click(t, interaction{ID: "303", Token: "tok-303", Channel: chHR, User: userHR, Roles: []string{roleHR}, CustomID: ids[2], Message: message})
	if !strings.Contains(reply, "How I answered") || !strings.Contains(reply, "Salary bands") {
		t.Fatalf("the HR member's trace %q: want it, naming the cited source", reply)
	}
	for _, uncited := range []string{"Vacation policy", "Remote work policy"} {
		if strings.Contains(reply, uncited) {
			t.Errorf("the trace names the uncited passage %q: %q", uncited, reply)
		}
	}
	if !strings.Contains(reply, "not cited") {
		t.Errorf("the trace does not list the uncited passages by rank: %q", reply)
	}
}

// TestExplainInADMUsesTheClickersOwnGroups is issue 22, item 9: "How I answered" in a DM with
// the bot took the default groups, not the groups the DM's answer was given with (the clicker's
// roles in the configured servers): the HR member could not see the trace of their own answer.
func TestExplainInADMUsesTheClickersOwnGroups(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	edit := e.ask(t, interaction{ID: "311", Token: "tok-311", Channel: "651", User: userHR, DM: true, Question: "What is the base salary of band B7?"})
	if !strings.Contains(sourcesOf(edit), "Salary bands") {
		t.Fatalf("setup: the DM answer does not cite the salary bands: %q", sourcesOf(edit))
	}
	message := map[string]any{"id": originalID("311"), "channel_id": "651", "content": textOf(edit), "flags": 0}
	reply := e.click(t, interaction{ID: "312", Token: "tok-312", Channel: "651", User: userHR, DM: true, CustomID: customIDs(edit)[2], Message: message})
	if !strings.Contains(reply, "How I answered") || !strings.Contains(reply, "Salary bands") {
		t.Fatalf("the HR member's trace of their own DM answer: %q, want it, naming the cited source", reply)
	}
}
