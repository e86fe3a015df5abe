// Package sidecar reads .cita-access.yaml files: one in a folder (a directory of a local tree, a
// key prefix of a bucket) gives the documents of its subtree their access groups, with the same
// keys as a source's access rules and globs relative to that folder. The nearest sidecar wins; a
// path it does not match, and for which it has no default_groups, falls through to the enclosing
// sidecar, then to the source's rules.
package sidecar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/citahq/cita/config"
)

// Name is the sidecar's file name.
const Name = ".cita-access.yaml"

// ReadFunc returns the sidecar of a folder ("." is the root; others are slash-separated and
// relative), found false when the folder has none, or an error when it cannot tell.
type ReadFunc func(ctx context.Context, dir string) (data []byte, found bool, err error)

// fallThrough stands for "no default groups" in a sidecar: unmatched paths go on to the
// enclosing sidecar or the source's rules. It cannot be a real group (NUL byte).
const fallThrough = "\x00fall-through"

// file is one parsed sidecar: rules relative to its folder, and the default groups of its
// subtree (none: unmatched paths fall through).
type file struct {
	rules config.AccessRules
}

// Resolver gives paths the groups of their nearest sidecars, reading each folder's sidecar at
// most once (successes and failures alike). Construct one per listing with NewResolver; it is
// safe for concurrent use.
type Resolver struct {
	read  ReadFunc
	mu    sync.Mutex
	byDir map[string]*file // nil value: no sidecar in that folder
	errs  map[string]error
}

// NewResolver returns a resolver reading sidecars with read.
func NewResolver(read ReadFunc) *Resolver {
	return &Resolver{read: read, byDir: map[string]*file{}, errs: map[string]error{}}
}

// GroupsFor returns the groups the nearest sidecars give rel (a slash-separated path relative to
// the root), nil when none applies, or an error when a sidecar on the way cannot be read or
// parsed: the path's access is then unknown, and must not fall through to wider rules.
func (r *Resolver) GroupsFor(ctx context.Context, rel string) ([]string, error) {
	dir := path.Dir(rel)
	for {
		sc, err := r.load(ctx, dir)
		if err != nil {
			return nil, err
		}
		if sc != nil {
			inner := rel
			if dir != "." {
				inner = strings.TrimPrefix(rel, dir+"/")
			}
			if g := sc.rules.GroupsFor(inner); len(g) != 1 || g[0] != fallThrough {
				return g, nil
			}
		}
		if dir == "." {
			return nil, nil
		}
		dir = path.Dir(dir)
	}
}

func (r *Resolver) load(ctx context.Context, dir string) (*file, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sc, ok := r.byDir[dir]; ok {
		return sc, nil
	}
	if err, ok := r.errs[dir]; ok {
		return nil, err
	}
	data, found, err := r.read(ctx, dir)
	var sc *file
	if err == nil && found {
		sc, err = parse(data)
	}
	if err != nil {
		err = fmt.Errorf("access sidecar %s: %w", path.Join(dir, Name), err)
		r.errs[dir] = err
		return nil, err
	}
	r.byDir[dir] = sc
	return sc, nil
}

// parse reads a sidecar's YAML; unknown keys are errors (a typo must not silently widen access).
func parse(data []byte) (*file, error) {
	var sc file
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&sc.rules); err != nil && !errors.Is(err, io.EOF) {
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
