package discord

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

func TestSplitText(t *testing.T) {
	t.Parallel()
	para := strings.Repeat("word ", 300) // 1500 chars
	tests := []struct {
		name      string
		text      string
		limit     int
		wantParts int
	}{
		{"short", "Hello [1].", 2000, 1},
		{"two paragraphs over the limit", para + "\n\n" + para, 2000, 2},
		{"one long line", strings.Repeat("x", 4500), 2000, 3},
		{"emoji count double", strings.Repeat("😀", 1500), 2000, 2},
		{"citation at the cut", strings.Repeat("a", 1995) + " [12] tail", 2000, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parts := splitText(tt.text, tt.limit)
			if len(parts) != tt.wantParts {
				t.Fatalf("%d parts, want %d", len(parts), tt.wantParts)
			}
			var joined int
			for _, p := range parts {
				if units(p) > tt.limit {
					t.Errorf("part of %d units over %d", units(p), tt.limit)
				}
				if strings.Count(p, "[") != strings.Count(p, "]") {
					t.Errorf("a citation was split: %q…", p[max(0, len(p)-10):])
				}
				joined += len(strings.Join(strings.Fields(p), ""))
			}
			if joined != len(strings.Join(strings.Fields(tt.text), "")) {
				t.Error("text was lost or duplicated in the split")
			}
		})
	}
}

func TestSourcesEmbedStaysWithinLimits(t *testing.T) {
	t.Parallel()
	var sources []rag.Source
	for n := 1; n <= 60; n++ {
		sources = append(sources, rag.Source{N: n, Hit: rag.Hit{Title: strings.Repeat("T*", 150), Section: strings.Repeat("s", 300),
			URL: fmt.Sprintf("https://docs.example.com/%d_(x)", n), UpdatedAt: time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)}})
	}
	e := sourcesEmbed(sources, accentColor)
	if units(e.Description) > maxEmbedDescription || units(e.Title)+units(e.Description) > maxEmbedTotal {
		t.Fatalf("embed of %d units over the limits", units(e.Description))
	}
	if !strings.Contains(e.Description, "more") || !strings.HasPrefix(e.Description, "[1] [T\\*") {
		t.Errorf("embed should list sources with escaped titles and count the rest: %q…", e.Description[:80])
	}
	if !strings.Contains(e.Description, "(https://docs.example.com/1_(x%29)") {
		t.Error("a ) in a URL must be escaped so the link is not cut")
	}
}

func TestRenderReplyButtons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		out     bot.Outgoing
		thread  bool
		buttons int
	}{
		{"answer", bot.Outgoing{Text: "a [1]", AnswerID: 7}, false, 3},
		{"answer with thread button", bot.Outgoing{Text: "a [1]", AnswerID: 7}, true, 4},
		{"reason has no buttons", bot.Outgoing{Text: "slow down", Reason: bot.ReasonRateLimited}, true, 0},
		{"unrecorded answer has no buttons", bot.Outgoing{Text: "a"}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := renderReply(tt.out, "> q\n", tt.thread, display{})
			got := 0
			for _, id := range customIDs(map[string]any{"components": toJSONAny(t, r.Components)}) {
				if _, ok := parseCustomID(id); !ok {
					t.Errorf("custom id %q does not parse back", id)
				}
				got++
			}
			if got != tt.buttons {
				t.Errorf("%d buttons, want %d", got, tt.buttons)
			}
			if !strings.HasPrefix(r.Parts[0], "> q\n") {
				t.Errorf("first part %q lacks the header", r.Parts[0])
			}
		})
	}
}

func TestParseCustomID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		ok   bool
		kind string
		n    int64
	}{
		{"cita:up:12", true, "up", 12},
		{"cita:down:3", true, "down", 3},
		{"cita:how:99", true, "how", 99},
		{"cita:thread:5", true, "thread", 5},
		{"cita:up:", false, "", 0},
		{"cita:up:-1", false, "", 0},
		{"cita:up:012", false, "", 0},
		{"cita:up:1x", false, "", 0},
		{"other:up:1", false, "", 0},
	}
	for _, tt := range tests {
		got, ok := parseCustomID(tt.id)
		if ok != tt.ok || got.Kind != tt.kind || got.AnswerID != tt.n {
			t.Errorf("parseCustomID(%q) = %+v, %v", tt.id, got, ok)
		}
	}
}

func FuzzParseCustomID(f *testing.F) {
	for _, s := range []string{"cita:up:1", "cita:how:123456789", "cita:thread:", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		act, ok := parseCustomID(id)
		if !ok {
			return
		}
		if act.AnswerID <= 0 {
			t.Fatalf("%q parsed to answer %d", id, act.AnswerID)
		}
		back := answerButtons(fmt.Sprint(act.AnswerID), true, "")
		if back == nil {
			t.Fatal("no buttons")
		}
	})
}
