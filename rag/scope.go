// Package rag holds cita's domain: documents, chunks, access scopes, citations and the answering
// pipeline. It declares the small interfaces it needs (Embedder, Searcher, ChatModel, ...) and
// imports no SDK and no database driver; implementations live in subpackages.
package rag

import (
	"errors"
	"slices"
	"strings"
)

// ErrNoScope is returned by every search path when the asker's access scope is empty. An empty
// scope is never treated as "no filter".
var ErrNoScope = errors.New("empty access scope: the asker belongs to no access group")

// Scope is the set of access groups an asker may read. Groups are valid names (ValidateGroup),
// lower-cased, trimmed, sorted and deduplicated, so two scopes have equal Key values exactly when
// they hold the same groups.
type Scope struct {
	groups []string
	period Period // zero: documents current now (see WithPeriod)
}

// NewScope returns the scope of the given groups (blank ones are ignored). It returns an error
// wrapping ErrInvalidGroup, naming the group, when a name is not valid, and ErrNoScope when no
// group remains: callers that ignore the error get the empty scope, which reads nothing.
func NewScope(groups ...string) (Scope, error) {
	clean, err := CleanGroups(groups)
	if err != nil {
		return Scope{}, err
	}
	return Scope{groups: clean}, nil
}

// MustScope is NewScope for tests and constants; it panics on an empty or invalid scope.
func MustScope(groups ...string) Scope {
	s, err := NewScope(groups...)
	if err != nil {
		panic(err)
	}
	return s
}

// Groups returns a copy of the scope's groups, sorted.
func (s Scope) Groups() []string { return slices.Clone(s.groups) }

// Empty reports whether the scope has no group (the zero Scope).
func (s Scope) Empty() bool { return len(s.groups) == 0 }

// Key is the scope's unambiguous text form for keys ("3:eng;8:everyone"): every group is
// length-prefixed, so no two different scopes share a key, whatever their names hold.
func (s Scope) Key() string { return scopeKey(s.groups) }

// String is the readable form for logs and messages: the groups joined by commas
// ("eng,everyone"). Use Key, not String, where scopes must be told apart.
func (s Scope) String() string { return strings.Join(s.groups, ",") }

// Intersect returns the groups present in both scopes. The result may be empty: callers that
// search with it get ErrNoScope, which is the safe answer for a channel whose members share no group.
func (s Scope) Intersect(o Scope) Scope {
	var out []string
	for _, g := range s.groups {
		if _, ok := slices.BinarySearch(o.groups, g); ok {
			out = append(out, g)
		}
	}
	return Scope{groups: out, period: s.period}
}

// Contains reports whether group g is in the scope.
func (s Scope) Contains(g string) bool {
	_, ok := slices.BinarySearch(s.groups, normalizeGroup(g))
	return ok
}

// normalizeGroups lower-cases, trims, sorts and deduplicates group names, dropping blanks.
func normalizeGroups(groups []string) []string {
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		if g = normalizeGroup(g); g != "" {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func normalizeGroup(g string) string { return strings.ToLower(strings.TrimSpace(g)) }

// NormalizeGroups is the normalization Scope applies, without validation; code that stores groups
// on documents uses CleanGroups, which validates too.
func NormalizeGroups(groups []string) []string { return normalizeGroups(groups) }
