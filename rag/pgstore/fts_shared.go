package pgstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/citahq/cita/rag"
)

// ftsStats is what a full-text search reads before scoring: the classes the scope may read,
// the readable corpus's size and average lengths, and each word's lexemes and frequencies.
type ftsStats struct {
	classes []int64
	n       map[string]int64
	avg     map[string]float64
	byWord  map[int][]queryTerm // by word number, 1-based
}

// askedStats hands a cross-lingual question's statistics from its full-text parts' first to
// its second. Both parts (rag.FTSAsked at once, rag.FTSExtra once the translation arrives)
// search the same words as asked, under the same scope: the second takes the first's readable
// classes, corpus size and asked words' lexemes instead of reading them again, and reads only
// the words the translation and its bridges add. Entries are keyed by the scope and the
// question, so a part only ever reuses statistics counted for its own scope; an entry is taken
// once, and never when older than askedStatsTTL (a second part that never came).
type askedStats struct {
	mu      sync.Mutex
	pending map[string]*askedEntry
	taken   atomic.Int64 // statistics reused, for tests
}

type askedEntry struct {
	at    time.Time
	ready chan struct{} // closed once stats or err is set
	stats ftsStats
	nWord int // how many words of byWord are the asked words
	err   error
}

// askedStatsTTL is how long the asked part's statistics wait for the translated part, which
// starts once the question is translated (the translator takes milliseconds, a few seconds
// when loaded). Past it the translated part reads its own.
const askedStatsTTL = 10 * time.Second

// maxAskedPending bounds the entries waiting: a burst of questions whose second part never
// comes cannot grow the map without bound.
const maxAskedPending = 4096

func askedKey(scope rag.Scope, text string) string { return scope.Key() + "\x00" + text }

// offer registers the asked part's statistics for key, to be filled by publish. A newer offer
// for the same key (the same question asked again under the same scope) replaces an older one:
// the freshest statistics are the ones taken.
func (a *askedStats) offer(key string, now time.Time) *askedEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil {
		a.pending = map[string]*askedEntry{}
	}
	if len(a.pending) >= maxAskedPending/2 {
		for k, e := range a.pending {
			if now.Sub(e.at) > askedStatsTTL {
				delete(a.pending, k)
			}
		}
		if len(a.pending) >= maxAskedPending {
			clear(a.pending)
		}
	}
	e := &askedEntry{at: now, ready: make(chan struct{})}
	a.pending[key] = e
	return e
}

// publish fills e with what the asked part read (nWord asked words), or with the error that
// kept it from reading them.
func (e *askedEntry) publish(stats ftsStats, nWord int, err error) {
	e.stats, e.nWord, e.err = stats, nWord, err
	close(e.ready)
}

// take returns, and forgets, the statistics the asked part offered for key, waiting for them
// while that part is still reading; ok is false when there are none to use.
func (a *askedStats) take(ctx context.Context, key string) (stats ftsStats, nWord int, ok bool) {
	a.mu.Lock()
	e := a.pending[key]
	delete(a.pending, key)
	a.mu.Unlock()
	if e == nil || time.Since(e.at) > askedStatsTTL {
		return ftsStats{}, 0, false
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return ftsStats{}, 0, false
	}
	if e.err != nil {
		return ftsStats{}, 0, false
	}
	a.taken.Add(1)
	return e.stats, e.nWord, true
}
