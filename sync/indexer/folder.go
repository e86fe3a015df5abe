package indexer

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/citahq/cita/sync/extract"
)

// GroupsFunc returns the access groups of a path relative to the folder root.
type GroupsFunc func(relPath string) []string

// ListFolder walks root and returns an Item per supported file, fingerprinted by size and mtime.
// Hidden files and folders are skipped. complete is false when part of the tree could not be
// read: the caller must then delete nothing.
func ListFolder(ctx context.Context, root string, groups GroupsFunc) (items []Item, complete bool, err error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, false, fmt.Errorf("open folder %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, false, fmt.Errorf("%s is not a folder", root)
	}
	complete = true
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			complete = false // an unreadable folder: its files are unknown, not gone
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		if path != root && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() || !extract.Supported(name) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			complete = false
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		p := path
		items = append(items, Item{
			ExternalID:  rel,
			Name:        name,
			URL:         "",
			Modified:    fi.ModTime(),
			Size:        fi.Size(),
			Fingerprint: fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano()),
			Groups:      groups(rel),
			Open:        func(context.Context) ([]byte, error) { return os.ReadFile(p) },
		})
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("walk %s: %w", root, err)
	}
	return items, complete, nil
}
