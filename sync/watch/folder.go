// Package watch turns file-system events in a folder source's tree into sync passes within
// seconds (fsnotify), in addition to the source's cron schedule, which stays the safety net: a
// missed event (an overflowing queue, a network mount that sends none) waits for the next
// scheduled pass, never longer.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is how long a watcher waits after the last event of a burst before it asks
// for a pass; DefaultMaxWait caps the wait under a steady stream of events.
const (
	DefaultDebounce = 300 * time.Millisecond
	DefaultMaxWait  = 2 * time.Second
)

// ChangeFunc is called once per burst of events with the time of the burst's first event and
// the number of events. It runs on the watcher's goroutine: it must not block for long.
type ChangeFunc func(ctx context.Context, firstAt time.Time, events int)

// Folder watches a tree. Construct it with NewFolder and run it with Run.
type Folder struct {
	root     string
	debounce time.Duration
	maxWait  time.Duration
	onChange ChangeFunc
	logger   *slog.Logger
	ready    chan struct{}
}

// NewFolder returns a watcher of root calling onChange after each burst of changes; debounce 0
// means DefaultDebounce.
func NewFolder(root string, debounce time.Duration, onChange ChangeFunc, logger *slog.Logger) *Folder {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	return &Folder{root: root, debounce: debounce, maxWait: max(DefaultMaxWait, 4*debounce), onChange: onChange, logger: logger,
		ready: make(chan struct{})}
}

// Ready is closed once Run watches the whole tree: a change made after it is seen. It is never
// closed when Run fails to start watching.
func (f *Folder) Ready() <-chan struct{} { return f.ready }

// Run watches until ctx ends. It returns an error when the tree cannot be watched at all
// (fsnotify unavailable, root unreadable); folders that appear later are watched as they are
// created. A watch queue overflow is reported as a change (the next pass lists everything).
func (f *Folder) Run(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", f.root, err)
	}
	defer w.Close()
	if err := f.addTree(w, f.root); err != nil {
		return err
	}
	close(f.ready)
	var (
		timer   *time.Timer
		fire    <-chan time.Time
		firstAt time.Time
		events  int
	)
	note := func() {
		now := time.Now()
		if events == 0 {
			firstAt = now
		}
		events++
		wait := f.debounce
		if deadline := firstAt.Add(f.maxWait); now.Add(wait).After(deadline) {
			wait = max(deadline.Sub(now), 0)
		}
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		fire = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if hidden(f.root, ev.Name) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					if err := f.addTree(w, ev.Name); err != nil {
						f.logger.WarnContext(ctx, "watch new folder", slog.String("folder", ev.Name), slog.String("error", err.Error()))
					}
				}
			}
			if ev.Op == fsnotify.Chmod {
				continue // metadata only: size+mtime fingerprints would not change
			}
			note()
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			f.logger.WarnContext(ctx, "folder watch error; the next pass lists everything", slog.String("folder", f.root), slog.String("error", err.Error()))
			note()
		case <-fire:
			fire = nil
			n := events
			events = 0
			f.onChange(ctx, firstAt, n)
		}
	}
}

// addTree watches dir and every folder below it, skipping hidden ones as the listing does.
func (f *Folder) addTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return fmt.Errorf("watch %s: %w", path, err)
			}
			return nil // an unreadable folder: the listing reports it
		}
		if !d.IsDir() {
			return nil
		}
		if path != f.root && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if err := w.Add(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("watch %s: %w", path, err)
		}
		return nil
	})
}

// hidden reports whether path lies in a hidden file or folder below root. Sidecars
// (.cita-access.yaml, .cita-validity.yaml) are hidden files that change what the listing gives,
// so they count as visible.
func hidden(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".cita-") {
			continue
		}
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}
