package slack

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Slack's limits for one message.
const (
	maxSectionChars = 3000 // text of one section block
	maxBlocks       = 50   // blocks per message
	maxContextElems = 10   // elements of one context block
	maxFallback     = 3000 // the notification text; Slack truncates text at 40,000
)

// Action ids of the buttons under an answer; their value is the answer id.
const (
	actionHelpful    = "cita_helpful"
	actionNotHelpful = "cita_not_helpful"
	actionExplain    = "cita_explain"
	// actionFeedback is the feedback_buttons element; its values are feedbackUp or
	// feedbackDown followed by the answer id.
	actionFeedback = "cita_feedback"
	feedbackUp     = "up:"
	feedbackDown   = "down:"
)

// renderReply returns the blocks of a final reply and its notification text. Answers longer than
// one section are split at paragraph, line or sentence ends; past the block limit the text is cut
// with a note.
func renderReply(out bot.Outgoing) ([]slack.Block, string) {
	r := renderReplyWith(out, replyStyle{})
	return r.blocks(), r.fallback
}

// replyStyle says how what goes under a reply looks (see underAnswer).
type replyStyle struct {
	// feedbackButtons renders 👍/👎 as Slack's feedback_buttons element (in a context_actions
	// block, as in assistant threads) instead of two plain buttons.
	feedbackButtons bool
	// disclaimer is Options.Disclaimer: a line under every reply that cites passages.
	disclaimer string
	// shareGaps offers "Tell the document owners" where Outgoing.ShareGap says (Options.Gaps).
	shareGaps bool
}

// style is the adapter's reply style, with feedback_buttons or plain buttons.
func (a *Adapter) style(feedbackButtons bool) replyStyle {
	return replyStyle{feedbackButtons: feedbackButtons, disclaimer: a.opts.Disclaimer, shareGaps: a.opts.Gaps != nil}
}

// slackReply is a reply laid out for Slack: the blocks of its text, the blocks under it
// (underAnswer), and the notification text.
type slackReply struct {
	text, under []slack.Block
	fallback    string
}

// blocks is the whole message: the text, then what goes under it.
func (r slackReply) blocks() []slack.Block {
	return append(append(make([]slack.Block, 0, len(r.text)+len(r.under)), r.text...), r.under...)
}

// underAnswer returns every block shown under a reply's text, on every Slack path: a reply in a
// thread, a DM or an assistant thread written into its placeholder (reply.write), a /cita reply
// (renderReply), and a streamed reply, whose chat.stopStream carries exactly these blocks
// (finalStreamWrite in stream.go). Anything shown under an answer is added here and nowhere
// else, and is never cut: a long text gives way to it (renderReplyWith). By reply kind:
//   - an answer: its sources, the disclaimer when one is set (Options.Disclaimer), then 👍 /
//     👎 and "How I answered";
//   - a hedged reply: a warning line first (bot.HedgeNote), then as an answer;
//   - "I couldn't find this": 👍 / 👎 and "How I answered" (no sources);
//   - a reason: nothing;
//   - last, on a declined or hedged reply asked where not everyone could see it
//     (Outgoing.ShareGap), "Tell the document owners" and who will see the question.
func underAnswer(out bot.Outgoing, style replyStyle) []slack.Block {
	var under []slack.Block
	switch out.Kind() {
	case bot.ReplyHedged:
		under = append(under, hedgeBlock(out.Lang))
		fallthrough
	case bot.ReplyAnswer:
		if len(out.Sources) > 0 {
			under = append(under, sourcesBlock(out.Sources)...)
		}
	case bot.ReplyNotFound, bot.ReplyReason:
	}
	if style.disclaimer != "" && out.CitesPassages() {
		under = append(under, slack.NewContextBlock("cita_disclaimer",
			slack.NewTextBlockObject(slack.MarkdownType, truncate(escape(style.disclaimer), maxSectionChars), false, false)))
	}
	if out.AnswerID != 0 && out.FromPipeline() {
		if style.feedbackButtons {
			under = append(under, feedbackBlocks(out.AnswerID, out.Lang)...)
		} else {
			under = append(under, actionsBlock(out.AnswerID, out.Lang))
		}
	}
	if style.shareGaps && out.ShareGap && out.AnswerID != 0 {
		under = append(under, shareGapBlocks(out.AnswerID, out.Lang)...)
	}
	return under
}

// hedgeBlock is the warning under a hedged reply's text, as a context line.
func hedgeBlock(lang string) slack.Block {
	return slack.NewContextBlock("cita_hedged",
		slack.NewTextBlockObject(slack.MarkdownType, ":warning: "+escape(bot.HedgeNote(lang)), false, false))
}

// renderReplyWith is renderReply in style: the text split into sections, cut with a note when it
// would leave no room for what goes under it.
func renderReplyWith(out bot.Outgoing, style replyStyle) slackReply {
	under := underAnswer(out, style)
	parts := splitText(escape(out.Text), maxSectionChars)
	room := maxBlocks - len(under)
	if len(parts) > room {
		parts = parts[:room]
		last := parts[room-1]
		note := "\n… (cut: the answer is longer than one Slack message)"
		parts[room-1] = truncate(last, maxSectionChars-len(note)) + note
	}
	text := make([]slack.Block, 0, len(parts))
	for _, p := range parts {
		text = append(text, slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, p, false, false), nil, nil))
	}
	return slackReply{text: text, under: under, fallback: truncate(escape(out.Text), maxFallback)}
}

// sourcesBlock renders sources as context blocks of links: "[1] Title › Section · updated
// 2025-03-04", ten to a block.
func sourcesBlock(sources []rag.Source) []slack.Block {
	var blocks []slack.Block
	var elems []slack.MixedElement
	for _, s := range sources {
		label := s.Title
		if s.Section != "" {
			label += " › " + s.Section
		}
		if s.Locator != "" {
			label += " (" + s.Locator + ")"
		}
		label = escape(strings.NewReplacer("|", "¦", "\n", " ").Replace(label))
		if s.URL != "" {
			label = "<" + s.URL + "|" + label + ">"
		}
		text := fmt.Sprintf("[%d] %s", s.N, label)
		if !s.UpdatedAt.IsZero() {
			text += " · updated " + s.UpdatedAt.Format("2006-01-02")
		}
		elems = append(elems, slack.NewTextBlockObject(slack.MarkdownType, truncate(text, maxSectionChars), false, false))
		if len(elems) == maxContextElems {
			blocks = append(blocks, slack.NewContextBlock("", elems...))
			elems = nil
		}
	}
	if len(elems) > 0 {
		blocks = append(blocks, slack.NewContextBlock("", elems...))
	}
	return blocks
}

func actionsBlock(answerID int64, lang string) slack.Block {
	id := strconv.FormatInt(answerID, 10)
	explain := "How I answered"
	if lang == "es" {
		explain = "Cómo respondí"
	}
	return slack.NewActionBlock("cita_answer_"+id,
		slack.NewButtonBlockElement(actionHelpful, id, slack.NewTextBlockObject(slack.PlainTextType, "👍", true, false)),
		slack.NewButtonBlockElement(actionNotHelpful, id, slack.NewTextBlockObject(slack.PlainTextType, "👎", true, false)),
		slack.NewButtonBlockElement(actionExplain, id, slack.NewTextBlockObject(slack.PlainTextType, explain, false, false)),
	)
}

// feedbackBlocks are 👍/👎 as a feedback_buttons element (values "up:<id>", "down:<id>") and
// "How I answered" as a button.
func feedbackBlocks(answerID int64, lang string) []slack.Block {
	id := strconv.FormatInt(answerID, 10)
	explain := "How I answered"
	if lang == "es" {
		explain = "Cómo respondí"
	}
	feedback := slack.NewFeedbackButtonsBlockElement(actionFeedback,
		slack.NewFeedbackButton(slack.NewTextBlockObject(slack.PlainTextType, "👍", true, false), feedbackUp+id).WithAccessibilityLabel("Helpful"),
		slack.NewFeedbackButton(slack.NewTextBlockObject(slack.PlainTextType, "👎", true, false), feedbackDown+id).WithAccessibilityLabel("Not helpful"))
	return []slack.Block{
		slack.NewContextActionsBlock("cita_feedback_"+id, feedback),
		slack.NewActionBlock("cita_answer_"+id,
			slack.NewButtonBlockElement(actionExplain, id, slack.NewTextBlockObject(slack.PlainTextType, explain, false, false))),
	}
}

// escape makes text safe for mrkdwn: &, < and > become entities (Slack's rule).
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// splitText splits s into parts of at most n bytes, preferring paragraph ends, then line ends,
// then sentence ends, then spaces; a part never splits a rune or an entity like &amp;.
func splitText(s string, n int) []string {
	var parts []string
	for len(s) > n {
		cut := -1
		for _, sep := range []string{"\n\n", "\n", ". ", " "} {
			if i := strings.LastIndex(s[:n], sep); i > n/2 {
				cut = i + len(sep)
				break
			}
		}
		if cut < 0 {
			cut = n
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			if amp := strings.LastIndexByte(s[:cut], '&'); amp >= 0 && amp > cut-6 && !strings.Contains(s[amp:cut], ";") {
				cut = amp
			}
		}
		parts = append(parts, strings.TrimRight(s[:cut], " \n"))
		s = strings.TrimLeft(s[cut:], " \n")
	}
	if s != "" || len(parts) == 0 {
		parts = append(parts, s)
	}
	return parts
}
