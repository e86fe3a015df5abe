package rag

import (
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"
)

// Probe is a question built from one passage of the organisation's own documents, to measure
// the relevance guard on them (`cita calibrate`). An answerable probe asks, in keywords, what its
// passage states; a near-miss probe is the same question with its rarest word swapped for a
// word of another document, so that no passage states what it asks.
type Probe struct {
	Question   string
	DocumentID int64 // the passage's document: an answerable probe is answered from it
	NearMiss   bool
	Swapped    string // the near-miss probe's foreign word
}

// BuildProbes makes up to one answerable and one near-miss probe per passage: the words of the
// passage's deepest heading and the two rarest words (among the passages given) of its first
// sentence of five words or more. Passages too short or without such a sentence give none.
func BuildProbes(passages []Hit, seed uint64) []Probe {
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	df := map[string]int{}
	words := make([][]string, len(passages))
	for i, p := range passages {
		seen := map[string]bool{}
		for _, w := range answerTokens(p.Title + " " + p.Section + " " + p.Content) {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
		words[i] = sentenceWords(p.Content)
	}
	var out []Probe
	for i, p := range passages {
		if len(words[i]) < 5 {
			continue
		}
		rare := slices.Clone(words[i])
		slices.SortStableFunc(rare, func(a, b string) int { return df[a] - df[b] })
		// The rarest word names what is asked about; a common one of the sentence stands in for
		// the looser words people ask with.
		keys := []string{rare[0], rare[len(rare)/2]}
		heading := headingWords(p)[:min(1, len(headingWords(p)))]
		q := strings.Join(append(slices.Clone(heading), keys...), " ")
		out = append(out, Probe{Question: q, DocumentID: p.DocumentID})
		if foreign := foreignWord(passages, i, df, rng); foreign != "" {
			near := append(slices.Clone(heading), foreign, keys[1])
			out = append(out, Probe{Question: strings.Join(near, " "), DocumentID: p.DocumentID, NearMiss: true, Swapped: foreign})
		}
	}
	return out
}

// sentenceWords are the distinct content words of the passage's first sentence with five or
// more of them (not numbers: a probe asks about a thing, not for a figure it already holds).
func sentenceWords(content string) []string {
	for _, s := range strings.FieldsFunc(content, func(r rune) bool { return r == '.' || r == '\n' || r == ';' || r == '?' }) {
		var ws []string
		seen := map[string]bool{}
		for _, w := range answerTokens(s) {
			if seen[w] || utf8.RuneCountInString(w) < 3 || strings.ContainsAny(w, "0123456789") {
				continue
			}
			seen[w] = true
			ws = append(ws, w)
		}
		if len(ws) >= 5 {
			return ws
		}
	}
	return nil
}

// headingWords are up to two content words of the passage's deepest heading (else its title).
func headingWords(p Hit) []string {
	parts := strings.Split(p.Section, " > ")
	h := parts[len(parts)-1]
	if h == "" {
		h = p.Title
	}
	ws := answerTokens(h)
	return ws[:min(2, len(ws))]
}

// foreignWord picks a rare word of a passage of another document that passage i's document
// does not hold among the passages given: a thing the documents name, asked about where they
// do not state it.
func foreignWord(passages []Hit, i int, df map[string]int, rng *rand.Rand) string {
	own := map[string]bool{}
	for _, p := range passages {
		if p.DocumentID == passages[i].DocumentID {
			for _, w := range answerTokens(p.Title + " " + p.Section + " " + p.Content) {
				own[w] = true
			}
		}
	}
	for range 8 {
		j := rng.IntN(len(passages))
		if passages[j].DocumentID == passages[i].DocumentID {
			continue
		}
		for _, w := range sentenceWords(passages[j].Content) {
			if !own[w] && df[w] <= 2 && utf8.RuneCountInString(w) >= 5 {
				return w
			}
		}
	}
	return ""
}

// ProbeResult is how the pipeline answered one probe, with the guard off.
type ProbeResult struct {
	Probe
	Evidence float64
	Found    bool // an answerable probe's first cited source is its passage's document
	// Support is what the answerer's reading said of the probe (unknown names and words, the
	// key word), for the confident threshold.
	Support SupportReport
}

// NewProbeResult records how ans answered pr, with the guard off.
func NewProbeResult(pr Probe, ans *Answer) ProbeResult {
	r := ProbeResult{Probe: pr, Evidence: ans.Evidence, Support: SupportReport{Score: ans.Evidence, UnknownNames: ans.UnknownNames,
		UnknownWords: ans.UnknownWords, Answerability: ans.Answerability}}
	if ans.Abstained {
		r.Evidence, r.Support.Score = 0, 0
	}
	if !pr.NearMiss {
		r.Found = len(ans.Sources) > 0 && ans.Sources[0].DocumentID == pr.DocumentID
	}
	return r
}

// CalibrationRow is the guard's outcome on the probes at one threshold, as the guard's
// threshold (answers.min_evidence) and as the confident one (answers.confident_evidence).
type CalibrationRow struct {
	Threshold     float64 `json:"threshold"`
	FalseRefusals float64 `json:"false_refusals"` // share of answerable probes (found by retrieval) refused
	Declined      float64 `json:"near_misses_declined"`
	// AnswerableConfident and NearMissesConfident: the shares answered as answers (not hedged)
	// were this the confident threshold.
	AnswerableConfident float64 `json:"answerable_confident"`
	NearMissesConfident float64 `json:"near_misses_confident"`
}

// DefaultConfidentBudget is the share of near-miss probes `cita calibrate` lets the confident
// threshold answer as if the documents answered them.
const DefaultConfidentBudget = 0.25

// SuggestConfident returns the lowest threshold of rows, at or above minEvidence, whose near
// misses answered confidently stay within budget (0 when none does).
func SuggestConfident(rows []CalibrationRow, minEvidence, budget float64) float64 {
	for _, r := range rows {
		if r.Threshold >= minEvidence && r.NearMissesConfident <= budget {
			return r.Threshold
		}
	}
	return 0
}

// Calibrate sweeps thresholds from 0.02 to 0.80 over results and suggests the highest whose
// false refusals stay within budget (0 when none does).
func Calibrate(results []ProbeResult, budget float64) (rows []CalibrationRow, suggested float64) {
	var answerable, near []float64
	var answerableRep, nearRep []SupportReport
	for _, r := range results {
		switch {
		case r.NearMiss:
			near = append(near, r.Evidence)
			nearRep = append(nearRep, r.Support)
		case r.Found:
			answerable = append(answerable, r.Evidence)
			answerableRep = append(answerableRep, r.Support)
		}
	}
	confident := func(reps []SupportReport, t float64) float64 {
		if len(reps) == 0 {
			return 0
		}
		n := 0
		for _, rep := range reps {
			if rep.Score > 0 && replyBand(rep, t) == "" {
				n++
			}
		}
		return float64(n) / float64(len(reps))
	}
	share := func(xs []float64, t float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		n := 0
		for _, x := range xs {
			if x < t {
				n++
			}
		}
		return float64(n) / float64(len(xs))
	}
	for i := 2; i <= 80; i++ {
		t := float64(i) / 100
		row := CalibrationRow{Threshold: t, FalseRefusals: share(answerable, t), Declined: share(near, t),
			AnswerableConfident: confident(answerableRep, t), NearMissesConfident: confident(nearRep, t)}
		rows = append(rows, row)
		if row.FalseRefusals <= budget && len(answerable) > 0 {
			suggested = t
		}
	}
	return rows, suggested
}
