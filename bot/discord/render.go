package discord

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Discord's message and embed limits, counted in UTF-16 code units as Discord counts them.
const (
	maxContent          = 2000
	maxEmbedTitle       = 256
	maxEmbedDescription = 4096
	maxEmbedTotal       = 6000
	maxFollowUps        = 4 // parts after the first; longer answers are cut with a note
)

// rendered is one answer laid out for Discord: the text parts (the first edits the deferred
// response, the others are follow-ups), the sources embed and the buttons of the last part.
type rendered struct {
	Parts      []string
	Embeds     []*discordgo.MessageEmbed
	Components []discordgo.MessageComponent
}

// renderReply lays a reply out below header (the quoted question; may be empty) as text, a
// sources embed and buttons: the layout of every reply that is not Components V2 (see
// layoutOf for what it shows). withThreadButton adds "Continue in thread". A text longer than
// maxFollowUps+1 messages is cut with a note, before the lines that follow it (the hedge
// warning, ...), which are always shown.
func renderReply(r bot.Outgoing, header string, withThreadButton bool, d display) rendered {
	return layoutOf(r, header, withThreadButton, d).asText()
}

// asText lays l out as text parts, a sources embed and buttons.
func (l answerLayout) asText() rendered {
	tail := ""
	if len(l.after) > 0 {
		tail = "\n\n" + strings.Join(l.after, "\n")
	}
	parts := splitText(l.text, maxContent-units(l.header))
	parts[0] = l.header + parts[0]
	const note = "\n… (answer cut; open the sources below)"
	switch last := len(parts) - 1; {
	case last <= maxFollowUps && units(parts[last])+units(tail) <= maxContent:
		parts[last] += tail
	case last < maxFollowUps:
		parts = append(parts, strings.TrimPrefix(tail, "\n\n"))
	default: // cut: the last part kept ends with the note, then the lines after the text
		parts = parts[:maxFollowUps+1]
		parts[maxFollowUps] = truncateUnits(parts[maxFollowUps], maxContent-units(note)-units(tail)) + note + tail
	}
	out := rendered{Parts: parts, Components: l.buttons()}
	if len(l.sources) > 0 {
		out.Embeds = []*discordgo.MessageEmbed{sourcesEmbed(l.sources, l.accent)}
	}
	return out
}

// sourcesEmbed lists the cited sources as links with their section and update date, within the
// embed limits; sources that do not fit are counted in a last line.
func sourcesEmbed(sources []rag.Source, color int) *discordgo.MessageEmbed {
	title := "Sources"
	var b strings.Builder
	budget := min(maxEmbedDescription, maxEmbedTotal-units(title))
	for i, s := range sources {
		line := sourceLine(s)
		more := fmt.Sprintf("… and %d more", len(sources)-i)
		if units(b.String())+units(line)+1 > budget-units(more)-1 {
			b.WriteString(more)
			break
		}
		b.WriteString(line)
		b.WriteString("\n")
	}
	return &discordgo.MessageEmbed{Title: title, Description: strings.TrimRight(b.String(), "\n"), Color: color}
}

// sourceLine is "[n] [Title](url) › Section · p. 4 · updated 2025-01-02".
func sourceLine(s rag.Source) string {
	title := escapeMarkdown(truncateUnits(firstNonEmpty(s.Title, s.Path, "untitled"), 200))
	if s.URL != "" && (strings.HasPrefix(s.URL, "https://") || strings.HasPrefix(s.URL, "http://")) {
		title = "[" + title + "](" + strings.ReplaceAll(s.URL, ")", "%29") + ")"
	} else {
		title = "**" + title + "**"
	}
	parts := []string{fmt.Sprintf("[%d] %s", s.N, title)}
	if s.Section != "" {
		parts[0] += " › " + escapeMarkdown(truncateUnits(s.Section, 200))
	}
	if s.Locator != "" {
		parts = append(parts, s.Locator)
	}
	if !s.UpdatedAt.IsZero() {
		parts = append(parts, "updated "+s.UpdatedAt.Format("2006-01-02"))
	}
	return strings.Join(parts, " · ")
}

// Custom ids of the answer buttons: a prefix and the answer id (at most 100 characters).
const (
	idVoteUp   = "cita:up:"
	idVoteDown = "cita:down:"
	idExplain  = "cita:how:"
	idThread   = "cita:thread:"
	idShare    = "cita:share:"
)

// answerButtons is the row under an answer: 👍, 👎, How I answered, and optionally Continue in
// thread and, labelled share, Tell the document owners.
func answerButtons(answerID string, withThread bool, share string) []discordgo.MessageComponent {
	row := discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Emoji: &discordgo.ComponentEmoji{Name: "👍"}, Style: discordgo.SecondaryButton, CustomID: idVoteUp + answerID},
		discordgo.Button{Emoji: &discordgo.ComponentEmoji{Name: "👎"}, Style: discordgo.SecondaryButton, CustomID: idVoteDown + answerID},
		discordgo.Button{Label: "How I answered", Style: discordgo.SecondaryButton, CustomID: idExplain + answerID},
	}}
	if withThread {
		row.Components = append(row.Components, discordgo.Button{Label: "Continue in thread", Style: discordgo.PrimaryButton, CustomID: idThread + answerID})
	}
	if share != "" {
		row.Components = append(row.Components, discordgo.Button{Label: share, Style: discordgo.SecondaryButton, CustomID: idShare + answerID})
	}
	return []discordgo.MessageComponent{row}
}

// buttonAction is a parsed custom id.
type buttonAction struct {
	Kind     string // "up", "down", "how", "thread", "share", "why" (open the 👎 form), "note" (the form sent)
	AnswerID int64
}

// parseCustomID reads a button's custom id; ok is false for ids cita did not make.
func parseCustomID(id string) (buttonAction, bool) {
	for _, p := range []string{idVoteUp, idVoteDown, idExplain, idThread, idShare, idWhy, idNote} {
		if rest, found := strings.CutPrefix(id, p); found && len(id) <= 100 {
			n, err := strconv.ParseInt(rest, 10, 64)
			if err != nil || n <= 0 || strconv.FormatInt(n, 10) != rest {
				return buttonAction{}, false
			}
			return buttonAction{Kind: strings.TrimSuffix(strings.TrimPrefix(p, "cita:"), ":"), AnswerID: n}, true
		}
	}
	return buttonAction{}, false
}

// splitText cuts text into parts of at most limit UTF-16 units, preferring paragraph, line,
// sentence and word boundaries, never splitting a citation like [12].
func splitText(text string, limit int) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return []string{""}
	}
	var parts []string
	for units(text) > limit {
		head := truncateUnits(text, limit)
		cut := -1
		for _, sep := range []string{"\n\n", "\n", ". ", " "} {
			if i := strings.LastIndex(head, sep); i > len(head)/3 {
				cut = i + len(sep)
				break
			}
		}
		if cut < 0 {
			cut = len(head)
		}
		if open := strings.LastIndex(text[:cut], "["); open > 0 && !strings.Contains(text[open:cut], "]") {
			cut = open // keep "[12]" whole
		}
		parts = append(parts, strings.TrimSpace(text[:cut]))
		text = strings.TrimSpace(text[cut:])
	}
	return append(parts, text)
}

// units is the length of s in UTF-16 code units.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// truncateUnits returns the longest prefix of s of at most n UTF-16 units, on a rune boundary.
func truncateUnits(s string, n int) string {
	count := 0
	for i, r := range s {
		count += utf16.RuneLen(r)
		if count > n {
			return s[:i]
		}
	}
	return s
}

// escapeMarkdown keeps document titles from being read as Discord markdown or links.
func escapeMarkdown(s string) string {
	return strings.NewReplacer("*", "\\*", "_", "\\_", "`", "\\`", "~", "\\~", "|", "\\|", "[", "(", "]", ")", ">", "\\>").Replace(s)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// noMentions keeps answers from pinging anyone, whatever a document says (@everyone, <@id>).
var noMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
