package slack

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

// renderExplain is the "how I answered" view of a record loaded for its viewer (LoadTrace): the
// standalone query, the groups searched that the viewer holds, why it abstained, the top hits
// with their rank in each arm (named only when cited), and the timings.
func renderExplain(rec *bot.AnswerRecord) ([]slack.Block, string) {
	var b strings.Builder
	fmt.Fprintf(&b, "*How I answered*\n*Searched for:* %s\n", escape(rec.StandaloneQuery))
	if rec.StandaloneQuery != rec.Question {
		fmt.Fprintf(&b, "_(rewritten from “%s” using the thread)_\n", escape(truncate(rec.Question, 300)))
	}
	fmt.Fprintf(&b, "*Access groups searched:* %s\n", escape(groupsText(rec)))
	switch {
	case rec.Reason != bot.ReasonNone:
		fmt.Fprintf(&b, "*Not answered:* %s\n", rec.Reason)
	case rec.Abstained:
		fmt.Fprintf(&b, "*Abstained:* %s (evidence %.2f%s)\n", abstainWhy(rec.AbstainReason), rec.Evidence, bot.BandText(rec))
	case rec.Hedged:
		fmt.Fprintf(&b, "*Not sure:* %s, so the reply gives the closest passages (evidence %.2f%s), %d cited source(s)\n",
			bot.HedgeWhy(rec.HedgeReason), rec.Evidence, bot.BandText(rec), len(rec.Sources))
	default:
		fmt.Fprintf(&b, "*Evidence:* %.2f%s, %d cited source(s)\n", rec.Evidence, bot.BandText(rec), len(rec.Sources))
	}
	if rec.Cached {
		b.WriteString("*From the answer cache:* this question was answered before under the same access groups, and every document it cites is unchanged, so no search ran this time; the passages below are the cited ones, ranked as in that first search.\n")
	}
	if lines := bot.StepLines(rec.Steps); len(lines) > 0 {
		fmt.Fprintf(&b, "*Steps (agent mode):*\n%s\n", escape(truncate(strings.Join(lines, "\n"), 1500)))
	}
	head := b.String()
	b.Reset()
	if len(rec.TopHits) == 0 {
		if len(rec.Sources) > 0 { // an older cached answer recorded without its passages
			b.WriteString("The cited sources are listed under the answer.")
		} else {
			b.WriteString("No passage matched.")
		}
	}
	for i, h := range rec.TopHits {
		if !h.Cited {
			fmt.Fprintf(&b, "%d. _a passage not cited_ — full text %s, vector %s\n", i+1, rank(h.FTSRank), rank(h.VectorRank))
			continue
		}
		fmt.Fprintf(&b, "%d. %s — full text %s, vector %s, score %.4f\n", i+1, escape(truncate(h.Heading, 200)),
			rank(h.FTSRank), rank(h.VectorRank), h.Score)
	}
	hits := b.String()
	blocks := []slack.Block{
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, truncate(head, maxSectionChars), false, false), nil, nil),
		slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, truncate("*Top passages:*\n"+hits, maxSectionChars), false, false), nil, nil),
	}
	if t := timings(rec); t != "" {
		blocks = append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, t, false, false)))
	}
	return blocks, truncate("How I answered: "+rec.StandaloneQuery, maxFallback)
}

// groupsText lists the answer's groups the viewer holds, and counts the others.
func groupsText(rec *bot.AnswerRecord) string {
	text := strings.Join(rec.ScopeGroups, ", ")
	if rec.OtherGroups > 0 {
		text += fmt.Sprintf(" (and %d more you are not in)", rec.OtherGroups)
	}
	return text
}

func abstainWhy(reason string) string {
	switch reason {
	case "no_results":
		return "no passage you may read matched"
	case "weak_evidence":
		return "the best passages did not answer the question well enough"
	case "no_valid_citation":
		return "the draft answer cited no valid source"
	}
	return reason
}

func rank(r int) string {
	if r == 0 {
		return "–"
	}
	return fmt.Sprintf("#%d", r)
}

func timings(rec *bot.AnswerRecord) string {
	stages := make([]string, 0, len(rec.Timings))
	for k := range rec.Timings {
		stages = append(stages, k)
	}
	sort.Strings(stages)
	var parts []string
	for _, k := range stages {
		parts = append(parts, fmt.Sprintf("%s %s", k, rec.Timings[k].Round(time.Millisecond)))
	}
	if rec.Total > 0 {
		parts = append(parts, fmt.Sprintf("total %s", rec.Total.Round(time.Millisecond)))
	}
	return strings.Join(parts, " · ")
}
