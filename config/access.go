package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// AccessRules map document paths to access groups: the first rule whose glob matches a path
// (relative to the source root, with "/" separators) gives its groups; unmatched paths get
// DefaultGroups.
type AccessRules struct {
	DefaultGroups []string     `yaml:"default_groups"`
	Rules         []AccessRule `yaml:"rules"`
}

// AccessRule is one glob and its groups. In Match, "**" spans folders, "*" and "?" stay within
// one path segment.
type AccessRule struct {
	Match  string   `yaml:"match"`
	Groups []string `yaml:"groups"`
	re     *regexp.Regexp
}

// Compile validates the rules and their group names and prepares their globs. It returns an
// error naming the rule or field and the invalid group.
func (a *AccessRules) Compile() error {
	if len(a.DefaultGroups) == 0 {
		a.DefaultGroups = []string{"everyone"}
	}
	if err := checkGroups("default_groups", a.DefaultGroups); err != nil {
		return err
	}
	for i := range a.Rules {
		r := &a.Rules[i]
		if r.Match == "" {
			return fmt.Errorf("access rule %d: match is empty; give a glob such as \"hr/**\"", i+1)
		}
		if len(r.Groups) == 0 {
			return fmt.Errorf("access rule %d (%s): groups is empty; list at least one group", i+1, r.Match)
		}
		if err := checkGroups(fmt.Sprintf("access rule %d (%s)", i+1, r.Match), r.Groups); err != nil {
			return err
		}
		re, err := globRegexp(r.Match)
		if err != nil {
			return fmt.Errorf("access rule %d (%s): %w", i+1, r.Match, err)
		}
		r.re = re
	}
	return nil
}

// GroupsFor returns the groups for a relative path. Compile must have been called.
func (a *AccessRules) GroupsFor(relPath string) []string {
	relPath = strings.TrimPrefix(strings.ReplaceAll(relPath, "\\", "/"), "./")
	for _, r := range a.Rules {
		if r.re != nil && r.re.MatchString(relPath) {
			return append([]string(nil), r.Groups...)
		}
	}
	if len(a.DefaultGroups) == 0 {
		return []string{"everyone"}
	}
	return append([]string(nil), a.DefaultGroups...)
}

// globRegexp turns a glob with ** into an anchored regular expression.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' && i+1 < len(glob) && glob[i+1] == '*':
			i++
			if i+1 < len(glob) && glob[i+1] == '/' {
				i++
				b.WriteString("(?:.*/)?") // "a/**/b" matches "a/b" too
			} else {
				b.WriteString(".*")
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// LoadAccessRules reads a YAML file holding default_groups and rules, and compiles it.
func LoadAccessRules(path string) (AccessRules, error) {
	var a AccessRules
	raw, err := os.ReadFile(path)
	if err != nil {
		return a, fmt.Errorf("read access rules: %w", err)
	}
	if err := yaml.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("%s: %w", path, err)
	}
	if err := a.Compile(); err != nil {
		return a, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}
