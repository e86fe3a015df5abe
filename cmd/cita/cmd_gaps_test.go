package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// `cita gaps` groups the public gap questions and lists them by topic, with only the documents
// --groups may read named; a DM's question appears nowhere, not even as a count.
func TestGapsCommandListsPublicGapsByTopic(t *testing.T) {
	ctx := context.Background()
	env := newFolderEnv(t, map[string]string{
		"office/guide.md": "# Office guide\n\nThe Lisbon office opens at 8:00. Visitors sign in at the front desk.\n",
		"hr/salaries.md":  "# Salary bands\n\nSalary band B7 has a base salary of 5,440,000 per month.\n",
	})
	cfg, cita, handler := env.cfg, env.cita, env.handler
	ask := func(channel, user, question string, public bool) bot.Outgoing {
		t.Helper()
		in := bot.Incoming{Conversation: bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: channel, Thread: "17.1"},
			UserID: user, Text: question, Scope: rag.MustScope("everyone"), Audience: bot.AudienceChannel, Public: public}
		if !public {
			in.Audience = bot.AudiencePrivate
		}
		out := handler.Handle(ctx, in, nil)
		if out.AnswerID == 0 || out.Kind() == bot.ReplyAnswer {
			t.Fatalf("%q: want a recorded gap, got %+v", question, out)
		}
		return out
	}
	ask("CPUB", "U1", "Is there a gym at the Lisbon office?", true)
	ask("CPUB", "U2", "Does the Lisbon office have a gym?", true)
	ask("DU3", "U3", "Is there a gym at the Lisbon office DMCANARY?", false)

	text := cita("gaps", "--since", "7d")
	for _, want := range []string{"1 topics, 2 questions (2 open)", "Is there a gym at the Lisbon office?", "Office guide", "source: share"} {
		if !strings.Contains(text, want) {
			t.Errorf("cita gaps does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "DMCANARY") {
		t.Errorf("cita gaps shows the DM's question:\n%s", text)
	}
	var rep struct {
		Grouped int            `json:"grouped_now"`
		Topics  []bot.GapTopic `json:"topics"`
	}
	if err := json.Unmarshal([]byte(cita("gaps", "--json", "--since", "all")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Grouped != 0 || len(rep.Topics) != 1 || rep.Topics[0].Asked != 2 || rep.Topics[0].Declined+rep.Topics[0].Hedged != 2 {
		t.Fatalf("cita gaps --json: %+v, want one topic of the 2 public questions, none grouped again", rep)
	}
	if got := cita("gaps", "--source", "elsewhere"); !strings.Contains(got, "0 topics") {
		t.Errorf("--source elsewhere listed:\n%s", got)
	}
	var stderr bytes.Buffer
	if code := run(ctx, []string{"--config", cfg, "gaps", "--since", "soon"}, &bytes.Buffer{}, &stderr); code == 0 || !strings.Contains(stderr.String(), "--since") {
		t.Errorf("--since soon: exit %d, %s", code, stderr.String())
	}
}

func TestParseGapSince(t *testing.T) {
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"30d": now.AddDate(0, 0, -30), "72h": now.Add(-72 * time.Hour), "2026-11-01": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), "all": {},
	} {
		got, err := parseGapSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseGapSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"0d", "-3d", "xd", "soon"} {
		if _, err := parseGapSince(bad, now); err == nil {
			t.Errorf("parseGapSince(%q) is no error", bad)
		}
	}
}
