// Package source holds the folder connector (a local or mounted drive); the Google Drive and S3
// connectors live in its subpackages gdrive and s3. Each lists a source as indexer.Items with
// cheap fingerprints, access groups, and an Open that reads the content only when needed.
package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/source/sidecar"
)

// SidecarName is the file that gives a folder's subtree its access groups (see package sidecar).
const SidecarName = sidecar.Name

// Folder lists a folder tree; fingerprints are size + mtime, with the content hash as the final
// word in the indexer. Construct it with NewFolder.
type Folder struct {
	root     string
	urlBase  string
	rules    config.AccessRules
	validity config.ValidityRules
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
	validity := cfg.Validity
	if err := validity.Compile(); err != nil {
		return nil, fmt.Errorf("source %s validity: %w", cfg.Name, err)
	}
	root, err := filepath.Abs(cfg.Folder.Path)
	if err != nil {
		return nil, fmt.Errorf("source %s folder.path: %w", cfg.Name, err)
	}
	return &Folder{root: root, urlBase: cfg.Folder.URLBase, rules: rules, validity: validity, sidecars: cfg.Folder.Sidecars, logger: logger}, nil
}

// List walks the folder. complete is false when part of the tree could not be read; err is set
// when the root itself cannot be read. An item under a sidecar that cannot be read or parsed
// carries the error as its AccessErr (the indexer withholds it) instead of the source's rules:
// a broken sidecar must never widen access.
func (f *Folder) List(ctx context.Context) ([]indexer.Item, bool, error) {
	sidecars := sidecar.NewResolver(f.readSidecar)
	accessErrs := map[string]error{} // the walk calls groups from one goroutine
	groups := func(rel string) []string {
		if f.sidecars {
			g, err := sidecars.GroupsFor(ctx, rel)
			if err != nil {
				accessErrs[rel] = err
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
	for i := range items {
		items[i].AccessErr = accessErrs[items[i].ExternalID]
		items[i].Validity = f.validityFor(ctx, sidecars, items[i].ExternalID)
	}
	if f.urlBase != "" {
		for i := range items {
			items[i].URL = joinURL(f.urlBase, items[i].ExternalID)
		}
	}
	return items, complete, nil
}

// validityFor returns what the validity sidecars (when enabled), else the source's validity
// rules, say of rel. A validity sidecar that cannot be read or parsed marks the paths below it
// superseded until it parses: a broken sidecar must never make an archived document current.
func (f *Folder) validityFor(ctx context.Context, sidecars *sidecar.Resolver, rel string) rag.Validity {
	if f.sidecars {
		m, ok, err := sidecars.ValidityFor(ctx, rel)
		if err != nil {
			f.logger.WarnContext(ctx, "validity sidecar unreadable: its documents are not current until it parses",
				slog.String("document", rel), slog.String("error", err.Error()))
			return rag.Validity{Superseded: true}
		}
		if ok {
			return ValidityOf(m)
		}
	}
	if m, ok := f.validity.For(rel); ok {
		return ValidityOf(m)
	}
	return rag.Validity{}
}

// ValidityOf converts a configured validity mark to the index's form.
func ValidityOf(m config.ValidityMark) rag.Validity {
	return rag.Validity{From: m.From, Until: m.Until, Superseded: m.Superseded, SupersededBy: m.SupersededBy, SupersededOn: m.SupersededOn}
}

// readSidecar reads the sidecar called name of a folder from disk; a missing file is not found,
// not an error.
func (f *Folder) readSidecar(_ context.Context, dir, name string) ([]byte, bool, error) {
	data, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(dir), name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

func joinURL(base, rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.TrimSuffix(base, "/") + "/" + strings.Join(parts, "/")
}
