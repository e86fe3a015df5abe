// Package sidecar reads .cita-access.yaml files: one in a folder (a directory of a local tree, a
// key prefix of a bucket) gives the documents of its subtree their access groups, with the same
// keys as a source's access rules and globs relative to that folder. The nearest sidecar wins; a
// path it does not match, and for which it has no default_groups, falls through to the enclosing
// sidecar, then to the source's rules.
package sidecar

import (
	"context"

	"github.com/citahq/cita/config"
)

// Name is the sidecar's file name.
const Name = ".cita-access.yaml"

// ReadFunc returns the sidecar called name of a folder ("." is the root; others are
// slash-separated and relative), found false when the folder has none, or an error when it
// cannot tell.
type ReadFunc func(ctx context.Context, dir, name string) (data []byte, found bool, err error)

// fallThrough stands for "no default groups" in a sidecar: unmatched paths go on to the
// enclosing sidecar or the source's rules. It cannot be a real group (NUL byte).
const fallThrough = "\x00fall-through"

// file is one parsed sidecar: rules relative to its folder, and the default groups of its
// subtree (none: unmatched paths fall through).
type file struct {
	rules config.AccessRules
}

// Resolver gives paths what their nearest sidecars say: access groups (Name) and validity marks
// (ValidityName). It reads each folder's sidecar of either kind at most once, and only when asked
// of that kind. Construct one per listing with NewResolver; it is safe for concurrent use.
type Resolver struct {
	access   *nearest[file]
	validity *nearest[config.ValidityRules]
}

// NewResolver returns a resolver reading sidecars with read.
func NewResolver(read ReadFunc) *Resolver {
	return &Resolver{
		access:   newNearest(read, Name, "access sidecar", parse),
		validity: newNearest(read, ValidityName, "validity sidecar", parseValidity),
	}
}

// GroupsFor returns the groups the nearest sidecars give rel (a slash-separated path relative to
// the root), nil when none applies, or an error when a sidecar on the way cannot be read or
// parsed: the path's access is then unknown, and must not fall through to wider rules.
func (r *Resolver) GroupsFor(ctx context.Context, rel string) ([]string, error) {
	var groups []string
	err := r.access.walk(ctx, rel, func(sc *file, inner string) bool {
		g := sc.rules.GroupsFor(inner)
		if len(g) == 1 && g[0] == fallThrough {
			return false
		}
		groups = g
		return true
	})
	if err != nil {
		return nil, err
	}
	return groups, nil
}

// parse reads a sidecar's YAML; unknown keys are errors (a typo must not silently widen access).
func parse(data []byte) (*file, error) {
	var sc file
	if err := decodeStrict(data, &sc.rules); err != nil {
		return nil, err
	}
	noDefault := len(sc.rules.DefaultGroups) == 0
	if err := sc.rules.Compile(); err != nil { // checks every group name
		return nil, err
	}
	if noDefault {
		sc.rules.DefaultGroups = []string{fallThrough} // in place of Compile's "everyone"
	}
	return &sc, nil
}
