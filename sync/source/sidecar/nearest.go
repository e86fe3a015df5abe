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
)

// nearest walks a path's folders, from its own up to the root, over the sidecars of one name,
// reading and parsing each folder's sidecar at most once (successes and failures alike). It is
// safe for concurrent use.
type nearest[T any] struct {
	read  ReadFunc
	name  string // the sidecar's file name
	kind  string // what its errors call it: "access sidecar"
	parse func(data []byte) (*T, error)
	mu    sync.Mutex
	byDir map[string]*T // nil value: no sidecar in that folder
	errs  map[string]error
}

func newNearest[T any](read ReadFunc, name, kind string, parse func([]byte) (*T, error)) *nearest[T] {
	return &nearest[T]{read: read, name: name, kind: kind, parse: parse, byDir: map[string]*T{}, errs: map[string]error{}}
}

// walk calls match with each sidecar on rel's way up and rel relative to that sidecar's folder,
// nearest first, until match returns true. It returns an error when a sidecar on the way cannot
// be read or parsed: what rel gets is then unknown, and must not fall through to wider rules.
func (n *nearest[T]) walk(ctx context.Context, rel string, match func(sc *T, inner string) bool) error {
	dir := path.Dir(rel)
	for {
		sc, err := n.load(ctx, dir)
		if err != nil {
			return err
		}
		if sc != nil {
			inner := rel
			if dir != "." {
				inner = strings.TrimPrefix(rel, dir+"/")
			}
			if match(sc, inner) {
				return nil
			}
		}
		if dir == "." {
			return nil
		}
		dir = path.Dir(dir)
	}
}

func (n *nearest[T]) load(ctx context.Context, dir string) (*T, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if sc, ok := n.byDir[dir]; ok {
		return sc, nil
	}
	if err, ok := n.errs[dir]; ok {
		return nil, err
	}
	data, found, err := n.read(ctx, dir, n.name)
	var sc *T
	if err == nil && found {
		sc, err = n.parse(data)
	}
	if err != nil {
		err = fmt.Errorf("%s %s: %w", n.kind, path.Join(dir, n.name), err)
		n.errs[dir] = err
		return nil, err
	}
	n.byDir[dir] = sc
	return sc, nil
}

// decodeStrict decodes a sidecar's YAML into v; unknown keys are errors (a typo must not
// silently widen access or make an archived document current). An empty file decodes to nothing.
func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
