package rewrite

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/citahq/cita/rag"
)

// Sample is one follow-up of a rewrite evaluation set: the conversation so far, the question as
// asked and a human-written standalone rewrite.
type Sample struct {
	History  []rag.Turn
	Question string
	Rewrite  string
}

// LoadCanard reads a CANARD jsonl file ({"history": [...], "question", "rewrite"} per line). It
// returns an error naming the line when a line is not valid JSON or lacks a question or rewrite.
func LoadCanard(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open canard samples: %w", err)
	}
	defer f.Close()
	var out []Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var raw struct {
			History  []string `json:"history"`
			Question string   `json:"question"`
			Rewrite  string   `json:"rewrite"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			return nil, fmt.Errorf("parse %s line %d: %w", path, line, err)
		}
		if raw.Question == "" || raw.Rewrite == "" {
			return nil, fmt.Errorf("parse %s line %d: question and rewrite are required", path, line)
		}
		out = append(out, Sample{History: CanardTurns(raw.History), Question: raw.Question, Rewrite: raw.Rewrite})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// CanardTurns gives roles to a CANARD history: the article title and section title open the
// conversation as the user's (they are what it is about), then questions (user) and answers
// (assistant) alternate.
func CanardTurns(history []string) []rag.Turn {
	out := make([]rag.Turn, len(history))
	for i, h := range history {
		role := "user"
		if i >= 2 && i%2 == 1 {
			role = "assistant"
		}
		out[i] = rag.Turn{Role: role, Text: h}
	}
	return out
}

// Recovery is how much of the human rewrites' added content a rewriter recovers. A sample's
// added terms are the content terms (rag.ContentTokens of two runes or more, compared by
// rag.TokenStem) of the human rewrite that are not in the question; its recovery is the share of
// them present in the rewriter's output.
type Recovery struct {
	Samples   int     // samples run
	Scored    int     // samples whose human rewrite added terms (the others have no recovery to score)
	Rewritten int     // samples whose output differs from the question
	Errors    int     // samples where the rewriter failed (scored as recovering nothing)
	Mean      float64 // mean of the per-sample recovery over Scored samples
	Micro     float64 // recovered terms / added terms over all samples
	Added     int     // added terms over all samples
	Recovered int     // of those, present in the outputs
	// Precision is the share of the terms a rewriter appended (output minus question) that the
	// human rewrite also holds: low precision means noise carried into retrieval.
	Precision float64
	Appended  int
}

// CanardRecovery runs r on every sample and measures Recovery. A rewriter error counts as
// recovering nothing for that sample and is tallied in Errors; ctx cancellation stops early.
func CanardRecovery(ctx context.Context, r rag.Rewriter, samples []Sample) Recovery {
	var rec Recovery
	var sum float64
	var appendedInRewrite int
	for _, s := range samples {
		if ctx.Err() != nil {
			break
		}
		rec.Samples++
		out, err := r.Rewrite(ctx, s.Question, s.History)
		if err != nil {
			rec.Errors++
			out = s.Question
		}
		if out != s.Question {
			rec.Rewritten++
		}
		question, human, got := termStems(s.Question), termStems(s.Rewrite), termStems(out)
		added, recovered := 0, 0
		for st := range human {
			if question[st] {
				continue
			}
			added++
			if got[st] {
				recovered++
			}
		}
		for st := range got {
			if !question[st] {
				rec.Appended++
				if human[st] {
					appendedInRewrite++
				}
			}
		}
		rec.Added += added
		rec.Recovered += recovered
		if added > 0 {
			rec.Scored++
			sum += float64(recovered) / float64(added)
		}
	}
	if rec.Scored > 0 {
		rec.Mean = sum / float64(rec.Scored)
	}
	if rec.Added > 0 {
		rec.Micro = float64(rec.Recovered) / float64(rec.Added)
	}
	if rec.Appended > 0 {
		rec.Precision = float64(appendedInRewrite) / float64(rec.Appended)
	}
	return rec
}

// termStems is the set of content-term stems of text, ignoring one-rune tokens (the "s" of a
// split possessive, initials).
func termStems(text string) map[string]bool {
	m := map[string]bool{}
	for _, t := range rag.ContentTokens(text) {
		if utf8.RuneCountInString(t) > 1 {
			m[rag.TokenStem(t)] = true
		}
	}
	return m
}
