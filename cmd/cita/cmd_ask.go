package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/citahq/cita/rag"
)

func init() {
	register("ask", &command{
		summary: "answer a question from the indexed documents",
		usage: `Usage: cita ask [--groups g1,g2] [--history TURN]... [--json] [--explain] [--no-cache] "question"

Answers from the documents the given access groups may read (default: everyone), citing every
claim as [n] with numbered sources. When the documents do not cover the question it says so
instead of guessing. --history gives earlier turns of the conversation (oldest first) so that a
follow-up like "and for staging?" is understood. --explain prints the retrieval trace: each arm's
ranks and scores, the fused order and what the context budget dropped; its terms and statistics
come only from the documents the groups may read, so it tells nothing about the others. --json
prints one JSON object. A question asked before under the same groups is answered from the answer cache while
the documents it cited are unchanged; --no-cache answers afresh and stores nothing.

Flags:
`,
		run: runAsk,
	})
}

func runAsk(ctx context.Context, e *env, args []string) error {
	fs := newFlags("ask", e, commands["ask"].usage)
	groups := fs.String("groups", "everyone", "comma-separated access groups of the asker")
	asJSON := fs.Bool("json", false, "print one JSON object")
	explain := fs.Bool("explain", false, "print the retrieval trace")
	noCache := fs.Bool("no-cache", false, "neither read nor write the answer cache")
	var history multiFlag
	fs.Var(&history, "history", "an earlier user turn of the conversation (repeatable, oldest first)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if question == "" {
		return fmt.Errorf("give a question, e.g. cita ask \"how many vacation days do I get?\"")
	}
	a, scope, err := openScoped(ctx, e, *groups)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.useReplicas(ctx, e); err != nil {
		return err
	}
	if *noCache {
		off := false
		a.cfg.Cache.Enabled = &off
	}
	p, err := a.pipeline(ctx, e)
	if err != nil {
		return err
	}
	q := rag.Question{Text: question, Scope: scope}
	for _, h := range history {
		q.History = append(q.History, rag.Turn{Role: "user", Text: h})
	}
	ans, err := p.Answer(ctx, q, nil)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeAnswerJSON(e.stdout, ans, *explain)
	}
	writeAnswerText(e.stdout, ans)
	if *explain {
		writeExplain(e.stdout, ans)
	}
	return nil
}

func writeAnswerText(w io.Writer, ans *rag.Answer) {
	fmt.Fprintln(w, ans.Text)
	if len(ans.Sources) == 0 {
		return
	}
	fmt.Fprintln(w, "\nSources:")
	for _, s := range ans.Sources {
		where := s.Path
		if s.URL != "" {
			where = s.URL
		}
		fmt.Fprintf(w, "[%d] %s — %s (updated %s)\n", s.N, s.Label(), where, s.UpdatedAt.Format("2006-01-02"))
	}
}

func writeExplain(w io.Writer, ans *rag.Answer) {
	fmt.Fprintf(w, "\n--- how I answered ---\nstandalone query: %s\n", ans.StandaloneQuery)
	if ans.Cached {
		fmt.Fprintf(w, "served from the answer cache in %s (the cited documents are unchanged)\n", ans.Timings["cache"].Round(10_000))
	}
	expect := string(ans.Expect.Kind)
	if ans.Expect.Unit != "" {
		expect += " (" + ans.Expect.Unit + ")"
	}
	fmt.Fprintf(w, "the question asks for: %s\n", expect)
	fmt.Fprintf(w, "reply: %s\n", replyKindText(ans))
	if a := ans.Answerability; ans.Threshold > 0 {
		fmt.Fprintf(w, "answerability: the direct answer says %.0f%% of what the question is about where it stands; holds the kind of answer asked: %s; one passage holds every word: %s\n",
			100*a.Local, yesNo(a.KindOK), yesNo(a.Whole))
		if a.Key != "" {
			fmt.Fprintf(w, "key word: %q, said where the direct answer stands: %s\n", a.Key, yesNo(a.KeyLocal))
		}
	}
	if len(ans.UnknownWords) > 0 {
		fmt.Fprintf(w, "words no document you may read uses: %s\n", strings.Join(ans.UnknownWords, ", "))
	}
	if len(ans.UnknownNames) > 0 {
		fmt.Fprintf(w, "names no source mentions: %s\n", strings.Join(ans.UnknownNames, ", "))
	}
	if ans.Search != nil && len(ans.Search.Trace.Bridges) > 0 {
		fmt.Fprintf(w, "bridges searched: %s\n", bridgesText(ans.Search.Trace.Bridges))
	}
	if ans.ModelFallback != "" {
		fmt.Fprintf(w, "answered without the model: %s\n", ans.ModelFallback)
	}
	for i, q := range ans.Quotes {
		role := "direct answer"
		if i > 0 {
			role = "related"
		}
		fmt.Fprintf(w, "quote %d (%s, [%d], %s, score %.2f): matched %s; %s\n", i+1, role, q.N, q.Kind, q.Score,
			strings.Join(q.Matched, ", "), q.AnswerKind)
	}
	writeSteps(w, ans)
	if ans.Search == nil {
		return
	}
	if len(ans.Steps) > 0 {
		fmt.Fprintln(w, "passages the tools showed the model:")
		for i, h := range ans.Search.Hits {
			fmt.Fprintf(w, "  %d. chunk %d  %s — %s\n", i+1, h.ChunkID, h.Heading, h.Path)
		}
		writeTimings(w, ans)
		return
	}
	tr := ans.Search.Trace
	if tr.Translated != "" {
		fmt.Fprintf(w, "also searched in %s: %s (%s)\n", tr.TranslatedLang, tr.Translated, tr.Timings["translate"].Round(10_000))
	}
	if tr.TranslationSkipped != "" {
		fmt.Fprintf(w, "not translated: %s\n", tr.TranslationSkipped)
	}
	if tr.TranslationMissing != "" {
		fmt.Fprintf(w, "translation missing, searched in the question's language only (answer not cached): %s\n", tr.TranslationMissing)
	}
	fmt.Fprintf(w, "full-text terms: %s\n", strings.Join(tr.Terms, " "))
	fmt.Fprintf(w, "weights: fts %.2f, vector %.2f\n", tr.Weights[rag.ArmFTS], tr.Weights[rag.ArmVector])
	// Chunks are named by their place in the fused order below, never by database ids: ids are
	// numbered across every document, so they would tell how many others were indexed.
	fusedAt := map[int64]int{}
	for i, h := range ans.Search.Hits {
		fusedAt[h.ChunkID] = i + 1
	}
	for _, arm := range []rag.Arm{rag.ArmFTS, rag.ArmVector} {
		hits := tr.Arms[arm]
		fmt.Fprintf(w, "%s arm (%d hits, %s):", arm, len(hits), tr.Timings[string(arm)].Round(10_000))
		for i, h := range hits {
			if i == 10 {
				break
			}
			if at, ok := fusedAt[h.ChunkID]; ok {
				fmt.Fprintf(w, " #%d=fused %d (%.3f)", h.Rank, at, h.Score)
			} else {
				fmt.Fprintf(w, " #%d (%.3f)", h.Rank, h.Score)
			}
		}
		fmt.Fprintln(w)
	}
	switch _, failed := tr.Timings[rag.TimingRerankFallback]; {
	case failed:
		fmt.Fprintln(w, "reranker failed or timed out: fused order kept (see the log)")
	case tr.Arms[rag.ArmRerank] != nil:
		fmt.Fprintf(w, "reranked the top %d fused hits (%s); the order below is the reranker's\n",
			len(tr.Arms[rag.ArmRerank]), tr.Timings[rag.TimingRerank].Round(10_000))
	}
	fmt.Fprintln(w, "fused order:")
	for i, h := range ans.Search.Hits {
		fmt.Fprintf(w, "  %d. rrf %.4f  fts #%s  vector #%s  %s — %s\n", i+1, h.Score,
			rankText(h.ArmRank[rag.ArmFTS]), rankText(h.ArmRank[rag.ArmVector]), h.Heading, h.Path)
	}
	if len(ans.Dropped) > 0 {
		var at []int
		for _, id := range ans.Dropped {
			at = append(at, fusedAt[id])
		}
		fmt.Fprintf(w, "dropped by the context budget: fused %v\n", at)
	}
	writeTimings(w, ans)
}

// replyKindText says which of the three kinds of reply this is and where the thresholds sit.
func replyKindText(ans *rag.Answer) string {
	bands := fmt.Sprintf("answer support %.2f", ans.Evidence)
	if ans.Threshold > 0 {
		bands += fmt.Sprintf("; not found below %.2f", ans.Threshold)
		if ans.ConfidentThreshold > 0 {
			bands += fmt.Sprintf(", uncertain below %.2f", ans.ConfidentThreshold)
		}
	}
	switch {
	case ans.Abstained:
		return fmt.Sprintf("not found (%s; %s)", ans.AbstainReason, bands)
	case ans.Hedged:
		return fmt.Sprintf("hedged, the closest passages (%s; %s)", ans.HedgeReason, bands)
	}
	return "answer (" + bands + ")"
}

// bridgesText lists the bridges searched, by the question words they render: "presupuesto →
// budget, estimate (dictionary)".
func bridgesText(bridges []rag.Bridge) string {
	type key struct{ from, via string }
	var order []key
	to := map[key][]string{}
	for _, b := range bridges {
		via := b.Via
		if i := strings.LastIndex(via, ":"); i > 0 && via != rag.ViaDictionary {
			via = via[:i] + " line " + via[i+1:]
		}
		k := key{b.From, via}
		if _, ok := to[k]; !ok {
			order = append(order, k)
		}
		to[k] = append(to[k], b.To)
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s → %s (%s)", k.from, strings.Join(to[k], ", "), k.via)
	}
	return strings.Join(parts, "; ")
}

func writeTimings(w io.Writer, ans *rag.Answer) {
	for stage, d := range ans.Timings {
		fmt.Fprintf(w, "%s: %s  ", stage, d.Round(10_000))
	}
	fmt.Fprintln(w)
}

// writeSteps lists an agent answer's tool calls, or why the agent fell back to one search.
func writeSteps(w io.Writer, ans *rag.Answer) {
	if ans.AgentFallback != "" {
		fmt.Fprintf(w, "agent mode fell back to a single search: %s\n", ans.AgentFallback)
	}
	if len(ans.Steps) == 0 {
		return
	}
	fmt.Fprintf(w, "agent steps (%d):\n", len(ans.Steps))
	for _, st := range ans.Steps {
		fmt.Fprintf(w, "  %s\n", stepText(st))
	}
}

// stepText is one agent step on one line: `1. search "taxi receipts" -> 5 passages (12ms)`.
func stepText(st rag.AgentStep) string {
	what := st.Tool
	switch st.Tool {
	case "search":
		what = fmt.Sprintf("search %q", st.Query)
	case "get_document":
		what = fmt.Sprintf("get_document %d", st.DocumentID)
	}
	got := fmt.Sprintf("%d passage(s)", st.Results)
	if st.Error != "" {
		got = st.Error
	}
	return fmt.Sprintf("%d. %s -> %s (%s)", st.N, what, got, st.Took.Round(10_000))
}

func rankText(r int) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprint(r)
}

type jsonSource struct {
	N          int     `json:"n"`
	DocumentID int64   `json:"document_id"`
	ChunkID    int64   `json:"chunk_id"`
	Path       string  `json:"path"`
	URL        string  `json:"url,omitempty"`
	Title      string  `json:"title"`
	Section    string  `json:"section"`
	Locator    string  `json:"locator,omitempty"`
	Updated    string  `json:"updated"`
	Owner      string  `json:"owner,omitempty"`
	Score      float64 `json:"score"`
}

func writeAnswerJSON(w io.Writer, ans *rag.Answer, explain bool) error {
	out := map[string]any{
		"question":         ans.Question,
		"standalone_query": ans.StandaloneQuery,
		"answer":           ans.Text,
		"abstained":        ans.Abstained,
		"evidence":         ans.Evidence,
		"lang":             ans.Lang,
		"cached":           ans.Cached,
	}
	if ans.Abstained {
		out["abstain_reason"] = ans.AbstainReason
	}
	out["hedged"] = ans.Hedged
	if ans.Hedged {
		out["hedge_reason"] = ans.HedgeReason
	}
	if len(ans.Steps) > 0 {
		out["steps"] = ans.Steps
	}
	if ans.AgentFallback != "" {
		out["agent_fallback"] = ans.AgentFallback
	}
	sources := []jsonSource{}
	for _, s := range ans.Sources {
		sources = append(sources, jsonSource{N: s.N, DocumentID: s.DocumentID, ChunkID: s.ChunkID, Path: s.Path, URL: s.URL,
			Title: s.Title, Section: s.Section, Locator: s.Locator, Updated: s.UpdatedAt.Format("2006-01-02"), Owner: s.Owner, Score: s.Score})
	}
	out["sources"] = sources
	if explain && ans.Search != nil {
		tr := ans.Search.Trace
		fused := []map[string]any{}
		for _, h := range ans.Search.Hits {
			fused = append(fused, map[string]any{"chunk_id": h.ChunkID, "path": h.Path, "score": h.Score,
				"fts_rank": h.ArmRank[rag.ArmFTS], "vector_rank": h.ArmRank[rag.ArmVector]})
		}
		timings := map[string]float64{}
		for k, v := range ans.Timings {
			timings[k] = float64(v.Microseconds()) / 1000
		}
		out["trace"] = map[string]any{"terms": tr.Terms, "translated": tr.Translated, "translated_lang": tr.TranslatedLang,
			"translation_missing": tr.TranslationMissing, "translation_skipped": tr.TranslationSkipped, "weights": tr.Weights, "arms": tr.Arms, "fused": fused,
			"bridges": tr.Bridges, "unknown_words": ans.UnknownWords, "thresholds": map[string]float64{"not_found": ans.Threshold, "confident": ans.ConfidentThreshold},
			"dropped": ans.Dropped, "timings_ms": timings}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
