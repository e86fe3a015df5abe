package discord

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

var layoutSources = []rag.Source{{N: 1, Hit: rag.Hit{Title: "Vacation policy", URL: "https://docs.example.com/vacation"}}}

// TestLayoutOfByKind: what each kind of reply shows, decided once for both layouts.
func TestLayoutOfByKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		out     bot.Outgoing
		hedged  bool
		sources bool
		buttons bool
	}{
		{"answer", bot.Outgoing{Text: "22 days [1].", Sources: layoutSources, AnswerID: 3}, false, true, true},
		{"hedged", bot.Outgoing{Text: "22 days [1].", Sources: layoutSources, AnswerID: 3, Hedged: true, Lang: "es"}, true, true, true},
		{"not found", bot.Outgoing{Text: "I couldn't find this.", Abstained: true, AnswerID: 3}, false, false, true},
		{"reason", bot.ReasonReply("salary?", bot.ReasonBusy), false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := layoutOf(tc.out, "", false, display{})
			flagged := len(l.after) == 1 && strings.Contains(l.after[0], "⚠️") && l.accent == hedgeColor
			if flagged != tc.hedged || (!tc.hedged && (len(l.after) != 0 || l.accent != accentColor)) {
				t.Errorf("after %q, accent %#x: hedged shown %v, want %v", l.after, l.accent, flagged, tc.hedged)
			}
			if tc.hedged && !strings.Contains(l.after[0], "No es una respuesta segura") {
				t.Errorf("the warning is not in the reply's language: %q", l.after[0])
			}
			if (len(l.sources) > 0) != tc.sources || (l.buttons() != nil) != tc.buttons {
				t.Errorf("sources %d, buttons %v; want sources %v, buttons %v", len(l.sources), l.buttons() != nil, tc.sources, tc.buttons)
			}
		})
	}
}

// TestLongHedgedReplyKeepsItsWarning: a hedged reply too long for Discord's messages is cut with
// a note, and the warning after the text is still shown, in the last message, after the note;
// every message stays within Discord's limit. Also when the text fills its messages exactly and
// the warning needs one more.
func TestLongHedgedReplyKeepsItsWarning(t *testing.T) {
	t.Parallel()
	para := strings.Repeat("Vacation days are counted in business days. ", 40) // 1,800 units
	for _, tc := range []struct {
		name  string
		text  string
		cut   bool
		parts int
	}{
		{"fits with the warning", "22 days [1].", false, 1},
		{"two messages, warning in the second", para + "\n\n" + para, false, 2},
		{"cut", strings.Repeat(para+"\n\n", 12), true, maxFollowUps + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := bot.Outgoing{Text: tc.text, Lang: "en", Sources: layoutSources, AnswerID: 3, Hedged: true}
			r := renderReply(out, "> q?\n", false, display{})
			if len(r.Parts) != tc.parts {
				t.Fatalf("%d messages, want %d", len(r.Parts), tc.parts)
			}
			for i, p := range r.Parts {
				if units(p) > maxContent {
					t.Fatalf("message %d of %d units", i, units(p))
				}
			}
			last := r.Parts[len(r.Parts)-1]
			warning := strings.Index(last, bot.HedgeNote("en"))
			if warning < 0 || !strings.HasSuffix(last, bot.HedgeNote("en")) {
				t.Fatalf("the warning is not at the end of the last message: …%q", last[max(0, len(last)-300):])
			}
			if note := strings.Index(last, "answer cut"); (note >= 0) != tc.cut || (tc.cut && note > warning) {
				t.Fatalf("cut note at %d, warning at %d; cut %v", note, warning, tc.cut)
			}
			if len(r.Embeds) != 1 || r.Embeds[0].Color != hedgeColor {
				t.Fatalf("sources embed %+v, want one in the hedge colour", r.Embeds)
			}
		})
	}
	// An answer that fills its last message exactly is unchanged by the layout: no empty part.
	plain := renderReply(bot.Outgoing{Text: strings.Repeat("x", maxContent), AnswerID: 3}, "", false, display{})
	if len(plain.Parts) != 1 || units(plain.Parts[0]) != maxContent {
		t.Fatalf("an answer of exactly one message became %d parts", len(plain.Parts))
	}
}

// TestHedgedReplyInComponentsV2: a hedged reply is laid out as V2 like an answer, with the amber
// accent and the warning as its own text display right after the answer's.
func TestHedgedReplyInComponentsV2(t *testing.T) {
	t.Parallel()
	out := bot.Outgoing{Text: "22 days [1].", Lang: "en", Sources: layoutSources, AnswerID: 3, Hedged: true}
	components, ok := layoutV2(out, "> q?\n", false, display{})
	if !ok {
		t.Fatal("a hedged reply with sources was not laid out as V2")
	}
	container, isContainer := components[0].(discordgo.Container)
	if !isContainer || container.AccentColor == nil || *container.AccentColor != hedgeColor {
		t.Fatalf("first component %#v, want a container in the hedge colour", components[0])
	}
	first, _ := container.Components[0].(discordgo.TextDisplay)
	second, _ := container.Components[1].(discordgo.TextDisplay)
	if first.Content != "> q?\n22 days [1]." || !strings.Contains(second.Content, bot.HedgeNote("en")) {
		t.Fatalf("text displays %q, %q: want the answer, then the warning", first.Content, second.Content)
	}
	raw, _ := json.Marshal(components)
	if !strings.Contains(string(raw), idExplain+"3") || !strings.Contains(string(raw), idVoteDown+"3") {
		t.Fatalf("a hedged reply lacks the buttons of an answer: %s", raw)
	}
	if messageText(&discordgo.Message{Components: components}) != first.Content {
		t.Fatal("the message's text (what follow-ups read) is not the answer's")
	}
}

// TestDisclaimerInBothLayouts: discord.disclaimer follows the text of every answer and hedged
// reply, in both layouts, escaped, and survives the long-answer cut; "I couldn't find this"
// and reasons carry none.
func TestDisclaimerInBothLayouts(t *testing.T) {
	t.Parallel()
	d := display{disclaimer: "Generated from *our* handbook: check the source."}
	const shown = `-# Generated from \*our\* handbook: check the source.`
	answer := bot.Outgoing{Text: "22 days [1].", Lang: "en", Sources: layoutSources, AnswerID: 3}
	hedged := answer
	hedged.Hedged = true
	long := answer
	long.Text = strings.Repeat(strings.Repeat("Vacation days are counted in business days. ", 40)+"\n\n", 12)
	for _, tc := range []struct {
		name string
		out  bot.Outgoing
		want bool
	}{
		{"answer", answer, true},
		{"hedged", hedged, true},
		{"long answer, cut", long, true},
		{"not found", bot.Outgoing{Text: "I couldn't find this.", Abstained: true, AnswerID: 3}, false},
		{"reason", bot.ReasonReply("salary?", bot.ReasonBusy), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := renderReply(tc.out, "> q?\n", false, d)
			last := r.Parts[len(r.Parts)-1]
			if got := strings.HasSuffix(last, shown); got != tc.want {
				t.Errorf("text layout shows the disclaimer last: %v, want %v: …%q", got, tc.want, last[max(0, len(last)-200):])
			}
			if strings.Count(strings.Join(r.Parts, ""), "Generated from") > 1 {
				t.Error("the disclaimer is shown twice")
			}
			components, v2 := layoutV2(tc.out, "> q?\n", false, d)
			if !v2 {
				return
			}
			raw, _ := json.Marshal(components)
			if got := strings.Contains(string(raw), "Generated from"); got != tc.want {
				t.Errorf("V2 layout shows the disclaimer: %v, want %v", got, tc.want)
			}
		})
	}
	if l := layoutOf(hedged, "", false, d); len(l.after) != 2 || !strings.Contains(l.after[0], "⚠️") || l.after[1] != shown {
		t.Errorf("hedged reply's lines after the text: %q, want the warning, then the disclaimer", l.after)
	}
}

// TestDisclaimerOnEveryDiscordPath: discord.disclaimer, through the adapter and the fake
// Discord, is under an /ask answer (Components V2) and a DM answer (text with a sources embed),
// never under "I couldn't find this"; it is display only: not in the answer's record nor in the
// answer cache, so another replica serving the cached answer shows its own disclaimer.
func TestDisclaimerOnEveryDiscordPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setupE2E(t)
	const disclaimer = "Generated from our handbook."
	a := e.replica(t, true, e.env.CachedPipeline(), func(o *Options) { o.Disclaimer, o.MessageContent = disclaimer, true })

	asked := a.interact(t, interaction{ID: "701", Token: "tok-701", Channel: chGeneral, User: userPlain, Question: vacationQ})
	raw, _ := json.Marshal(asked)
	if flags, _ := asked["flags"].(float64); int(flags)&int(discordgo.MessageFlagsIsComponentsV2) == 0 {
		t.Fatalf("setup: the /ask answer is not laid out as Components V2 (the test would not cover that layout): %s", raw)
	}
	if !strings.Contains(string(raw), "-# "+disclaimer) {
		t.Errorf("the /ask answer lacks the disclaimer: %s", raw)
	}
	notFound := a.interact(t, interaction{ID: "702", Token: "tok-702", Channel: chGeneral, User: userPlain, Question: "What is the parking policy in our Tokyo office?"})
	raw, _ = json.Marshal(notFound)
	if !strings.Contains(string(raw), "find this") || strings.Contains(string(raw), disclaimer) {
		t.Errorf("\"not found\" (want no disclaimer): %s", raw)
	}

	// A DM is answered with the text layout, as a reply to the asker's message.
	const dm = "660"
	dmAsk := func(id, question string) *discordgo.Message {
		t.Helper()
		before := len(e.fake.postedIn(dm))
		a.gw.dispatch("MESSAGE_CREATE", map[string]any{"id": id, "channel_id": dm,
			"author": map[string]any{"id": userPlain, "username": "plain"}, "content": question})
		waitFor(t, "the reply to DM "+id, func() bool { return len(e.fake.postedIn(dm)) > before })
		wait(a.a)
		return e.fake.postedIn(dm)[before]
	}
	dmAnswer := dmAsk("9701", "Can I work remotely?")
	if len(dmAnswer.Embeds) == 0 {
		t.Fatalf("setup: the DM answer has no sources embed (the text layout with sources): %+v", dmAnswer)
	}
	if !strings.HasSuffix(dmAnswer.Content, "-# "+disclaimer) {
		t.Errorf("the DM answer does not end with the disclaimer: %q", dmAnswer.Content)
	}
	if got := dmAsk("9702", "What is the parking policy in our Tokyo office?").Content; !strings.Contains(got, "find this") || strings.Contains(got, disclaimer) {
		t.Errorf("\"not found\" in a DM (want no disclaimer): %q", got)
	}

	// Display only.
	act, _ := parseCustomID(customIDs(asked)[0])
	rec, err := e.env.Bot.LoadAnswer(ctx, act.AnswerID)
	if err != nil || rec.Text == "" || strings.Contains(rec.Text, disclaimer) {
		t.Fatalf("the answer's record: %q, %v", rec.Text, err)
	}
	var cached int
	if err := e.env.Pool.QueryRow(ctx, `SELECT count(*) FROM answer_cache WHERE answer::text LIKE '%Generated from our handbook%'`).Scan(&cached); err != nil {
		t.Fatal(err)
	}
	if cached != 0 {
		t.Fatalf("%d cached answers hold the disclaimer", cached)
	}
	b := e.replica(t, false, e.env.CachedPipeline(), func(o *Options) { o.Disclaimer = "Another line." })
	again := b.interact(t, interaction{ID: "703", Token: "tok-703", Channel: chGeneral, User: userPlain, Question: vacationQ})
	act, _ = parseCustomID(customIDs(again)[0])
	if rec, err := e.env.Bot.LoadAnswer(ctx, act.AnswerID); err != nil || !rec.Cached {
		t.Fatalf("the repeated question was not answered from the cache (the test would prove nothing): %+v, %v", rec, err)
	}
	raw, _ = json.Marshal(again)
	if !strings.Contains(string(raw), "-# Another line.") || strings.Contains(string(raw), disclaimer) {
		t.Errorf("the cached answer's disclaimer: %s", raw)
	}
}
