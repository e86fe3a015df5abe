package discord

import (
	"context"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// TestNoticeNamesNoDocumentALaterViewerMayNotRead: an hr answer stands in #hr; userPlain (no hr
// role) is let in, and in http mode no event tells cita; then the salary document changes. The
// source-change notice is a new message, never withdrawn, seen by userPlain now and by whoever
// is let in later: it must not name the hr document. Before, a notice named whatever the
// answer's scope (hr) could read. A document every member may read is named.
func TestNoticeNamesNoDocumentALaterViewerMayNotRead(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	ctx := context.Background()
	hr := e.ask(t, interaction{ID: "701", Token: "tok-701", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ})
	if !hrLeak(hr) {
		t.Fatal("setup: the hr channel did not get the hr answer")
	}
	vac := e.ask(t, interaction{ID: "702", Token: "tok-702", Channel: chGeneral, User: userPlain, Question: vacationQ})
	if !strings.Contains(sourcesOf(vac), "Vacation policy") {
		t.Fatalf("setup: the vacation answer in #general cites %q", sourcesOf(vac))
	}
	e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	})
	if _, err := e.env.Pool.Exec(ctx, `INSERT INTO source_changes (run_id, document_id, kind, doc_version, changed_at)
		SELECT 1, id, 'updated', nextval('document_versions'), now() FROM documents WHERE external_id IN ('salaries.md', 'vacation.md')`); err != nil {
		t.Fatal(err)
	}
	if _, err := bot.NewNotifier(e.env.Bot, map[string]bot.NoticePoster{"discord": e.adapter}, nil).Notify(ctx); err != nil {
		t.Fatal(err)
	}
	hrNotices := e.fake.postedIn(chHR)
	if len(hrNotices) != 1 || !strings.Contains(hrNotices[0].Content, "A document I cited") {
		t.Fatalf("posted %v in #hr, want one notice saying a cited document changed", hrNotices)
	}
	if strings.Contains(hrNotices[0].Content, "Salary bands") {
		t.Fatalf("the notice names the hr document to a viewer who may not read it: %q", hrNotices[0].Content)
	}
	if got := e.fake.postedIn(chGeneral); len(got) != 1 || !strings.Contains(got[0].Content, "Vacation policy") {
		t.Fatalf("posted %v in #general, want one notice naming Vacation policy (every member may read it)", got)
	}
}
