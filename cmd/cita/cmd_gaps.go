package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/rag"
)

func init() {
	register("gaps", &command{
		summary: "what people asked that the documents did not answer, by topic and owner",
		usage: `Usage: cita gaps [--since 30d] [--source S] [--groups g1,g2] [--json]

Lists the knowledge gaps: questions cita declined ("I couldn't find this"), hedged, or whose
answer someone rated 👎, grouped by topic (the same need in either language, worded
differently) and by the owner and source of the nearest documents, most open first. Each topic
shows how often it was asked, when first and last, in which languages, a few of the questions
(e-mail addresses, phone numbers, mentions and names masked) and the nearest documents.

Only questions asked in public channels, and questions their askers chose to share with the
"Tell the document owners" button, are ever listed or counted: what was asked in a DM, a private
channel, an assistant thread, an ephemeral reply, the CLI or MCP stays its asker's. Documents
are named only when the --groups may read them (default: everyone), as in ` + "`cita ask`" + `.
Questions not grouped yet are grouped first (` + "`cita serve`" + ` does it every minute).

` + "`cita gaps tour`" + ` walks through the whole loop on a scratch copy of testdata/corpus, through
the real Slack adapter against a loopback Slack: a question declined in a public channel, the
report, a page added and synced, and the thread answered once (docs/gaps.md).

Flags:
`,
		run: runGaps,
	})
}

func runGaps(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "tour" {
		return runGapsTour(ctx, e, args[1:])
	}
	fs := newFlags("gaps", e, commands["gaps"].usage)
	since := fs.String("since", "30d", "questions asked since then: days (30d), a duration (72h), a date (2026-11-01), or all")
	source := fs.String("source", "", "only gaps whose nearest readable document is in this source")
	groups := fs.String("groups", "everyone", "comma-separated access groups of the report's reader: only documents they may read are named")
	asJSON := fs.Bool("json", false, "print one JSON object")
	limit := fs.Int("limit", 50, "at most this many topics")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	from, err := parseGapSince(*since, time.Now())
	if err != nil {
		return err
	}
	a, scope, err := openScoped(ctx, e, *groups)
	if err != nil {
		return err
	}
	defer a.Close()
	store := pgbot.New(a.pool)
	reader := rag.NewTopicReader(a.lexicon, a.translator.Translator)
	grouped, err := store.AssignGapTopics(ctx, reader.Signature, a.cfg.Gaps.TopicThreshold)
	if err != nil {
		return err
	}
	rep, err := store.GapReport(ctx, bot.GapQuery{Since: from, Source: *source, Reader: scope, Limit: *limit})
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(struct {
			Since   time.Time      `json:"since"`
			Grouped int            `json:"grouped_now"`
			Topics  []bot.GapTopic `json:"topics"`
		}{from, grouped, nonNilTopics(rep)})
	}
	printGaps(e.stdout, rep, from, scope)
	return nil
}

func nonNilTopics(t []bot.GapTopic) []bot.GapTopic {
	if t == nil {
		return []bot.GapTopic{}
	}
	return t
}

// parseGapSince reads --since: "all", a number of days ("30d"), or what parseSince reads.
func parseGapSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "all") {
		return time.Time{}, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 {
			return time.Time{}, fmt.Errorf("--since %q: give days (30d), a duration (72h), a date (2026-11-01) or all", s)
		}
		return now.AddDate(0, 0, -n), nil
	}
	return parseSince(s, now)
}

// printGaps writes the report for a person.
func printGaps(w io.Writer, rep []bot.GapTopic, since time.Time, reader rag.Scope) {
	when := "ever"
	if !since.IsZero() {
		when = "since " + since.Format(time.DateOnly)
	}
	questions, open := 0, 0
	for _, t := range rep {
		questions += t.Asked
		open += t.Open
	}
	fmt.Fprintf(w, "Knowledge gaps %s: %d topics, %d questions (%d open). Documents named are those %s may read.\n",
		when, len(rep), questions, open, strings.Join(reader.Groups(), ", "))
	if len(rep) == 0 {
		fmt.Fprintln(w, "Nothing asked in public channels or shared by its asker went unanswered.")
		return
	}
	for i, t := range rep {
		fmt.Fprintf(w, "\n%d. %s: asked %d× (%d open, %d resolved; %s), %s, first %s, last %s\n", i+1,
			strings.Join(t.Concepts, ", "), t.Asked, t.Open, t.Resolved, gapKinds(t), strings.Join(t.Langs, "/"),
			t.FirstAsked.Format(time.DateOnly), t.LastAsked.Format(time.DateOnly))
		owner := t.Owner
		if owner == "" {
			owner = "no owner among the documents shown"
		}
		source := t.Source
		if source == "" {
			source = "none"
		}
		fmt.Fprintf(w, "   owner: %s; source: %s\n", owner, source)
		for j, q := range t.Questions {
			label := "asked:"
			if j > 0 {
				label = "      "
			}
			fmt.Fprintf(w, "   %s %q\n", label, q)
		}
		for _, d := range t.Nearest {
			line := d.Title
			if d.URL != "" {
				line += " <" + d.URL + ">"
			}
			fmt.Fprintf(w, "   nearest: %s\n", line)
		}
	}
}

// gapKinds says how a topic's questions were gaps.
func gapKinds(t bot.GapTopic) string {
	var parts []string
	for _, k := range []struct {
		n    int
		what string
	}{{t.Declined, "declined"}, {t.Hedged, "hedged"}, {t.Downvoted, "rated 👎"}, {t.Shared, "shared by the asker"}} {
		if k.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k.n, k.what))
		}
	}
	return strings.Join(parts, ", ")
}
