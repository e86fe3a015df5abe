package config

import (
	"fmt"
	"strings"
)

// groupAlphabet is the rule for access group names, a copy of rag.ValidateGroup's (config imports
// nothing of cita's; TestGroupRuleMatchesRag keeps the two equal).
const groupAlphabet = "1 to 256 characters of a-z, 0-9 and . _ - + ' @ : (lower-cased; e.g. hr, alice@example.com, domain:example.com)"

// checkGroup returns an error naming the group when name, lower-cased and trimmed, is not a
// valid access group name.
func checkGroup(name string) error {
	g := strings.ToLower(strings.TrimSpace(name))
	ok := g != "" && len(g) <= 256
	for i := 0; ok && i < len(g); i++ {
		c := g[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("._-+'@:", c) >= 0
	}
	if !ok {
		return fmt.Errorf("invalid access group name %q: use %s", name, groupAlphabet)
	}
	return nil
}

// checkGroups returns the first invalid name of groups as an error prefixed with field, or nil.
func checkGroups(field string, groups []string) error {
	for _, g := range groups {
		if err := checkGroup(g); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	}
	return nil
}

// checkGroupMap checks every value list of a map keyed by platform names (field[key]).
func checkGroupMap(field string, m map[string][]string) []error {
	var errs []error
	for k, groups := range m {
		if err := checkGroups(fmt.Sprintf("%s[%q]", field, k), groups); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
