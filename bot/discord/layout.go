package discord

import (
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Accent colours of a reply: the container of a Components V2 answer, or the sources embed.
const (
	accentColor = 0x5865F2 // an answer
	hedgeColor  = 0xF0B232 // a hedged reply: amber, with its warning line
)

// answerLayout is what one reply shows on Discord, decided once (layoutOf) for both of its
// layouts: Components V2 (layoutV2, render_v2.go) and text with a sources embed and follow-up
// messages (renderReply, render.go). Both lay out exactly these parts, so an addition made here
// appears in both.
type answerLayout struct {
	header string // the quoted question; may be empty
	text   string // the reply's text
	// after are lines shown right after the text (the hedge warning, ...). They are never cut:
	// a long text is cut before them (see rendered parts in renderReply).
	after   []string
	sources []rag.Source
	accent  int
	// answerID is the recorded answer the buttons act on; 0 for no buttons.
	answerID   int64
	withThread bool // the buttons include "Continue in thread"
	// shareLabel, when set, adds "Tell the document owners" (bot.Outgoing.ShareGap) to them.
	shareLabel string
}

// display is what the adapter's options add to replies (Options.Disclaimer).
type display struct {
	disclaimer string
	shareGaps  bool // Options.Gaps is set
}

// display is the adapter's display options.
func (a *Adapter) display() display {
	return display{disclaimer: a.opts.Disclaimer, shareGaps: a.opts.Gaps != nil}
}

// layoutOf decides what reply r shows under header, by kind (bot.ReplyKind):
//   - an answer: the text, the disclaimer when one is set (d), its sources, 👍 / 👎 / How I
//     answered (and Continue in thread);
//   - a hedged reply: as an answer, with a warning line after the text and an amber accent;
//   - "I couldn't find this": the text and the buttons, no sources;
//   - a reason: the text alone;
//   - and on a declined or hedged reply asked where not everyone could see it
//     (Outgoing.ShareGap), who will see a shared question and "Tell the document owners".
//
// Anything new shown with a reply on Discord (a line under every answer, say) is added here.
func layoutOf(r bot.Outgoing, header string, withThreadButton bool, d display) answerLayout {
	l := answerLayout{header: header, text: r.Text, accent: accentColor, withThread: withThreadButton}
	switch r.Kind() {
	case bot.ReplyHedged:
		l.accent = hedgeColor
		l.after = append(l.after, "-# ⚠️ "+bot.HedgeNote(r.Lang))
		l.sources = r.Sources
	case bot.ReplyAnswer:
		l.sources = r.Sources
	case bot.ReplyNotFound, bot.ReplyReason:
	}
	if d.disclaimer != "" && r.CitesPassages() {
		l.after = append(l.after, "-# "+escapeMarkdown(d.disclaimer))
	}
	if r.AnswerID != 0 && r.FromPipeline() {
		l.answerID = r.AnswerID
		if d.shareGaps && r.ShareGap {
			l.after = append(l.after, "-# "+escapeMarkdown(bot.ShareGapNote(r.Lang)))
			l.shareLabel = bot.ShareGapButton(r.Lang)
		}
	}
	return l
}

// buttons is the row under the reply, or nil.
func (l answerLayout) buttons() []discordgo.MessageComponent {
	if l.answerID == 0 {
		return nil
	}
	return answerButtons(strconv.FormatInt(l.answerID, 10), l.withThread, l.shareLabel)
}
