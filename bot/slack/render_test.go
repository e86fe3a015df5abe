package slack

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestRenderReplyGolden(t *testing.T) {
	t.Parallel()
	out := bot.Outgoing{
		Text: "Every employee gets 22 vacation days per year [1]. Unused days carry over, up to five <days> & more [2].",
		Lang: "en", AnswerID: 42,
		Sources: []rag.Source{
			{N: 1, Hit: rag.Hit{Title: "Vacation policy", Section: "Allowance", URL: "https://docs.example.com/vacation", UpdatedAt: time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)}},
			{N: 2, Hit: rag.Hit{Title: "Carry|over > rules", Locator: "p. 4", UpdatedAt: time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)}},
		},
	}
	blocks, fallback := renderReply(out)
	got, err := json.MarshalIndent(map[string]any{"text": fallback, "blocks": blocks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/reply.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("rendered reply differs from %s (go test -update to accept):\n%s", golden, got)
	}
}

func TestRenderReplyStaysWithinSlackLimits(t *testing.T) {
	t.Parallel()
	para := strings.Repeat("Vacation días are counted in business days & never <weekends>. ", 40) + "\n\n"
	tests := []struct {
		name      string
		text      string
		sources   int
		wantCut   bool
		minBlocks int
	}{
		{"short", "22 days [1].", 1, false, 1},
		{"several sections", strings.Repeat(para, 4), 3, false, 4},
		{"longer than a message", strings.Repeat(para, 80), 12, true, 50},
		{"one unbroken word", strings.Repeat("ñ", 5000), 0, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := bot.Outgoing{Text: tt.text, AnswerID: 7}
			for i := range tt.sources {
				out.Sources = append(out.Sources, rag.Source{N: i + 1, Hit: rag.Hit{Title: "Doc", URL: "https://x"}})
			}
			blocks, fallback := renderReply(out)
			if len(blocks) > maxBlocks || len(blocks) < tt.minBlocks {
				t.Fatalf("%d blocks, want %d..%d", len(blocks), tt.minBlocks, maxBlocks)
			}
			raw, _ := json.Marshal(blocks)
			var decoded []struct {
				Type     string                 `json:"type"`
				Text     *struct{ Text string } `json:"text"`
				Elements []json.RawMessage      `json:"elements"`
			}
			if err := json.Unmarshal(raw, &decoded); err != nil {
				t.Fatal(err)
			}
			var joined strings.Builder
			for _, b := range decoded {
				if b.Type == "section" {
					if n := len(b.Text.Text); n > maxSectionChars || !utf8.ValidString(b.Text.Text) {
						t.Fatalf("section of %d bytes (valid UTF-8: %v)", n, utf8.ValidString(b.Text.Text))
					}
					if strings.ContainsAny(b.Text.Text, "<>") {
						t.Fatalf("unescaped < or > in %q", b.Text.Text[:40])
					}
					joined.WriteString(b.Text.Text)
				}
				if b.Type == "context" && len(b.Elements) > maxContextElems {
					t.Fatalf("context block with %d elements", len(b.Elements))
				}
			}
			if cut := strings.Contains(joined.String(), "cut: the answer is longer"); cut != tt.wantCut {
				t.Fatalf("cut note present = %v, want %v", cut, tt.wantCut)
			}
			if decoded[len(decoded)-1].Type != "actions" {
				t.Fatal("the buttons are not the last block")
			}
			if len(fallback) > maxFallback {
				t.Fatalf("fallback text of %d bytes", len(fallback))
			}
			if !tt.wantCut && strings.Join(strings.Fields(joined.String()), "") != strings.Join(strings.Fields(escape(tt.text)), "") {
				t.Fatal("splitting lost or changed text")
			}
		})
	}
}

func TestReasonRepliesHaveNoButtons(t *testing.T) {
	t.Parallel()
	blocks, _ := renderReply(bot.ReasonReply("salary?", bot.ReasonRateLimited))
	raw, _ := json.Marshal(blocks)
	if strings.Contains(string(raw), "cita_helpful") || !strings.Contains(string(raw), "faster than") {
		t.Fatalf("reason reply %s", raw)
	}
}

func FuzzSplitText(f *testing.F) {
	f.Add("a b c. d\n\ne", 4)
	f.Add(strings.Repeat("&amp;", 10), 7)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 8 || n > 5000 || !utf8.ValidString(s) {
			return
		}
		for _, p := range splitText(s, n) {
			if len(p) > n || !utf8.ValidString(p) {
				t.Fatalf("part of %d bytes > %d or invalid UTF-8", len(p), n)
			}
		}
	})
}

// TestUnderAnswerByKind: what goes under a reply's text, per kind, and that a text too long for
// one message is cut before it, never it.
func TestUnderAnswerByKind(t *testing.T) {
	t.Parallel()
	sources := []rag.Source{{N: 1, Hit: rag.Hit{Title: "Vacation policy", URL: "https://docs.example.com/vacation"}}}
	long := strings.Repeat("Vacation days are counted in business days. ", 3000)
	for _, tc := range []struct {
		name string
		out  bot.Outgoing
		want []string // block ids or types, in order
	}{
		{"answer", bot.Outgoing{Text: "22 days [1].", Sources: sources, AnswerID: 3}, []string{"context", "cita_answer_3"}},
		{"hedged", bot.Outgoing{Text: "Closest: 22 days [1].", Sources: sources, AnswerID: 3, Hedged: true}, []string{"cita_hedged", "context", "cita_answer_3"}},
		{"long hedged", bot.Outgoing{Text: long, Sources: sources, AnswerID: 3, Hedged: true}, []string{"cita_hedged", "context", "cita_answer_3"}},
		{"not found", bot.Outgoing{Text: "I couldn't find this.", AnswerID: 3, Abstained: true}, []string{"cita_answer_3"}},
		{"not found, sources kept by mistake", bot.Outgoing{Text: "I couldn't find this.", Sources: sources, AnswerID: 3, Abstained: true}, []string{"cita_answer_3"}},
		{"reason", bot.ReasonReply("salary?", bot.ReasonBusy), nil},
		{"unrecorded answer", bot.Outgoing{Text: "22 days [1].", Sources: sources}, []string{"context"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := renderReplyWith(tc.out, replyStyle{})
			raw, _ := json.Marshal(r.under)
			var decoded []struct {
				Type    string `json:"type"`
				BlockID string `json:"block_id"`
			}
			if err := json.Unmarshal(raw, &decoded); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range decoded {
				got = append(got, cmpOr(b.BlockID, b.Type))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("under the text: %v, want %v", got, tc.want)
			}
			all := r.blocks()
			if len(all) > maxBlocks {
				t.Fatalf("%d blocks", len(all))
			}
			if tail := all[len(all)-len(r.under):]; len(r.under) > 0 && tail[0] != r.under[0] {
				t.Fatal("the blocks under the text are not the message's last blocks")
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
