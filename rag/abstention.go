package rag

import (
	"context"
	"regexp"
	"strings"
)

// PreFilterEvidence is the relevance guard's threshold when the composer judges answerability
// itself (a chat model): the lexical score only skips passages that share next to nothing with
// the question, and the model decides the rest, so that a paraphrase the word overlap misses is
// not refused before the model has read it.
const PreFilterEvidence = 0.05

// AnswerabilityJudge is a Composer that decides itself whether its sources answer the question
// and says so with the abstention sentence (a chat model prompted as generate.LLMComposer is).
type AnswerabilityJudge interface {
	JudgesAnswerability() bool
}

func judges(c Composer) bool {
	j, ok := c.(AnswerabilityJudge)
	return ok && j.JudgesAnswerability()
}

// abstentionCue matches what a model writes when the sources do not answer: the abstention
// sentence it was given, or its own words for it.
var abstentionCue = regexp.MustCompile(`(?i)\b(i (?:do not|don't|couldn't|could not|cannot|can't) (?:know|find|tell|say)|` +
	`(?:the |these |our )?(?:sources|documents|documentation|passages) (?:do not|don't|does not|doesn't) (?:say|state|mention|answer|cover|contain|include|specify)|` +
	`(?:is|are) not (?:mentioned|stated|specified|covered) in|no information (?:about|on)|not (?:in|covered by) (?:the|our) (?:sources|documentation)|` +
	`no (?:lo )?s[eé]\b|no encontr[eé]|no (?:pude|puedo) encontrar|no (?:se )?(?:menciona|indica|especifica)|` +
	`(?:las fuentes|los documentos|la documentaci[oó]n) no (?:dicen|dice|mencionan|menciona|indican|indica|cubren|cubre|responden|especifican)|no hay informaci[oó]n)`)

// citationMark matches a citation such as "[1]" or "[2][3]".
var citationMark = regexp.MustCompile(`\s*(?:\[\d+\])+`)

// ModelAbstained reports whether a model's reply says that the sources do not answer: the
// abstention sentence, or a short reply in its own words ("I don't know [1].", "The sources do not
// mention it."), with or without citations. A longer reply that answers and notes one thing the
// sources lack is an answer.
func ModelAbstained(reply string) bool {
	text := strings.TrimSpace(citationMark.ReplaceAllString(reply, ""))
	if text == "" {
		return false
	}
	for _, l := range []string{"en", "es"} {
		if strings.HasPrefix(text, phrasesFor(l).NotFound) {
			return true
		}
	}
	return len(strings.Fields(text)) <= 25 && abstentionCue.MatchString(text)
}

// checkComposition judges a composition before it is shown: a model that says the sources do not
// answer abstains; a model reply that cites no real source is replaced by the offline quotes,
// labelled; an offline answer (also one standing in for the model) must pass the relevance
// guard at its full threshold. It returns the verified text and citations, or done when ans
// is now an abstention.
func (p *Pipeline) checkComposition(ctx context.Context, req ComposeRequest, ans *Answer, comp *Composition, modelJudges bool,
	onDelta func(string)) (text string, cited []Source, invalid []int, done bool, err error) {
	owner := req.Sources[0].Owner
	answeredByModel := modelJudges && !ans.ModelTimedOut
	if answeredByModel && ModelAbstained(comp.Text) {
		ans.Usage = comp.Usage
		abstain(ans, "model_abstained", owner, nil)
		return "", nil, nil, true, nil
	}
	text, cited, invalid = VerifyCitations(comp.Text, req.Sources)
	if answeredByModel && len(cited) == 0 && p.opts.FallbackComposer != nil {
		usage := comp.Usage
		if comp, err = p.composeOffline(ctx, req, ans, fallbackBadCitations, 0, onDelta); err != nil {
			return "", nil, nil, false, err
		}
		comp.Usage = usage // the model's tokens were spent
		text, cited, invalid = VerifyCitations(comp.Text, req.Sources)
	}
	ans.Usage, ans.Quotes = comp.Usage, comp.Quotes
	if ans.ModelTimedOut && ans.Evidence < p.opts.MinEvidence {
		ans.Threshold = p.opts.MinEvidence
		// The offline stand-in does not judge: the passages the model would have read must pass
		// the guard the offline answerer passes.
		abstain(ans, "weak_evidence", owner, nil)
		return "", nil, nil, true, nil
	}
	if len(cited) == 0 {
		abstain(ans, "no_valid_citation", owner, nil)
		return "", nil, nil, true, nil
	}
	return text, cited, invalid, false, nil
}
