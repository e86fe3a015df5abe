package discord

import (
	"fmt"
	"net/url"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
)

// Limits of a Components V2 message (Discord counts every component, nested ones included,
// and the characters of all its text displays together).
const (
	maxV2Components = 40
	maxV2Text       = 4000
	maxV2Sources    = 8   // sources shown as sections; the rest are counted in a line
	maxLinkURL      = 512 // a link button's URL
)

// layoutV2 lays a reply citing sources out as Components V2, the layout Discord's own apps use:
// a container (accented by kind) holding the question and the text (a text display), the lines
// after the text (the hedge warning, ...), a separator, and a sources section where each source
// is a section whose accessory is a link button to the document; under the container the row of
// 👍, 👎, How I answered (and Continue in thread). What it shows is layoutOf's, as for
// renderReply. ok is false when the reply cites no sources (not found, a reason), was not
// recorded, or does not fit Discord's limits (a long answer): the caller then lays it out with
// renderReply.
func layoutV2(r bot.Outgoing, header string, withThreadButton bool, d display) (components []discordgo.MessageComponent, ok bool) {
	l := layoutOf(r, header, withThreadButton, d)
	if len(l.sources) == 0 || l.answerID == 0 {
		return nil, false
	}
	return l.asV2()
}

// asV2 lays l out as Components V2; ok is false when it does not fit.
func (l answerLayout) asV2() (components []discordgo.MessageComponent, ok bool) {
	text := l.header + l.text
	inner := []discordgo.MessageComponent{discordgo.TextDisplay{Content: text}}
	textUnits := units(text)
	for _, line := range l.after {
		inner = append(inner, discordgo.TextDisplay{Content: line})
		textUnits += units(line)
	}
	inner = append(inner, discordgo.Separator{}, discordgo.TextDisplay{Content: "**Sources**"})
	textUnits += units("**Sources**")
	count := 1 + len(inner) // the container and what it holds
	for n, s := range l.sources {
		if n == maxV2Sources {
			more := fmt.Sprintf("… and %d more", len(l.sources)-n)
			inner = append(inner, discordgo.TextDisplay{Content: more})
			textUnits += units(more)
			count++
			break
		}
		plain := s
		plain.URL = "" // the link is the button; the line names the document
		line := sourceLine(plain)
		textUnits += units(line)
		if link, ok := linkURL(s.URL); ok {
			inner = append(inner, discordgo.Section{
				Components: []discordgo.MessageComponent{discordgo.TextDisplay{Content: line}},
				Accessory:  discordgo.Button{Label: "Open", Style: discordgo.LinkButton, URL: link},
			})
			count += 3
		} else {
			inner = append(inner, discordgo.TextDisplay{Content: line})
			count++
		}
	}
	accent := l.accent
	components = []discordgo.MessageComponent{discordgo.Container{AccentColor: &accent, Components: inner}}
	buttons := l.buttons()
	components = append(components, buttons...)
	for _, row := range buttons {
		count += 1 + len(row.(discordgo.ActionsRow).Components)
	}
	if count > maxV2Components || textUnits > maxV2Text {
		return nil, false
	}
	return components, true
}

// linkURL returns u when a link button may carry it: an absolute http(s) URL Discord accepts.
func linkURL(u string) (string, bool) {
	if u == "" || len(u) > maxLinkURL {
		return "", false
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return "", false
	}
	return u, true
}

// v2Edit is an edit of a message into Components V2: discordgo's WebhookEdit has no flags, and
// IS_COMPONENTS_V2 must be set on the edit that brings the components (content and embeds are
// left out: a V2 message has neither).
type v2Edit struct {
	Flags           discordgo.MessageFlags            `json:"flags"`
	Components      []discordgo.MessageComponent      `json:"components"`
	AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions,omitempty"`
}

// v2Flags are the flags of a V2 message, ephemeral or not (an edit keeps every flag set).
func v2Flags(ephemeral bool) discordgo.MessageFlags {
	f := discordgo.MessageFlagsIsComponentsV2
	if ephemeral {
		f |= discordgo.MessageFlagsEphemeral
	}
	return f
}

// messageText returns what a message says: its content, or for a Components V2 message the
// text of its first text display (an answer's quoted question and answer).
func messageText(m *discordgo.Message) string {
	if m == nil {
		return ""
	}
	if m.Content != "" {
		return m.Content
	}
	return firstText(m.Components)
}

func firstText(components []discordgo.MessageComponent) string {
	for _, c := range components {
		switch c := c.(type) {
		case discordgo.TextDisplay:
			return c.Content
		case *discordgo.TextDisplay:
			return c.Content
		case discordgo.Container:
			if s := firstText(c.Components); s != "" {
				return s
			}
		case *discordgo.Container:
			if s := firstText(c.Components); s != "" {
				return s
			}
		}
	}
	return ""
}
