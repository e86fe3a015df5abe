package slack_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
)

// changeSalaries records, as a sync pass would, that the hr-only salary document changed: the
// threads whose answers cited it are owed a source-change notice.
func (b *bundle) changeSalaries(t *testing.T) {
	t.Helper()
	_, err := b.env.Pool.Exec(context.Background(), `INSERT INTO source_changes (run_id, document_id, kind, doc_version, changed_at)
		SELECT 1, id, 'updated', version + 1, now() FROM documents WHERE external_id = 'salaries.md'`)
	if err != nil {
		t.Fatal(err)
	}
}

// notices posts the source-change notices owed through this replica and returns the texts
// posted in channel.
func (b *bundle) notices(t *testing.T, channel string) []string {
	t.Helper()
	before := len(b.fake.callsTo("chat.postMessage"))
	n := bot.NewNotifier(b.env.Bot, map[string]bot.NoticePoster{"slack": b.adapter}, nil)
	if _, err := n.Notify(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range b.fake.callsTo("chat.postMessage")[before:] {
		if c.Form["channel"] == channel && strings.Contains(c.Form["text"], "ask again") {
			out = append(out, c.Form["text"])
		}
	}
	return out
}

// TestNoticeInAChannelNamesNoDocument: an hr answer stands in CHR; U1 (not hr) joins and the
// event is lost, so nothing withdrew it yet; then the salary document changes. The notice is a
// new message, never withdrawn, read by U1 now (and by whoever joins later): it must not name
// the hr document. Before, a notice named whatever the answer's scope (hr, when it was given)
// could read.
func TestNoticeInAChannelNamesNoDocument(t *testing.T) {
	t.Parallel()
	a := setup(t)
	if got := a.mention(t, "EvN1", "CHR", "UHR", salaryQuestion).Form["blocks"]; !hrLeak(got) {
		t.Fatalf("setup: the hr channel did not get the hr answer:\n%s", got)
	}
	a.join(t, "", "CHR", "U1", []string{"UHR", "U1", "UBOT"}, true)
	a.changeSalaries(t)
	got := a.notices(t, "CHR")
	if len(got) != 1 || !strings.Contains(got[0], "A document I cited") {
		t.Fatalf("posted %q in CHR, want one notice saying a cited document changed", got)
	}
	if hrLeak(got[0]) {
		t.Fatalf("the notice names the hr document to a reader who may not read it: %q", got[0])
	}
}

// TestNoticeInADirectMessageNamesWhatItsReaderMayRead: a direct message has one reader, for
// good: the notice there names the changed document they may read.
func TestNoticeInADirectMessageNamesWhatItsReaderMayRead(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.fake.im("DHR", "UHR")
	if got := a.dm(t, "EvN2", "DHR", "UHR", salaryQuestion).Form["blocks"]; !hrLeak(got) {
		t.Fatalf("setup: the hr member's DM did not get the hr answer:\n%s", got)
	}
	a.changeSalaries(t)
	if got := a.notices(t, "DHR"); len(got) != 1 || !strings.Contains(got[0], "Salary bands") {
		t.Fatalf("posted %q in the DM, want one notice naming Salary bands", got)
	}
}
