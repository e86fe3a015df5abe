package discord

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
)

// explainText is the "How I answered" view of a stored answer loaded for its viewer (LoadTrace):
// the query searched, the access groups it was limited to that the viewer holds, what each
// search arm found, and why it answered or abstained. It names only cited passages, which the
// viewer may read; the others appear as their ranks.
func explainText(rec *bot.AnswerRecord) string {
	var b strings.Builder
	b.WriteString("**How I answered**\n")
	fmt.Fprintf(&b, "Question: %s\n", escapeMarkdown(oneLine(rec.Question, 300)))
	if rec.StandaloneQuery != "" && rec.StandaloneQuery != rec.Question {
		fmt.Fprintf(&b, "Searched as: %s\n", escapeMarkdown(oneLine(rec.StandaloneQuery, 300)))
	}
	fmt.Fprintf(&b, "Limited to documents readable by: %s", strings.Join(rec.ScopeGroups, ", "))
	if rec.OtherGroups > 0 {
		fmt.Fprintf(&b, " (and %d more you are not in)", rec.OtherGroups)
	}
	b.WriteString("\n")
	switch {
	case rec.Reason != bot.ReasonNone:
		fmt.Fprintf(&b, "Not answered: %s\n", rec.Reason)
	case rec.Abstained:
		fmt.Fprintf(&b, "I did not answer from the documents (%s; evidence %.2f%s).\n", rec.AbstainReason, rec.Evidence, bot.BandText(rec))
	case rec.Hedged:
		fmt.Fprintf(&b, "Not sure: %s, so I gave the closest passages (%d cited source(s); evidence %.2f%s).\n",
			bot.HedgeWhy(rec.HedgeReason), len(rec.Sources), rec.Evidence, bot.BandText(rec))
	default:
		fmt.Fprintf(&b, "Answered from %d cited source(s); evidence %.2f%s.\n", len(rec.Sources), rec.Evidence, bot.BandText(rec))
	}
	if lines := bot.StepLines(rec.Steps); len(lines) > 0 {
		fmt.Fprintf(&b, "\n**Steps** (agent mode):\n%s\n", escapeMarkdown(strings.Join(lines, "\n")))
	}
	if len(rec.TopHits) > 0 {
		b.WriteString("\n**Best matches** (full-text rank / meaning rank):\n")
		for n, h := range rec.TopHits {
			name := "*a passage not cited*"
			if h.Cited {
				name = escapeMarkdown(oneLine(firstNonEmpty(h.Heading, h.Title, h.Path), 120))
			}
			fmt.Fprintf(&b, "%d. %s — %s / %s\n", n+1, name, rankText(h.FTSRank), rankText(h.VectorRank))
		}
	}
	if len(rec.Timings) > 0 {
		steps := make([]string, 0, len(rec.Timings))
		for step, d := range rec.Timings {
			steps = append(steps, fmt.Sprintf("%s %s", step, d.Round(time.Millisecond)))
		}
		sort.Strings(steps)
		fmt.Fprintf(&b, "\nTimings: %s; total %s", strings.Join(steps, ", "), rec.Total.Round(time.Millisecond))
		if rec.Model != "" {
			fmt.Fprintf(&b, "; model %s", rec.Model)
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String())
}

func rankText(rank int) string {
	if rank == 0 {
		return "–"
	}
	return fmt.Sprintf("#%d", rank)
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if units(s) > max {
		s = truncateUnits(s, max-1) + "…"
	}
	return s
}
