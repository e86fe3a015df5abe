package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/rag"
)

// Answer cache defaults.
const (
	DefaultCacheTTL        = 24 * time.Hour
	DefaultCacheAbstainTTL = 10 * time.Minute
	defaultPruneEvery      = 100
)

// CacheOptions tunes a Cache.
type CacheOptions struct {
	// TTL is how long an answer is served; default DefaultCacheTTL.
	TTL time.Duration
	// AbstainTTL is how long an abstention is served (short: the index may grow); default
	// DefaultCacheAbstainTTL.
	AbstainTTL time.Duration
	// Variant names what produced the answers ("extractive", "gpt-4o-mini+rerank-v3.5"); it is
	// part of the key, so answers of another model or configuration are never served.
	Variant string
	// PruneEvery runs Prune after every n-th Store; 0 means every 100th, negative never.
	PruneEvery int
	// ChangeMargin: a tentative entry (an abstention, a hedged reply) is stale once a document
	// its scope may read changed after its search started, or up to this long before; default
	// DefaultChangeMargin.
	ChangeMargin time.Duration
}

// Cache is the answer cache in PostgreSQL (migrations/0004_answer_cache.sql); it implements
// rag.AnswerCache. A lookup is one statement that checks the key's parts, the TTL and, joining
// documents, the version of every cited document. Construct it with NewCache.
type Cache struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
	opts   CacheOptions
	stores atomic.Uint64
}

var _ rag.AnswerCache = (*Cache)(nil)

// NewCache returns a cache over pool with opts' zero fields defaulted.
func NewCache(pool *pgxpool.Pool, opts CacheOptions, logger *slog.Logger) *Cache {
	if opts.TTL <= 0 {
		opts.TTL = DefaultCacheTTL
	}
	if opts.AbstainTTL <= 0 {
		opts.AbstainTTL = DefaultCacheAbstainTTL
	}
	if opts.PruneEvery == 0 {
		opts.PruneEvery = defaultPruneEvery
	}
	if opts.ChangeMargin <= 0 {
		opts.ChangeMargin = DefaultChangeMargin
	}
	return &Cache{pool: pool, logger: logger, opts: opts}
}

// keyHash is the fixed-width unique key of an entry; each part is length-prefixed so no two
// different keys concatenate alike.
func (c *Cache) keyHash(key rag.CacheKey) []byte {
	h := sha256.New()
	for _, part := range []string{c.opts.Variant, key.Scope, key.Lang, key.Query} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return h.Sum(nil)
}

// DefaultChangeMargin widens a tentative entry's window back from its search's start: a
// document's changed_at is taken by the last statement of its indexing transaction, a moment
// before that commits, and a search that started in between did not see it.
const DefaultChangeMargin = time.Second

const lookupSQL = `
SELECT c.id, c.created_at, c.answer,
	c.created_at > now() - CASE WHEN c.tentative THEN $6::interval ELSE $7::interval END
		AND (c.expires_at IS NULL OR c.expires_at > now()),
	NOT EXISTS (
		SELECT 1 FROM answer_cache_documents a LEFT JOIN documents d ON d.id = a.document_id
		WHERE a.entry_id = c.id AND d.version IS DISTINCT FROM a.doc_version)
	-- A tentative reply ("not found", "the closest I found") is stale once a document the
	-- scope may read was added or changed since its search started: it may answer now.
	AND NOT (c.tentative AND (c.searched_at IS NULL OR EXISTS (
		SELECT 1 FROM documents d
		WHERE d.changed_at >= c.searched_at - $8::interval AND d.groups && c.groups)))
FROM answer_cache c
WHERE c.key_hash = $1 AND c.variant = $2 AND c.scope_key = $3 AND c.lang = $4 AND c.query_key = $5`

// Lookup implements rag.AnswerCache: it returns the entry stored under exactly key while it is
// within its TTL and every cited document still has the cited version, or nil on a miss. An entry
// found stale is deleted. A cached abstention's Search holds only the top hit it depended on, so
// callers that record which documents reached a reply still see it; other hits have a nil Search.
// It returns an error when the database cannot be read or the entry
// cannot be decoded.
func (c *Cache) Lookup(ctx context.Context, key rag.CacheKey) (*rag.Answer, error) {
	if !key.Valid() {
		return nil, nil
	}
	var (
		id           int64
		created      time.Time
		raw          []byte
		live, intact bool
	)
	err := c.pool.QueryRow(ctx, lookupSQL, c.keyHash(key), c.opts.Variant, key.Scope, key.Lang, key.Query,
		c.opts.AbstainTTL, c.opts.TTL, c.opts.ChangeMargin).Scan(&id, &created, &raw, &live, &intact)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up cached answer: %w", err)
	}
	if !live || !intact {
		// Only this version of the entry: a concurrent Store may have replaced it.
		if _, err := c.pool.Exec(ctx, `DELETE FROM answer_cache WHERE id = $1 AND created_at = $2`, id, created); err != nil {
			c.logger.WarnContext(ctx, "delete stale cached answer", slog.Int64("entry_id", id), slog.String("error", err.Error()))
		}
		return nil, nil
	}
	var stored storedAnswer
	if err := json.Unmarshal(raw, &stored); err != nil {
		return nil, fmt.Errorf("decode cached answer %d: %w", id, err)
	}
	return stored.answer(), nil
}

// Store implements rag.AnswerCache: it writes ans and the (document, version) pairs it depends on
// (its sources and, for an abstention, the top hit whose owner it may name) in one transaction, replacing any entry under key. Every PruneEvery-th call also prunes stale
// entries (a pruning error is logged). It returns an error when the entry cannot be written.
func (c *Cache) Store(ctx context.Context, key rag.CacheKey, ans *rag.Answer) error {
	if !key.Valid() {
		return errors.New("store cached answer: empty query or scope")
	}
	stored := newStoredAnswer(ans)
	raw, err := json.Marshal(stored)
	if err != nil {
		return fmt.Errorf("encode cached answer: %w", err)
	}
	docIDs, versions := citedVersions(stored.dependsOn())
	groups, err := key.Groups()
	if err != nil {
		return fmt.Errorf("store cached answer: %w", err)
	}
	err = pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `
			INSERT INTO answer_cache (key_hash, variant, scope_key, lang, query_key, abstained, answer, expires_at,
				tentative, groups, searched_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, (`+nextValidityBoundarySQL+`), $8, $9, clock_timestamp() - $10::interval)
			ON CONFLICT (key_hash) DO UPDATE SET variant = EXCLUDED.variant, scope_key = EXCLUDED.scope_key,
				lang = EXCLUDED.lang, query_key = EXCLUDED.query_key, abstained = EXCLUDED.abstained,
				answer = EXCLUDED.answer, created_at = now(), expires_at = EXCLUDED.expires_at,
				tentative = EXCLUDED.tentative, groups = EXCLUDED.groups, searched_at = EXCLUDED.searched_at
			RETURNING id`,
			c.keyHash(key), c.opts.Variant, key.Scope, key.Lang, key.Query, ans.Abstained, raw,
			ans.Abstained || ans.Hedged, groups, searchedAgo(ans)).Scan(&id)
		if err != nil {
			return fmt.Errorf("upsert entry: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM answer_cache_documents WHERE entry_id = $1`, id); err != nil {
			return fmt.Errorf("clear cited documents: %w", err)
		}
		if len(docIDs) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `INSERT INTO answer_cache_documents (entry_id, document_id, doc_version)
			SELECT $1, u.document_id, u.doc_version FROM unnest($2::bigint[], $3::bigint[]) AS u(document_id, doc_version)`,
			id, docIDs, versions)
		if err != nil {
			return fmt.Errorf("insert cited documents: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store cached answer: %w", err)
	}
	if n := c.opts.PruneEvery; n > 0 && c.stores.Add(1)%uint64(n) == 0 {
		if pruned, err := c.Prune(ctx); err != nil {
			c.logger.WarnContext(ctx, "prune answer cache", slog.String("error", err.Error()))
		} else if pruned > 0 {
			c.logger.DebugContext(ctx, "pruned answer cache", slog.Int64("entries", pruned))
		}
	}
	return nil
}

// nextValidityBoundarySQL is the next moment any indexed document enters or leaves its validity
// window: an answer written now may have cited, or missed, a document whose validity changes
// then with no new version, so the entry expires at that moment.
const nextValidityBoundarySQL = `SELECT min(b) FROM documents d,
	LATERAL (VALUES (d.valid_from), (d.valid_until), (d.superseded_on)) AS v(b) WHERE b > now()`

// citedVersions returns the distinct documents the sources cite with the version each was cited
// at. A document cited at two versions keeps the lower one, so the entry can never look fresh.
func citedVersions(sources []rag.Source) (docIDs, versions []int64) {
	at := map[int64]int{}
	for _, s := range sources {
		if i, ok := at[s.DocumentID]; ok {
			versions[i] = min(versions[i], s.DocVersion)
			continue
		}
		at[s.DocumentID] = len(docIDs)
		docIDs = append(docIDs, s.DocumentID)
		versions = append(versions, s.DocVersion)
	}
	return docIDs, versions
}

// Prune deletes entries past their TTL and entries citing a document that is gone or has changed
// since, and returns how many it deleted. Lookups never serve such entries anyway; pruning keeps
// the table small. It returns an error when the delete fails.
func (c *Cache) Prune(ctx context.Context) (int64, error) {
	tag, err := c.pool.Exec(ctx, `
		DELETE FROM answer_cache c
		WHERE c.created_at <= now() - CASE WHEN c.tentative THEN $1::interval ELSE $2::interval END
			OR c.expires_at <= now()
			OR EXISTS (
				SELECT 1 FROM answer_cache_documents a LEFT JOIN documents d ON d.id = a.document_id
				WHERE a.entry_id = c.id AND d.version IS DISTINCT FROM a.doc_version)`,
		c.opts.AbstainTTL, c.opts.TTL)
	if err != nil {
		return 0, fmt.Errorf("prune answer cache: %w", err)
	}
	return tag.RowsAffected(), nil
}

// storedAnswer is the jsonb form of a cached answer. Its field names are the stored format:
// rename them only with a migration that clears answer_cache.
type storedAnswer struct {
	Text             string         `json:"text"`
	Lang             string         `json:"lang"`
	Abstained        bool           `json:"abstained"`
	AbstainReason    string         `json:"abstain_reason,omitempty"`
	Hedged           bool           `json:"hedged,omitempty"`
	HedgeReason      string         `json:"hedge_reason,omitempty"`
	Evidence         float64        `json:"evidence"`
	Model            string         `json:"model,omitempty"`
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	Sources          []storedSource `json:"sources"`
	// Reached is an abstention's top hit: its owner may be named in the text, so the entry
	// depends on its version too, and a hit restores it as the answer's only search hit.
	Reached *storedSource `json:"reached,omitempty"`
	// Consulted are the other passages that reached the answer, uncited (its composer or model
	// read them): the entry depends on their versions too, and a hit restores them.
	Consulted []storedSource `json:"consulted,omitempty"`
}

type storedSource struct {
	N          int                 `json:"n"`
	ChunkID    int64               `json:"chunk_id"`
	DocumentID int64               `json:"document_id"`
	DocVersion int64               `json:"doc_version"`
	Title      string              `json:"title"`
	Heading    string              `json:"heading"`
	Section    string              `json:"section,omitempty"`
	Locator    string              `json:"locator,omitempty"`
	Content    string              `json:"content"`
	Path       string              `json:"path"`
	URL        string              `json:"url,omitempty"`
	Owner      string              `json:"owner,omitempty"`
	Lang       string              `json:"lang,omitempty"`
	UpdatedAt  time.Time           `json:"updated_at"`
	Score      float64             `json:"score"`
	ArmRank    map[rag.Arm]int     `json:"arm_rank,omitempty"`
	ArmScore   map[rag.Arm]float64 `json:"arm_score,omitempty"`
}

func newStoredAnswer(a *rag.Answer) storedAnswer {
	s := storedAnswer{Text: a.Text, Lang: a.Lang, Abstained: a.Abstained, AbstainReason: a.AbstainReason,
		Hedged: a.Hedged, HedgeReason: a.HedgeReason,
		Evidence: a.Evidence, Model: a.Usage.Model, PromptTokens: a.Usage.PromptTokens,
		CompletionTokens: a.Usage.CompletionTokens, Sources: make([]storedSource, len(a.Sources))}
	for i, src := range a.Sources {
		s.Sources[i] = newStoredSource(src.N, src.Hit)
	}
	if (a.Abstained || a.Hedged) && a.Search != nil && len(a.Search.Hits) > 0 {
		top := newStoredSource(0, a.Search.Hits[0])
		s.Reached = &top
	}
	for _, h := range a.Consulted {
		src := newStoredSource(0, h)
		src.Content = "" // only its document and version matter
		s.Consulted = append(s.Consulted, src)
	}
	return s
}

func newStoredSource(n int, h rag.Hit) storedSource {
	return storedSource{N: n, ChunkID: h.ChunkID, DocumentID: h.DocumentID, DocVersion: h.DocVersion,
		Title: h.Title, Heading: h.Heading, Section: h.Section, Locator: h.Locator, Content: h.Content, Path: h.Path,
		URL: h.URL, Owner: h.Owner, Lang: h.Lang, UpdatedAt: h.UpdatedAt, Score: h.Score, ArmRank: h.ArmRank,
		ArmScore: h.ArmScore}
}

func (src storedSource) hit() rag.Hit {
	return rag.Hit{ChunkID: src.ChunkID, DocumentID: src.DocumentID, DocVersion: src.DocVersion, Title: src.Title,
		Heading: src.Heading, Section: src.Section, Locator: src.Locator, Content: src.Content, Path: src.Path,
		URL: src.URL, Owner: src.Owner, Lang: src.Lang, UpdatedAt: src.UpdatedAt, Score: src.Score,
		ArmRank: src.ArmRank, ArmScore: src.ArmScore}
}

func (s storedAnswer) answer() *rag.Answer {
	a := &rag.Answer{Text: s.Text, Lang: s.Lang, Abstained: s.Abstained, AbstainReason: s.AbstainReason,
		Hedged: s.Hedged, HedgeReason: s.HedgeReason,
		Evidence: s.Evidence, Usage: rag.Usage{Model: s.Model, PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens}}
	for _, src := range s.Sources {
		a.Sources = append(a.Sources, rag.Source{N: src.N, Hit: src.hit()})
	}
	if s.Reached != nil {
		a.Search = &rag.SearchResult{Hits: []rag.Hit{s.Reached.hit()}}
	}
	for _, src := range s.Consulted {
		a.Consulted = append(a.Consulted, src.hit())
	}
	return a
}

// dependsOn is every hit whose version the entry's validity depends on: the cited sources and,
// for an abstention, the top hit whose owner it may name.
func (s storedAnswer) dependsOn() []rag.Source {
	out := make([]rag.Source, 0, len(s.Sources)+1)
	for _, src := range s.Sources {
		out = append(out, rag.Source{Hit: src.hit()})
	}
	if s.Reached != nil {
		out = append(out, rag.Source{Hit: s.Reached.hit()})
	}
	for _, src := range s.Consulted {
		out = append(out, rag.Source{Hit: src.hit()})
	}
	return out
}

// searchedAgo is how long ago ans's search started, for the database to date it by its own
// clock; an answer with no search time is dated now.
func searchedAgo(ans *rag.Answer) time.Duration {
	if ans.SearchedAt.IsZero() {
		return 0
	}
	return max(time.Since(ans.SearchedAt), 0)
}
