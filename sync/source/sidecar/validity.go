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

// ValidityName is the validity sidecar's file name: in a folder, it marks documents of its
// subtree as superseded or valid for a window, with the keys of a source's validity rules and
// globs relative to that folder. The nearest sidecar with a matching rule wins.
const ValidityName = ".cita-validity.yaml"

// ValidityResolver gives paths the validity marks of their nearest validity sidecars, reading
// each folder's sidecar at most once. Construct one per listing with NewValidityResolver; it is
// safe for concurrent use.
type ValidityResolver struct {
	read  ReadFunc
	mu    sync.Mutex
	byDir map[string]*config.ValidityRules // nil value: no sidecar in that folder
	errs  map[string]error
}

// NewValidityResolver returns a resolver reading validity sidecars with read (called with the
// folder; it must read ValidityName there).
func NewValidityResolver(read ReadFunc) *ValidityResolver {
	return &ValidityResolver{read: read, byDir: map[string]*config.ValidityRules{}, errs: map[string]error{}}
}

// For returns the mark the nearest matching sidecar gives rel, false when none applies, or an
// error when a sidecar on the way cannot be read or parsed.
func (r *ValidityResolver) For(ctx context.Context, rel string) (config.ValidityMark, bool, error) {
	dir := path.Dir(rel)
	for {
		rules, err := r.load(ctx, dir)
		if err != nil {
			return config.ValidityMark{}, false, err
		}
		if rules != nil {
			inner := rel
			if dir != "." {
				inner = strings.TrimPrefix(rel, dir+"/")
			}
			if m, ok := rules.For(inner); ok {
				return m, true, nil
			}
		}
		if dir == "." {
			return config.ValidityMark{}, false, nil
		}
		dir = path.Dir(dir)
	}
}

func (r *ValidityResolver) load(ctx context.Context, dir string) (*config.ValidityRules, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rules, ok := r.byDir[dir]; ok {
		return rules, nil
	}
	if err, ok := r.errs[dir]; ok {
		return nil, err
	}
	data, found, err := r.read(ctx, dir)
	var rules *config.ValidityRules
	if err == nil && found {
		rules, err = parseValidity(data)
	}
	if err != nil {
		err = fmt.Errorf("validity sidecar %s: %w", path.Join(dir, ValidityName), err)
		r.errs[dir] = err
		return nil, err
	}
	r.byDir[dir] = rules
	return rules, nil
}

// parseValidity reads a validity sidecar's YAML; unknown keys are errors.
func parseValidity(data []byte) (*config.ValidityRules, error) {
	var rules config.ValidityRules
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&rules); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := rules.Compile(); err != nil {
		return nil, err
	}
	return &rules, nil
}
