// Package indexer keeps one source's documents in the index equal to a listing of that source:
// it adds and re-indexes changed items (extract -> chunk -> embed -> one transaction per
// document), updates access groups without re-embedding, withholds documents whose access cannot
// be resolved, and deletes what the listing no longer holds, but only after a listing that
// completed.
package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/lang"
	"github.com/citahq/cita/sync/chunk"
	"github.com/citahq/cita/sync/extract"
)

// Store is what the indexer needs of the index.
type Store interface {
	Documents(ctx context.Context, source string) (map[string]rag.DocumentState, error)
	ReplaceDocument(ctx context.Context, doc rag.Document, chunks []rag.Chunk) (id, version int64, err error)
	DeleteDocuments(ctx context.Context, source string, externalIDs []string) (int64, error)
	SetGroups(ctx context.Context, source, externalID string, groups []string) error
	WithholdDocument(ctx context.Context, source, externalID, reason string) error
	SetFingerprint(ctx context.Context, source, externalID, fingerprint string) error
	CompactStats(ctx context.Context) (int64, error)
}

// Item is one document as a source lists it.
type Item struct {
	ExternalID  string    // stable id within the source: a relative path, a Drive file id, an S3 key
	Name        string    // file name with extension: picks the extractor and the fallback title
	URL         string    // link shown with citations; may be empty
	Owner       string    // fallback owner when the document names none
	Modified    time.Time // the source's modification time
	Size        int64
	Fingerprint string   // cheap change marker; empty forces a content read
	Groups      []string // access groups for this item
	// AccessErr says why the item's access could not be resolved (an unreadable sidecar, no
	// mappable permission). With AccessErr set, or no group, the item is withheld: readable by
	// nobody until a later listing resolves its access.
	AccessErr error
	// Validity is what the source says of the item's validity beyond its content (a path rule
	// such as "archive/**", a validity sidecar, Drive or S3 metadata); it overrides the fields
	// the document itself sets (front matter, properties) where it sets them.
	Validity rag.Validity
	// Open reads the item's content. It is called only when the fingerprint changed.
	Open func(ctx context.Context) ([]byte, error)
}

// Options configures an Indexer.
type Options struct {
	Chunk      chunk.Options
	Limits     extract.Limits
	EmbedBatch int // texts per embedding call, batched across documents; default 256
	Writers    int // documents written at once, each in its own transaction; default 4
	// BulkThreshold is how many items a run must list, into an index without any vector of the
	// model yet, for the indexer to build the vector index once after loading instead of
	// maintaining it row by row; default 500.
	BulkThreshold int
	DryRun        bool
	// MaxDeleteFraction is the share of a source's documents a pass may delete; a pass that
	// would delete more (beyond MassDeleteFloor documents), or all of them, deletes nothing.
	// nil means DefaultMaxDeleteFraction.
	MaxDeleteFraction *float64
	// AllowMassDelete confirms this pass's deletions whatever their number.
	AllowMassDelete bool
	// IgnoreValidity indexes every document as always valid, whatever its metadata or the
	// source's rules say: only for measuring what answers do without validity (the validity set).
	IgnoreValidity bool
	// Progress, when set, is called after each item with the number done and the total.
	Progress func(done, total int, item string)
}

// Indexer syncs listings into a Store. Construct it with New.
type Indexer struct {
	store    Store
	embedder rag.Embedder
	opts     Options
	logger   *slog.Logger
}

// New returns an indexer writing to store and embedding with embedder.
func New(store Store, embedder rag.Embedder, opts Options, logger *slog.Logger) *Indexer {
	if opts.EmbedBatch <= 0 {
		opts.EmbedBatch = 256
	}
	if opts.Writers <= 0 {
		opts.Writers = 4
	}
	if opts.BulkThreshold <= 0 {
		opts.BulkThreshold = 500
	}
	return &Indexer{store: store, embedder: embedder, opts: opts, logger: logger}
}

// Failure is one item that could not be indexed; its previous version, if any, stays indexed.
type Failure struct {
	ExternalID string
	Err        error
}

// Withheld is one listed item whose access could not be resolved: its indexed version, if any,
// is readable by nobody until its access resolves; a new item is not indexed.
type Withheld struct {
	ExternalID string
	Reason     string
}

// Report counts what a run did.
type Report struct {
	Listed, Added, Changed, Unchanged, Deleted, ACLOnly, Chunks int
	Failed                                                      []Failure
	Withheld                                                    []Withheld
	Took                                                        time.Duration
	// BulkLoad is true when the run was a first, bulk load (vector index built once at the end).
	BulkLoad bool
	// Known is how many documents of the source were indexed before the pass.
	Known int
	// DeletesBlocked is how many deletions the mass-deletion guard held back (then Deleted is 0).
	DeletesBlocked int
	// ChangedModified are the source modification times of the documents added or changed, for
	// measuring how long a change took to reach the index.
	ChangedModified []time.Time
	// Changes are the indexed documents whose content the pass replaced or that it deleted (not
	// new documents, nor access-only changes), for the notices in the threads that cited them.
	// Empty for a dry run.
	Changes []Change
}

// Kinds of Change.
const (
	ChangeUpdated = "updated"
	ChangeDeleted = "deleted"
)

// Change is one indexed document whose content a pass replaced (ChangeUpdated, with its new
// Version and the source's modification time) or that it deleted (ChangeDeleted, with the time
// of the deletion).
type Change struct {
	DocumentID int64
	Kind       string
	Version    int64
	At         time.Time
}

// prepared is an item read, extracted and chunked, waiting for its embeddings.
type prepared struct {
	item   Item
	doc    rag.Document
	chunks []rag.Chunk
	isNew  bool
}

// Sync makes the source's indexed documents equal to items. complete says the listing finished
// without error: only then are documents missing from it deleted, and only when they are not a
// mass deletion (see MaxDeleteFraction; Report.DeletesBlocked counts the deletions held back).
// It returns an error only when the index itself cannot be read or written; per-item problems
// are in Report.Failed and Report.Withheld.
func (ix *Indexer) Sync(ctx context.Context, source string, items []Item, complete bool) (*Report, error) {
	return ix.pass(ctx, source, items, true, func(known map[string]rag.DocumentState) []string {
		if !complete {
			return nil // unknown, not gone
		}
		listed := make(map[string]bool, len(items))
		for _, it := range items {
			listed[it.ExternalID] = true
		}
		var gone []string
		for id := range known {
			if !listed[id] {
				gone = append(gone, id)
			}
		}
		return gone
	})
}

// pass is the walk Sync and SyncChanges share: finish a crashed bulk load, read what the source
// has indexed, index items (as a bulk load when mayBulkLoad and the run is large enough), then
// delete what goneOf says is gone of the indexed documents (subject to the mass-deletion guard)
// and fold the term statistics. It returns an error only when the index itself cannot be read
// or written (or ctx ends).
func (ix *Indexer) pass(ctx context.Context, source string, items []Item, mayBulkLoad bool, goneOf func(known map[string]rag.DocumentState) []string) (*Report, error) {
	start := time.Now()
	rep := &Report{Listed: len(items)}
	if err := ix.recoverBulkLoad(ctx); err != nil {
		return nil, err
	}
	known, err := ix.store.Documents(ctx, source)
	if err != nil {
		return nil, err
	}
	rep.Known = len(known)
	if mayBulkLoad {
		end, err := ix.beginBulkLoad(ctx, len(items))
		if err != nil {
			return nil, err
		}
		if end != nil {
			rep.BulkLoad = true
			// Finished whatever happens to the run, so the index never stays without its vector
			// index or its statistics; a crash leaves that to the next start.
			defer func() {
				if err := end(context.WithoutCancel(ctx)); err != nil {
					ix.logger.ErrorContext(ctx, "finish bulk load", slog.String("error", err.Error()))
				}
			}()
		}
	}
	if err := ix.indexItems(ctx, source, items, known, rep); err != nil {
		return rep, err
	}
	if err := ix.deleteGone(ctx, source, goneOf(known), known, rep); err != nil {
		return rep, err
	}
	if err := ix.compact(ctx, rep); err != nil {
		return rep, err
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// indexItems prepares each item (read, extract, chunk, or an in-place group change) and writes
// them in batches whose embeddings are computed together across documents.
func (ix *Indexer) indexItems(ctx context.Context, source string, items []Item, known map[string]rag.DocumentState, rep *Report) error {
	var batch []prepared
	batchTexts := 0
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		if reason := accessProblem(it); reason != "" {
			// Not a per-item failure: a withhold that cannot be written must stop the run,
			// since the document would stay readable by its old groups.
			if err := ix.withhold(ctx, source, it, reason, known, rep); err != nil {
				return err
			}
		} else if err := ix.narrowFirst(ctx, source, it, known); err != nil {
			// Like a withhold: the document would keep groups its source no longer gives.
			return err
		} else if p, err := ix.prepare(ctx, source, it, known, rep); err != nil {
			rep.Failed = append(rep.Failed, Failure{ExternalID: it.ExternalID, Err: err})
			ix.logger.WarnContext(ctx, "document skipped", slog.String("source", source), slog.String("document", it.ExternalID), slog.String("error", err.Error()))
		} else if p != nil {
			batch = append(batch, *p)
			batchTexts += len(p.chunks)
			if batchTexts >= ix.opts.EmbedBatch {
				if err := ix.writeBatch(ctx, source, batch, rep); err != nil {
					return err
				}
				batch, batchTexts = batch[:0], 0
			}
		}
		if ix.opts.Progress != nil {
			ix.opts.Progress(i+1, len(items), it.ExternalID)
		}
	}
	return ix.writeBatch(ctx, source, batch, rep)
}

// compact folds the run's term-statistics deltas into the vocabulary when anything changed.
func (ix *Indexer) compact(ctx context.Context, rep *Report) error {
	if ix.opts.DryRun || rep.Added+rep.Changed+rep.Deleted == 0 {
		return nil
	}
	_, err := ix.store.CompactStats(ctx)
	return err
}

// prepare decides what an item with known access needs. It returns nil when nothing is to be
// embedded (unchanged, or an access-group change applied in place).
func (ix *Indexer) prepare(ctx context.Context, source string, it Item, known map[string]rag.DocumentState, rep *Report) (*prepared, error) {
	groups, err := rag.CleanGroups(it.Groups)
	if err != nil {
		// Checked before (accessProblem): an item whose groups are not valid is withheld.
		return nil, fmt.Errorf("access groups: %w", err)
	}
	// The source's validity counts as content: a rule that starts or stops marking the item
	// re-indexes it (rare), so the index never keeps a window its sources no longer give.
	vkey := validityKey(it)
	it.Fingerprint = effectiveFingerprint(it)
	state, exists := known[it.ExternalID]
	sameGroups := exists && state.AccessError == "" && slices.Equal(state.Groups, groups)
	if exists && it.Fingerprint != "" && state.Fingerprint == it.Fingerprint {
		return nil, ix.groupsOnly(ctx, source, it, sameGroups, groups, rep)
	}
	data, err := it.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	hash := contentHash(data) + vkey
	if exists && state.ContentHash == hash {
		if !ix.opts.DryRun && it.Fingerprint != "" {
			if err := ix.store.SetFingerprint(ctx, source, it.ExternalID, it.Fingerprint); err != nil {
				return nil, err
			}
		}
		return nil, ix.groupsOnly(ctx, source, it, sameGroups, groups, rep)
	}
	doc, err := extract.Extract(ctx, it.Name, data, ix.opts.Limits)
	if err != nil {
		return nil, err
	}
	pieces := chunk.Split(doc, ix.opts.Chunk)
	if len(pieces) == 0 {
		return nil, errors.New("no text to index (empty document, or an image-only file)")
	}
	var sample strings.Builder
	chunks := make([]rag.Chunk, len(pieces))
	for i, p := range pieces {
		chunks[i] = rag.Chunk{Position: i, Heading: p.Heading, Section: p.Section, Locator: p.Locator, Content: p.Content, Groups: groups}
		if sample.Len() < 4096 {
			sample.WriteString(p.Content)
			sample.WriteString("\n")
		}
	}
	updated := doc.Modified
	if updated.IsZero() {
		updated = it.Modified
	}
	owner := doc.Author
	if owner == "" {
		owner = it.Owner
	}
	validity := doc.Validity.Merge(it.Validity)
	if ix.opts.IgnoreValidity {
		validity = rag.Validity{}
	}
	if err := validity.Validate(); err != nil {
		return nil, fmt.Errorf("validity: %w", err)
	}
	return &prepared{
		item: it,
		doc: rag.Document{
			Source: source, ExternalID: it.ExternalID, Title: doc.Title, URL: it.URL, Owner: owner,
			Lang: lang.Detect(doc.Title + "\n" + sample.String()), UpdatedAt: updated, ContentHash: hash,
			Groups: groups, Fingerprint: it.Fingerprint, Validity: validity,
		},
		chunks: chunks,
		isNew:  !exists,
	}, nil
}

func (ix *Indexer) groupsOnly(ctx context.Context, source string, it Item, same bool, groups []string, rep *Report) error {
	if same {
		rep.Unchanged++
		return nil
	}
	if !ix.opts.DryRun {
		if err := ix.store.SetGroups(ctx, source, it.ExternalID, groups); err != nil {
			return err
		}
	}
	rep.ACLOnly++
	return nil
}

// writeBatch embeds the batch's chunks in batched calls, then writes each document in its own
// transaction. An embedding failure fails every document of the batch (their previous versions
// stay); a write failure fails that document only.
func (ix *Indexer) writeBatch(ctx context.Context, source string, batch []prepared, rep *Report) error {
	if len(batch) == 0 {
		return nil
	}
	var texts []string
	for _, p := range batch {
		for _, c := range p.chunks {
			texts = append(texts, c.Text())
		}
	}
	var vecs [][]float32
	var embedErr error
	if !ix.opts.DryRun {
		vecs, embedErr = ix.embedAll(ctx, texts)
	}
	if embedErr != nil {
		for _, p := range batch {
			rep.Failed = append(rep.Failed, Failure{ExternalID: p.item.ExternalID, Err: fmt.Errorf("embed: %w", embedErr)})
		}
	} else {
		offset := 0
		for _, p := range batch {
			for i := range p.chunks {
				if !ix.opts.DryRun {
					p.chunks[i].Embedding = vecs[offset+i]
				}
			}
			offset += len(p.chunks)
		}
		// Documents are written concurrently, one transaction each: a PostgreSQL backend per
		// writer keeps both cores busy with HNSW and GIN maintenance.
		var mu sync.Mutex
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(ix.opts.Writers)
		for _, p := range batch {
			g.Go(func() error {
				var id, version int64
				if !ix.opts.DryRun {
					var err error
					if id, version, err = ix.store.ReplaceDocument(gctx, p.doc, p.chunks); err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						mu.Lock()
						rep.Failed = append(rep.Failed, Failure{ExternalID: p.item.ExternalID, Err: err})
						mu.Unlock()
						return nil
					}
				}
				mu.Lock()
				defer mu.Unlock()
				rep.Chunks += len(p.chunks)
				if !p.item.Modified.IsZero() {
					rep.ChangedModified = append(rep.ChangedModified, p.item.Modified)
				}
				if p.isNew {
					rep.Added++
				} else {
					rep.Changed++
					if !ix.opts.DryRun {
						rep.Changes = append(rep.Changes, Change{DocumentID: id, Kind: ChangeUpdated, Version: version, At: p.doc.UpdatedAt})
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
	}
	if embedErr != nil {
		ix.logger.ErrorContext(ctx, "embedding failed; documents keep their previous version",
			slog.String("source", source), slog.Int("documents", len(batch)), slog.String("error", embedErr.Error()))
	}
	return nil
}

func (ix *Indexer) embedAll(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += ix.opts.EmbedBatch {
		end := min(start+ix.opts.EmbedBatch, len(texts))
		vecs, err := ix.embedder.Embed(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		if len(vecs) != end-start {
			return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), end-start)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
