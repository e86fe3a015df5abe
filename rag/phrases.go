package rag

import "fmt"

// Fixed phrases of the offline answerer and of abstentions, in the languages cita answers in.
type phrases struct {
	NotFound    string
	AskOwner    string // %s = owner
	Intro       string
	NewerSource string // %d newer, %d older source
}

var phrasebook = map[string]phrases{
	"en": {
		NotFound:    "I couldn't find this in our documentation.",
		AskOwner:    "You could ask %s.",
		Intro:       "Here is what our documentation says:",
		NewerSource: "Note: sources [%d] and [%d] disagree; [%d] is the more recently updated one.",
	},
	"es": {
		NotFound:    "No encontré esto en nuestra documentación.",
		AskOwner:    "Puedes preguntar a %s.",
		Intro:       "Esto es lo que dice nuestra documentación:",
		NewerSource: "Nota: las fuentes [%d] y [%d] no coinciden; [%d] es la actualizada más recientemente.",
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
