package rag

import "fmt"

// Fixed phrases of the offline answerer and of abstentions, in the languages cita answers in.
type phrases struct {
	NotFound string
	AskOwner string // %s = owner
	// Hedged heads a reply that gives the closest passages, which may not answer.
	Hedged      string
	Related     string // heads the quotes after the direct answer
	NewerSource string // %d newer, %d older source
	QuotedIn    string // %s = the language the quotes are in
	// ModelTimedOut labels an offline answer given because the model did not reply; %s = timeout
	ModelTimedOut string
	// ModelTimedOutFailing: the same, its last reply an error (%s timeout, %d HTTP status).
	ModelTimedOutFailing string
	// ModelFailed labels an offline answer given because the model failed (%s: "HTTP 500").
	ModelFailed string
	// ModelBadCitations labels an offline answer given because the model cited no real source.
	ModelBadCitations string
	NotCurrent        string // %d source, %s its HistoryNote
	// NotAQuestion answers a message with no words; TooLong one over the limit (%d = the limit).
	NotAQuestion string
	TooLong      string
	LangName     map[string]string
}

var phrasebook = map[string]phrases{
	"en": {
		NotFound:             "I couldn't find this in our documentation.",
		Hedged:               "I'm not sure this answers your question. The closest I found in our documentation:",
		AskOwner:             "You could ask %s.",
		Related:              "Also in our documentation:",
		NewerSource:          "Note: sources [%d] and [%d] disagree; [%d] is the more recently updated one.",
		QuotedIn:             "(Quoted as written, in %s.)",
		ModelTimedOut:        "_The answering model did not reply within %s, so this answer quotes the documents directly, without the model:_",
		ModelTimedOutFailing: "_The answering model kept failing (its last reply was HTTP %[2]d) and gave no answer within %[1]s, so this answer quotes the documents directly, without the model:_",
		ModelFailed:          "_The answering model failed (%s), so this answer quotes the documents directly, without the model:_",
		ModelBadCitations:    "_The answering model's reply cited sources that don't exist, so this answer quotes the documents directly, without the model:_",
		NotCurrent:           "Note: [%d] is no longer current (%s).",
		NotAQuestion:         "That doesn't look like a question: ask me in words and I'll look it up in our documentation.",
		TooLong:              "That message is too long for me to search (the limit is %d characters). Ask the question on its own, in a sentence or two.",
		LangName:             map[string]string{"es": "Spanish", "en": "English"},
	},
	"es": {
		NotFound:             "No encontré esto en nuestra documentación.",
		Hedged:               "No estoy seguro de que esto responda a tu pregunta. Lo más parecido que encontré en nuestra documentación:",
		AskOwner:             "Puedes preguntar a %s.",
		Related:              "También en nuestra documentación:",
		NewerSource:          "Nota: las fuentes [%d] y [%d] no coinciden; [%d] es la actualizada más recientemente.",
		QuotedIn:             "(Cito el texto original, en %s.)",
		ModelTimedOut:        "_El modelo que redacta las respuestas no respondió en %s, así que esta respuesta cita los documentos directamente, sin el modelo:_",
		ModelTimedOutFailing: "_El modelo que redacta las respuestas siguió fallando (su última respuesta fue HTTP %[2]d) y no respondió en %[1]s, así que esta respuesta cita los documentos directamente, sin el modelo:_",
		ModelFailed:          "_El modelo que redacta las respuestas falló (%s), así que esta respuesta cita los documentos directamente, sin el modelo:_",
		ModelBadCitations:    "_La respuesta del modelo citaba fuentes que no existen, así que esta respuesta cita los documentos directamente, sin el modelo:_",
		NotCurrent:           "Nota: [%d] ya no está vigente (%s).",
		NotAQuestion:         "Eso no parece una pregunta: pregúntame con palabras y lo buscaré en nuestra documentación.",
		TooLong:              "Ese mensaje es demasiado largo para buscarlo (el límite es de %d caracteres). Haz la pregunta sola, en una o dos frases.",
		LangName:             map[string]string{"es": "español", "en": "inglés"},
	},
}

func phrasesFor(lang string) phrases {
	if p, ok := phrasebook[lang]; ok {
		return p
	}
	return phrasebook["en"]
}

// NotFoundText is the abstention sentence in lang, with who to ask when an owner is known.
func NotFoundText(lang, owner string) string {
	p := phrasesFor(lang)
	if owner == "" {
		return p.NotFound
	}
	return p.NotFound + " " + fmt.Sprintf(p.AskOwner, owner)
}

// HedgeText is a hedged reply: the line saying the passages may not answer, the quotes, and
// who to ask when an owner is known.
func HedgeText(lang, quotes, owner string) string {
	p := phrasesFor(lang)
	text := p.Hedged + "\n\n" + quotes
	if owner != "" {
		text += "\n\n" + fmt.Sprintf(p.AskOwner, owner)
	}
	return text
}

// hedgedDeltas returns an onDelta that sends the hedge line before the first piece of text, so
// a streamed hedged reply never shows its quotes as an answer, not even for a moment.
func hedgedDeltas(lang string, onDelta func(string)) func(string) {
	if onDelta == nil {
		return nil
	}
	started := false
	return func(s string) {
		if !started {
			started = true
			onDelta(phrasesFor(lang).Hedged + "\n\n")
		}
		onDelta(s)
	}
}
