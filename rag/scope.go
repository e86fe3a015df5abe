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

// Scope is the set of access groups an asker may read. Groups are lower-cased, trimmed, sorted and
// deduplicated, so two equal scopes have equal Key values.
type Scope struct {
	groups []string
}

// NewScope returns the scope of the given groups, or ErrNoScope when no non-blank group remains.
func NewScope(groups ...string) (Scope, error) {
	s := Scope{groups: normalizeGroups(groups)}
	if len(s.groups) == 0 {
		return Scope{}, ErrNoScope
	}
	return s, nil
}

// MustScope is NewScope for tests and constants; it panics on an empty scope.
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

// Key is a stable text form of the scope ("eng,everyone"), used in cache keys and logs.
func (s Scope) Key() string { return strings.Join(s.groups, ",") }

// String is Key.
func (s Scope) String() string { return s.Key() }

// Intersect returns the groups present in both scopes. The result may be empty: callers that
// search with it get ErrNoScope, which is the safe answer for a channel whose members share no group.
func (s Scope) Intersect(o Scope) Scope {
	var out []string
	for _, g := range s.groups {
		if _, ok := slices.BinarySearch(o.groups, g); ok {
			out = append(out, g)
		}
	}
	return Scope{groups: out}
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

// NormalizeGroups is the normalization Scope applies, for code that stores groups on documents.
func NormalizeGroups(groups []string) []string { return normalizeGroups(groups) }
