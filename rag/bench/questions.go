package bench

import (
	"strings"
)

// Questions the way people type them: 6-25 words, about half of them stop words and question
// words, in Spanish or English. The synthetic corpus's own words are neither language, so the
// content words come from the chunk (what the asker half-remembers) and a few from the common
// vocabulary (what the asker adds that the passage does not say).

// MinQuestionWords and MaxQuestionWords bound the synthetic questions' length.
const (
	MinQuestionWords = 6
	MaxQuestionWords = 25
)

var (
	openersES   = [][]string{{"¿cuál", "es", "el"}, {"¿cómo", "se"}, {"¿qué", "pasa", "con", "la"}, {"¿dónde", "está", "el"}, {"¿por", "qué", "el"}, {"necesito", "saber", "si", "el"}}
	stopWordsES = strings.Fields("de la el que en y a los del se las por un para con no una su al lo como más pero sus le ya o este sí porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos durante todos uno les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo otro otras otra él tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas algo nosotros")
	openersEN   = [][]string{{"what", "is", "the"}, {"how", "do", "i"}, {"where", "can", "i", "find", "the"}, {"why", "does", "the"}, {"is", "there", "a"}, {"i", "need", "to", "know", "if", "the"}}
	stopWordsEN = strings.Fields("the of and to a in for is on that by this with i you it not or be are from at as your all have new more an was we will can us about if my has but our one other do no they he up may what which their out use any there see only so his when here who also now get first am been would how were me some these its like than find had just over into two them should such after most then where")
)

// questionFrom returns a question of n words (clamped to 6-25) about text: an opener and stop
// words of lang ("es" or "en"), and about half content words, most of them words of text in
// reading order (the first always), one in five a common word the passage may not hold.
func (g *corpusGen) questionFrom(text string, n int, lang string) string {
	n = min(max(n, MinQuestionWords), MaxQuestionWords)
	openers, stop := openersEN, stopWordsEN
	if lang == "es" {
		openers, stop = openersES, stopWordsES
	}
	words := strings.Fields(text)
	opener := openers[g.rng.IntN(len(openers))]
	for len(opener) > n/2 { // a short question has a short opener
		opener = openers[g.rng.IntN(len(openers))]
	}
	q := append([]string(nil), opener...)
	content := max(2, (n-len(q)+1)/2)
	start := g.rng.IntN(max(1, len(words)-content*3))
	for i := 0; len(q) < n; i++ {
		if content > 0 && (i%2 == 0 || n-len(q) <= content) {
			w := g.vocab[g.zipf.Uint64()]
			if (i == 0 || g.rng.IntN(5) > 0) && start < len(words) {
				w = words[start]
				start += 1 + g.rng.IntN(3)
			}
			q = append(q, w)
			content--
			continue
		}
		q = append(q, stop[g.rng.IntN(len(stop))])
	}
	return strings.Join(q, " ") + "?"
}

// questionLength draws a question length: fixed when words > 0, else uniform in 6-25.
func (g *corpusGen) questionLength(words int) int {
	if words > 0 {
		return words
	}
	return MinQuestionWords + g.rng.IntN(MaxQuestionWords-MinQuestionWords+1)
}
