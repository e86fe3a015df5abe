// Package source holds the folder connector (a local or mounted drive); the Google Drive and S3
// connectors live in its subpackages gdrive and s3. Each lists a source as indexer.Items with
// cheap fingerprints, access groups, and an Open that reads the content only when needed.
package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/indexer"
)

// SidecarName is the file that gives a folder's subtree its access groups.
const SidecarName = ".cita-access.yaml"

// Folder lists a folder tree; fingerprints are size + mtime, with the content hash as the final
// word in the indexer. Construct it with NewFolder.
type Folder struct {
	root     string
	urlBase  string
	rules    config.AccessRules
	sidecars bool
	logger   *slog.Logger
}

// NewFolder returns the connector of cfg.Folder. It returns an error when the access rules do
// not compile.
func NewFolder(cfg config.SourceConfig, logger *slog.Logger) (*Folder, error) {
	rules := cfg.Access
	if err := rules.Compile(); err != nil {
		return nil, fmt.Errorf("source %s access: %w", cfg.Name, err)
	}
	root, err := filepath.Abs(cfg.Folder.Path)
	if err != nil {
		return nil, fmt.Errorf("source %s folder.path: %w", cfg.Name, err)
	}
	return &Folder{root: root, urlBase: cfg.Folder.URLBase, rules: rules, sidecars: cfg.Folder.Sidecars, logger: logger}, nil
}

// List walks the folder. complete is false when part of the tree could not be read; err is set
// when the root itself cannot be read.
func (f *Folder) List(ctx context.Context) ([]indexer.Item, bool, error) {
	sc := &sidecarCache{root: f.root, byDir: map[string]*sidecar{}}
	groups := func(rel string) []string {
		if f.sidecars {
			g, err := sc.groupsFor(rel)
			if err != nil {
				// A broken sidecar must not widen access: no groups fails the document, which
				// keeps its previous version and groups.
				f.logger.WarnContext(ctx, "access sidecar unreadable", slog.String("document", rel), slog.String("error", err.Error()))
				return nil
			}
			if g != nil {
				return g
			}
		}
		return f.rules.GroupsFor(rel)
	}
	items, complete, err := indexer.ListFolder(ctx, f.root, groups)
	if err != nil {
		return nil, false, err
	}
	if f.urlBase != "" {
		for i := range items {
			items[i].URL = joinURL(f.urlBase, items[i].ExternalID)
		}
	}
	return items, complete, nil
}

func joinURL(base, rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.TrimSuffix(base, "/") + "/" + strings.Join(parts, "/")
}

// fallThrough stands for "no default groups" in a sidecar: unmatched paths go on to the
// enclosing sidecar or the source's rules. It cannot be a real group (NUL byte).
const fallThrough = "\x00fall-through"

// sidecar is one parsed .cita-access.yaml: rules relative to its folder, and the default groups
// of its subtree (none: unmatched paths fall through to the enclosing sidecar or the source).
type sidecar struct {
	rules config.AccessRules
}

// sidecarCache loads each folder's sidecar at most once per listing.
type sidecarCache struct {
	root  string
	mu    sync.Mutex
	byDir map[string]*sidecar // nil value: no sidecar in that folder
	errs  map[string]error
}

// groupsFor returns the groups the nearest sidecars give rel, nil when none applies, or an
// error when a sidecar on the way cannot be read.
func (c *sidecarCache) groupsFor(rel string) ([]string, error) {
	dir := path.Dir(rel)
	for {
		sc, err := c.load(dir)
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

func (c *sidecarCache) load(dir string) (*sidecar, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc, ok := c.byDir[dir]; ok {
		return sc, nil
	}
	if err, ok := c.errs[dir]; ok {
		return nil, err
	}
	file := filepath.Join(c.root, filepath.FromSlash(dir), SidecarName)
	sc, err := readSidecar(file)
	if err != nil {
		if c.errs == nil {
			c.errs = map[string]error{}
		}
		c.errs[dir] = err
		return nil, err
	}
	c.byDir[dir] = sc
	return sc, nil
}

// readSidecar parses a sidecar file; a missing file is (nil, nil).
func readSidecar(file string) (*sidecar, error) {
	raw, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	var sc sidecar
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&sc.rules); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	noDefault := len(sc.rules.DefaultGroups) == 0
	if err := sc.rules.Compile(); err != nil { // checks every group name
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if noDefault {
		sc.rules.DefaultGroups = []string{fallThrough} // in place of Compile's "everyone"
	}
	return &sc, nil
}
