package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"regexp"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/rag"
)

// HNSW indexes take at most 2,000 dimensions for the vector type. (A half-precision index would
// take 4,000 and half the memory, but an incrementally built halfvec expression index returned
// 1 of the 10 true neighbours at 100k chunks here while the same data scanned exactly was right,
// so the index stays full precision.)
const maxIndexedDimension = 2000

var modelName = regexp.MustCompile(`^[A-Za-z0-9._:/@+-]{1,100}$`)

// Store reads and writes documents and chunks, and runs the two search arms for one embedding
// model. Construct it with New.
type Store struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
	model  rag.EmbedderInfo
	// vectorExpr is the indexed expression for this model, e.g. (embedding::public.vector(384)).
	vectorExpr  string
	vectorIndex string
	modelLit    string
	// EfSearch is pgvector's hnsw.ef_search for the vector arm (default 400: on the bench corpus 100
	// gives recall@10 0.88 under a 10% filter, 200 gives 0.94, 400 gives 0.99).
	EfSearch int
	// Overfetch multiplies k for the relaxed-order index scan before the exact re-sort
	// (default 4).
	Overfetch int
	// ExactVectorMax is how many chunks the vector arm scans exactly, at most, rather than
	// through the shared HNSW graph: the readable classes without a graph of their own, summed
	// (vector_plan.go; default DefaultExactVectorMax).
	ExactVectorMax int64
	// OwnGraphMin is how many chunks of the model an access class holds before it gets an HNSW
	// graph of its own (class_graphs.go; default DefaultOwnGraphMin).
	OwnGraphMin int64
	// FTSCandidateBudget bounds how many chunks the full-text arm reads (their summed document
	// frequencies): the words with the highest BM25 bounds generate candidates first, and the
	// others only while they could still lift a chunk into the top k (fts_score.go).
	FTSCandidateBudget int
	// ftsExhaustive reads every candidate of every word at once: the truth the pruned arm is
	// tested against.
	ftsExhaustive bool
	// asked hands a cross-lingual question's full-text statistics from its asked part to its
	// translated part (fts_shared.go); shared by the store's copies (onPool).
	asked *askedStats
}

// New returns a store for the given embedding model. It returns an error when the model name or
// dimension cannot be indexed.
func New(pool *pgxpool.Pool, model rag.EmbedderInfo, logger *slog.Logger) (*Store, error) {
	if !modelName.MatchString(model.Model) {
		return nil, fmt.Errorf("embedding model name %q: use letters, digits and ._:/@+-", model.Model)
	}
	if model.Dimension < 1 || model.Dimension > maxIndexedDimension {
		return nil, fmt.Errorf("embedding dimension %d: pgvector's HNSW index takes 1 to %d dimensions", model.Dimension, maxIndexedDimension)
	}
	return &Store{
		pool:               pool,
		logger:             logger,
		model:              model,
		vectorExpr:         vectorExpr(model.Dimension),
		vectorIndex:        vectorIndexName(model.Model, model.Dimension),
		modelLit:           "'" + model.Model + "'", // safe: modelName allows no quote
		EfSearch:           400,
		Overfetch:          4,
		ExactVectorMax:     DefaultExactVectorMax,
		OwnGraphMin:        DefaultOwnGraphMin,
		FTSCandidateBudget: 1000,
		asked:              &askedStats{},
	}, nil
}

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Model returns the embedding model the store searches with.
func (s *Store) Model() rag.EmbedderInfo { return s.model }

// EnsureVectorIndex creates, if missing, the partial HNSW index (cosine) for the store's model:
// one index per model and dimension, so switching models needs no hand-written migration. It
// first finishes a bulk load that a dead process left (RecoverBulkLoad); while another process
// bulk loads this model, it leaves the index to that load's end.
func (s *Store) EnsureVectorIndex(ctx context.Context) error {
	live, _, err := s.recoverBulkLoad(ctx)
	if err != nil {
		return err
	}
	if live == s.model.Model {
		s.logger.InfoContext(ctx, "a bulk load of this model is running elsewhere; it builds the vector index when it ends",
			slog.String("model", live))
		return nil
	}
	sql, err := vectorIndexSQL(s.model.Model, s.model.Dimension)
	if err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, sql); err != nil {
		return fmt.Errorf("create vector index for model %s: %w", s.model.Model, err)
	}
	return nil
}

func vectorExpr(dimension int) string {
	return fmt.Sprintf("(embedding::public.vector(%d))", dimension)
}

func vectorIndexName(model string, dimension int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", model, dimension)))
	return "chunks_embedding_hnsw_" + hex.EncodeToString(sum[:6])
}

// vectorIndexSQL is the CREATE INDEX IF NOT EXISTS of a model's HNSW index. It returns an error
// for a model name or dimension that cannot be indexed (the name is spliced into the SQL).
func vectorIndexSQL(model string, dimension int) (string, error) {
	if !modelName.MatchString(model) {
		return "", fmt.Errorf("embedding model name %q: use letters, digits and ._:/@+-", model)
	}
	if dimension < 1 || dimension > maxIndexedDimension {
		return "", fmt.Errorf("embedding dimension %d: pgvector's HNSW index takes 1 to %d dimensions", dimension, maxIndexedDimension)
	}
	return fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON chunks USING hnsw (%s public.vector_cosine_ops)
		WITH (m = 16, ef_construction = 64) WHERE embed_model = '%s'`, vectorIndexName(model, dimension), vectorExpr(dimension), model), nil
}
