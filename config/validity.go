package config

import (
	"fmt"
	"strings"
	"time"
)

// ValidityRules mark documents by path as superseded or valid for a window: the first rule whose
// glob matches a path (relative to the source root) applies; unmatched paths are left to what
// the documents themselves say (front matter, properties).
//
//	validity:
//	  rules:
//	    - match: "archive/**"
//	      superseded: true
//	    - match: "prices/2024/**"
//	      valid_until: 2025-01-01
//	      superseded_by: prices/2025/price-list.xlsx
type ValidityRules struct {
	Rules []ValidityRule `yaml:"rules"`
}

// ValidityRule is one glob and what it says of the documents it matches. Dates are YYYY-MM-DD
// (UTC) or RFC 3339.
type ValidityRule struct {
	Match        string `yaml:"match"`
	ValidFrom    string `yaml:"valid_from"`
	ValidUntil   string `yaml:"valid_until"`
	Superseded   bool   `yaml:"superseded"`
	SupersededBy string `yaml:"superseded_by"`
	SupersededOn string `yaml:"superseded_on"`

	from, until, on time.Time
	rules           AccessRules // the glob, compiled as an access rule's
}

// ValidityMark is what the rules say of one path; the zero mark says nothing.
type ValidityMark struct {
	From, Until  time.Time
	Superseded   bool
	SupersededBy string
	SupersededOn time.Time
}

// Compile validates the rules and prepares their globs. It returns an error naming the rule and
// the field.
func (v *ValidityRules) Compile() error {
	for i := range v.Rules {
		r := &v.Rules[i]
		name := fmt.Sprintf("validity rule %d (%s)", i+1, r.Match)
		if r.Match == "" {
			return fmt.Errorf("validity rule %d: match is empty; give a glob such as \"archive/**\"", i+1)
		}
		var err error
		for _, f := range []struct {
			field string
			text  string
			out   *time.Time
		}{{"valid_from", r.ValidFrom, &r.from}, {"valid_until", r.ValidUntil, &r.until}, {"superseded_on", r.SupersededOn, &r.on}} {
			if *f.out, err = parseRuleDate(f.text); err != nil {
				return fmt.Errorf("%s: %s: %w", name, f.field, err)
			}
		}
		if !r.from.IsZero() && !r.until.IsZero() && !r.from.Before(r.until) {
			return fmt.Errorf("%s: valid_from must be before valid_until", name)
		}
		if r.from.IsZero() && r.until.IsZero() && !r.Superseded && r.SupersededBy == "" && r.on.IsZero() {
			return fmt.Errorf("%s: says nothing; set superseded, superseded_by, superseded_on, valid_from or valid_until", name)
		}
		r.rules = AccessRules{DefaultGroups: []string{"everyone"}, Rules: []AccessRule{{Match: r.Match, Groups: []string{"match"}}}}
		if err := r.rules.Compile(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// For returns the mark of the first rule matching relPath, and false when none does. Compile
// must have been called.
func (v *ValidityRules) For(relPath string) (ValidityMark, bool) {
	for _, r := range v.Rules {
		if g := r.rules.GroupsFor(relPath); len(g) == 1 && g[0] == "match" {
			return ValidityMark{From: r.from, Until: r.until, Superseded: r.Superseded || r.SupersededBy != "" || !r.on.IsZero(),
				SupersededBy: r.SupersededBy, SupersededOn: r.on}, true
		}
	}
	return ValidityMark{}, false
}

func parseRuleDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date (YYYY-MM-DD or RFC 3339)", s)
	}
	return t, nil
}
