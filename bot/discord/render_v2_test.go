package discord

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// countComponents counts every component of an encoded message, nested ones included, and the
// characters of its text displays, as Discord checks them.
func countComponents(t *testing.T, components []discordgo.MessageComponent) (n, text int) {
	t.Helper()
	raw, err := json.Marshal(components)
	if err != nil {
		t.Fatal(err)
	}
	var list []any
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	walkComponents(list, func(c map[string]any) {
		n++
		if c["type"] == 10.0 {
			text += units(c["content"].(string))
		}
	})
	return n, text
}

func TestLayoutV2StaysWithinDiscordsLimits(t *testing.T) {
	t.Parallel()
	sources := func(n int, url string) []rag.Source {
		var out []rag.Source
		for i := range n {
			out = append(out, rag.Source{N: i + 1, Hit: rag.Hit{Title: fmt.Sprintf("Doc %d", i), URL: url}})
		}
		return out
	}
	answer := func(text string, src []rag.Source) bot.Outgoing {
		return bot.Outgoing{Text: text, Lang: "en", Sources: src, AnswerID: 7}
	}
	for _, tc := range []struct {
		name    string
		out     bot.Outgoing
		ok      bool
		buttons int // link buttons
		more    bool
	}{
		{"answer", answer("22 days [1].", sources(2, "https://docs.example.com/a")), true, 2, false},
		{"many sources", answer("x [1].", sources(30, "https://docs.example.com/a")), true, maxV2Sources, true},
		{"no usable link", answer("x [1].", sources(2, "javascript:alert(1)")), true, 0, false},
		{"long answer falls back", answer(strings.Repeat("word ", 900), sources(1, "")), false, 0, false},
		{"abstention falls back", bot.Outgoing{Text: "I couldn't find this.", Abstained: true, AnswerID: 7}, false, 0, false},
		{"reason falls back", bot.Outgoing{Text: "Busy.", Reason: bot.ReasonBusy}, false, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			components, ok := layoutV2(tc.out, "> q?\n", true, display{})
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			n, text := countComponents(t, components)
			if n > maxV2Components || text > maxV2Text {
				t.Errorf("%d components, %d characters: over Discord's limits", n, text)
			}
			raw, _ := json.Marshal(components)
			if got := strings.Count(string(raw), `"style":5`); got != tc.buttons {
				t.Errorf("%d link buttons, want %d: %s", got, tc.buttons, raw)
			}
			if strings.Contains(string(raw), "more") != tc.more {
				t.Errorf("'… and N more' shown=%v, want %v", !tc.more, tc.more)
			}
			if !strings.Contains(string(raw), idVoteDown+"7") || !strings.Contains(string(raw), idThread+"7") {
				t.Errorf("buttons missing: %s", raw)
			}
		})
	}
}

func TestMessageTextReadsComponentsV2(t *testing.T) {
	t.Parallel()
	components, _ := layoutV2(bot.Outgoing{Text: "¿22 días? [1]", Lang: "es", AnswerID: 3,
		Sources: []rag.Source{{N: 1, Hit: rag.Hit{Title: "Vacaciones"}}}}, "> ¿Cuántos días?\n", false, display{})
	raw, _ := json.Marshal(map[string]any{"id": "1", "flags": discordgo.MessageFlagsIsComponentsV2, "components": components})
	var m discordgo.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if got := messageText(&m); !strings.HasPrefix(got, "> ¿Cuántos días?") {
		t.Errorf("messageText = %q", got)
	}
}
