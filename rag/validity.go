package rag

import (
	"fmt"
	"time"
)

// Validity is when a document applies. The zero Validity applies always. A document superseded
// by another (SupersededBy, or a rule such as "archive/**") stops being current on SupersededOn.
type Validity struct {
	From  time.Time // zero: since always
	Until time.Time // zero: until further notice; exclusive
	// SupersededBy names the document that replaced this one (a path, a title, a link); Superseded
	// is set with or without a name (a path rule says only that the document was replaced).
	Superseded   bool
	SupersededBy string
	SupersededOn time.Time // zero: unknown (the index records the first pass that saw the mark)
}

// IsZero reports whether v says nothing: the document applies always.
func (v Validity) IsZero() bool {
	return v.From.IsZero() && v.Until.IsZero() && !v.Superseded && v.SupersededBy == "" && v.SupersededOn.IsZero()
}

// End is when the document stops being current: the earlier of Until and SupersededOn (zero
// when neither is known).
func (v Validity) End() time.Time {
	switch {
	case v.Until.IsZero():
		return v.SupersededOn
	case v.SupersededOn.IsZero() || v.Until.Before(v.SupersededOn):
		return v.Until
	}
	return v.SupersededOn
}

// CurrentAt reports whether the document is current at t.
func (v Validity) CurrentAt(t time.Time) bool {
	if !v.From.IsZero() && t.Before(v.From) {
		return false
	}
	if v.Superseded && v.SupersededOn.IsZero() {
		return false
	}
	end := v.End()
	return end.IsZero() || t.Before(end)
}

// Merge returns v with the fields o sets: a rule (o) overrides what the document says (v) only
// where it says something.
func (v Validity) Merge(o Validity) Validity {
	if !o.From.IsZero() {
		v.From = o.From
	}
	if !o.Until.IsZero() {
		v.Until = o.Until
	}
	if o.Superseded || o.SupersededBy != "" {
		v.Superseded = true
	}
	if o.SupersededBy != "" {
		v.SupersededBy = o.SupersededBy
	}
	if !o.SupersededOn.IsZero() {
		v.SupersededOn = o.SupersededOn
	}
	if v.SupersededBy != "" {
		v.Superseded = true
	}
	return v
}

// Key is v's unambiguous text form ("" for the zero Validity), for change detection.
func (v Validity) Key() string {
	if v.IsZero() {
		return ""
	}
	day := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("v1;%s;%s;%t;%d:%s;%s", day(v.From), day(v.Until), v.Superseded, len(v.SupersededBy), v.SupersededBy, day(v.SupersededOn))
}

// Validate returns an error naming the problem when From is not before Until.
func (v Validity) Validate() error {
	if !v.From.IsZero() && !v.Until.IsZero() && !v.From.Before(v.Until) {
		return fmt.Errorf("valid_from %s is not before valid_until %s", v.From.Format(time.DateOnly), v.Until.Format(time.DateOnly))
	}
	return nil
}

// Period is the span of time a question asks about. The zero Period means "now": only documents
// current now may be cited. A named period ("the 2023 travel policy") lets documents valid at any
// moment of it be cited, with a note when they are no longer current.
type Period struct {
	From  time.Time
	Until time.Time // exclusive
	Label string    // how the question named it: "2023", "marzo de 2024"
}

// IsZero reports whether p is "now".
func (p Period) IsZero() bool { return p.From.IsZero() && p.Until.IsZero() }

// WithPeriod returns the scope restricted to documents valid in p (the zero Period: current
// now). The period is not part of Key: it is derived from the query, which cache keys hold.
func (s Scope) WithPeriod(p Period) Scope {
	s.period = p
	return s
}

// Period returns the span the scope's searches cite documents for (zero: now).
func (s Scope) Period() Period { return s.period }

// NoLongerCurrent reports whether a hit may be cited only as history: its document is not
// current at now.
func (h Hit) NoLongerCurrent(now time.Time) bool { return !h.Validity.CurrentAt(now) }

// HistoryNote is the note an answer gives a source that is no longer current, in lang ("es" or
// "en"): "superseded on 2025-01-01 by travel-2025.md", "valid until …"; "" for a current one.
func HistoryNote(v Validity, now time.Time, lang string) string {
	if v.CurrentAt(now) {
		return ""
	}
	es := lang == "es"
	if !v.From.IsZero() && now.Before(v.From) {
		if es {
			return "vigente a partir del " + v.From.Format(time.DateOnly)
		}
		return "valid from " + v.From.Format(time.DateOnly)
	}
	var note string
	switch {
	case v.Superseded && (v.SupersededOn.IsZero() || v.Until.IsZero() || !v.Until.Before(v.SupersededOn)):
		on := ""
		if !v.SupersededOn.IsZero() {
			on = v.SupersededOn.Format(time.DateOnly)
		}
		if es {
			note = "sustituido"
			if on != "" {
				note += " el " + on
			}
		} else {
			note = "superseded"
			if on != "" {
				note += " on " + on
			}
		}
		if v.SupersededBy != "" {
			if es {
				note += " por " + v.SupersededBy
			} else {
				note += " by " + v.SupersededBy
			}
		}
	case es:
		note = "vigente hasta el " + v.Until.Format(time.DateOnly)
	default:
		note = "valid until " + v.Until.Format(time.DateOnly)
	}
	return note
}
