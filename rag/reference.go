package rag

import (
	"sort"
	"strings"
	"unicode"

	"github.com/citahq/cita/rag/lang"
)

// Reference is an exact reference to a numbered part of a text ("art. 99", "artículo 14",
// "section 4.2", "§ 12"): its kind, with the aliases of one language and the other folded
// together ("art", "sec", ...), and its number as written, lower-cased.
type Reference struct {
	Kind   string
	Number string
}

// referenceKinds maps the words that introduce a reference, accents folded and without a final
// dot, to the kind they name.
var referenceKinds = map[string]string{
	"art": "art", "arts": "art", "articulo": "art", "articulos": "art", "article": "art", "articles": "art",
	"sec": "sec", "seccion": "sec", "section": "sec", "§": "sec", "§§": "sec",
	"cap": "chap", "capitulo": "chap", "chapter": "chap", "ch": "chap",
	"titulo": "title", "title": "title", "tit": "title",
	"clausula": "clause", "clause": "clause",
	"apartado": "para", "parrafo": "para", "paragraph": "para", "para": "para",
	"anexo": "annex", "annex": "annex", "appendix": "annex", "apendice": "annex",
	"regla": "rule", "rule": "rule", "norma": "rule",
	"disposicion": "provision", "provision": "provision",
}

// maxReferenceExtraWords is how many other words a query may hold beside its reference and still
// count as one ("artículo 99 de la Constitución", "what does article 5 say").
const maxReferenceExtraWords = 4

// ParseReference returns the reference a short query names, and false when the query is not
// one: a reference word followed by a number ("99", "4.2", "12 bis" is read as "12", "IV"),
// with at most maxReferenceExtraWords other words around it.
func ParseReference(q string) (Reference, bool) {
	words := strings.FieldsFunc(q, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("¿?¡!,;:\"()«»", r)
	})
	for i := 0; i+1 < len(words); i++ {
		kind, ok := referenceKinds[lang.Fold(strings.TrimSuffix(words[i], "."))]
		if !ok || !isReferenceNumber(words[i+1]) {
			continue
		}
		if len(words)-2 > maxReferenceExtraWords {
			return Reference{}, false
		}
		return Reference{Kind: kind, Number: strings.ToLower(strings.TrimSuffix(words[i+1], "."))}, true
	}
	return Reference{}, false
}

// isReferenceNumber reports whether w numbers a part: digits with dots between ("4.2", "99."),
// optionally followed by a letter ("12a"), or a Roman numeral in capitals ("IV"; "title i want"
// is no reference).
func isReferenceNumber(w string) bool {
	w = strings.TrimSuffix(w, ".")
	if w == "" {
		return false
	}
	if strings.Trim(w, "IVXLC") == "" {
		return true
	}
	digits := 0
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case r == '.' && i > 0:
		case unicode.IsLetter(r) && i == len(w)-1 && digits > 0:
		default:
			return false
		}
	}
	return digits > 0
}

// leadWith reorders fused hits for an exact reference: the hits arm returned come first, in that
// arm's order, then the others in fused order. On a reference the full-text arm's exact match
// is what the user asked for, and the vector arm (which blurs numbers) only adds recall below
// it. Scores are capped by the hit above, so the list stays in score order.
func leadWith(fused []Fused, arm Arm) []Fused {
	sort.SliceStable(fused, func(i, j int) bool {
		ri, iok := fused[i].ArmRank[arm]
		rj, jok := fused[j].ArmRank[arm]
		if iok != jok {
			return iok
		}
		return iok && ri < rj
	})
	for i := 1; i < len(fused); i++ {
		fused[i].Score = min(fused[i].Score, fused[i-1].Score)
	}
	return fused
}

// namesReference reports whether a hit's document title or section heading is the reference
// itself ("Artículo 99" for "art. 99").
func namesReference(h Hit, ref Reference) bool {
	for _, s := range []string{h.Title, h.Heading} {
		if got, ok := ParseReference(s); ok && got == ref && len(strings.Fields(s)) <= 3 {
			return true
		}
	}
	return false
}

// promoteNamed moves the hits whose title or heading is the reference to the front, keeping the
// order within each part, and gives them the top score.
func promoteNamed(hits []Hit, ref Reference) []Hit {
	if len(hits) == 0 {
		return hits
	}
	top := hits[0].Score
	sort.SliceStable(hits, func(i, j int) bool { return namesReference(hits[i], ref) && !namesReference(hits[j], ref) })
	for i := range hits {
		if !namesReference(hits[i], ref) {
			break
		}
		hits[i].Score = top
	}
	return hits
}
