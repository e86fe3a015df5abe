package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultExactVectorMax is Store.ExactVectorMax's default: below it an exact scan of the
// readable chunks costs less than an index scan under the same filter, and is exact.
const DefaultExactVectorMax = 20_000

// DefaultOwnGraphMin is Store.OwnGraphMin's default: a class too large to scan exactly gets a
// graph of its own.
const DefaultOwnGraphMin = DefaultExactVectorMax

// A class gets a graph of its own (a partial HNSW index, WHERE embed_model = <model> AND
// class_id = <id>) when it holds at least OwnGraphMin chunks and at most half of all of them:
// a class holding most of the index is searched well through the shared graph, whose filter
// then drops few candidates. Its graph is dropped when it falls below half of OwnGraphMin (a
// class that hovers at the threshold is not built and dropped on every run).

// classGraphsLockKey serializes the graphs' upkeep per schema (a session advisory lock).
const classGraphsLockKey = `hashtextextended('cita-class-graphs:' || current_schema(), 0)`

// classGraphsSQL returns, for the model ($1) and dimension ($2), every class with at least $3
// chunks or a graph, its chunks (pending deltas included), its graph's index name ("" when
// none), and the chunks of all classes; no row while a bulk load's statistics are pending (the
// counts are not known then).
const classGraphsSQL = `
WITH counts AS (
	SELECT a.id,
		(coalesce((SELECT sum(s.chunks) FROM class_corpus_stats s WHERE s.class_id = a.id AND s.kind = 't'), 0) +
		 coalesce((SELECT sum(d.chunks) FROM class_corpus_delta d WHERE d.class_id = a.id AND d.kind = 't'), 0))::bigint AS chunks
	FROM access_classes a
)
SELECT c.id, c.chunks, coalesce(g.index_name, ''), (SELECT sum(chunks) FROM counts)::bigint
FROM counts c LEFT JOIN class_vector_graphs g ON g.class_id = c.id AND g.model = $1 AND g.dimension = $2
WHERE (c.chunks >= $3 OR g.index_name IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM bulk_load WHERE stats_pending)
ORDER BY c.id`

// EnsureClassGraphs builds a graph of its own for every access class large enough, and drops
// the graphs of classes that shrank (see DefaultOwnGraphMin), without blocking searches or
// writes (CREATE INDEX CONCURRENTLY). Indexers call it after a run (CompactStats); a bulk load's
// end builds them at once. It returns how many graphs it built and dropped, nothing when
// another session is at it, and an error when a build or a drop fails (the graphs already
// built stay).
func (s *Store) EnsureClassGraphs(ctx context.Context) (built, dropped int, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("class graphs: %w", err)
	}
	defer conn.Release()
	return s.ensureClassGraphs(ctx, conn.Conn(), true)
}

// ensureClassGraphs is EnsureClassGraphs on conn; concurrently builds and drops without
// blocking writers (slower: two passes over the table), which a bulk load's end does not need.
func (s *Store) ensureClassGraphs(ctx context.Context, conn *pgx.Conn, concurrently bool) (built, dropped int, err error) {
	var locked bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+classGraphsLockKey+`)`).Scan(&locked); err != nil {
		return 0, 0, fmt.Errorf("class graphs: lock: %w", err)
	}
	if !locked {
		return 0, 0, nil
	}
	defer func() {
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+classGraphsLockKey+`)`); uerr != nil && err == nil {
			err = fmt.Errorf("class graphs: unlock: %w", uerr)
		}
	}()
	type class struct {
		id, chunks int64
		index      string
	}
	rows, err := conn.Query(ctx, classGraphsSQL, s.model.Model, s.model.Dimension, s.OwnGraphMin)
	if err != nil {
		return 0, 0, fmt.Errorf("class graphs: %w", err)
	}
	var classes []class
	var total int64
	for rows.Next() {
		var c class
		if err := rows.Scan(&c.id, &c.chunks, &c.index, &total); err != nil {
			rows.Close()
			return 0, 0, fmt.Errorf("class graphs: %w", err)
		}
		classes = append(classes, c)
	}
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("class graphs: %w", err)
	}
	for _, c := range classes {
		switch {
		case c.index == "" && c.chunks >= s.OwnGraphMin && c.chunks*2 <= total:
			start := time.Now()
			if err := s.buildClassGraph(ctx, conn, c.id, concurrently); err != nil {
				return built, dropped, err
			}
			built++
			s.logger.InfoContext(ctx, "built a vector graph of an access class's own",
				slog.Int64("class_id", c.id), slog.Int64("chunks", c.chunks), slog.Duration("took", time.Since(start)))
		case c.index != "" && c.chunks < s.OwnGraphMin/2:
			if err := s.dropClassGraph(ctx, conn, c.id, c.index, concurrently); err != nil {
				return built, dropped, err
			}
			dropped++
		}
	}
	return built, dropped, nil
}

// classGraphName is the index name of a class's own graph for the store's model.
func (s *Store) classGraphName(class int64) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", s.model.Model, s.model.Dimension)))
	return fmt.Sprintf("chunks_class_hnsw_%s_%d", hex.EncodeToString(sum[:6]), class)
}

// buildClassGraph builds class's graph (dropping first what a failed build left under its name)
// and records it.
func (s *Store) buildClassGraph(ctx context.Context, conn *pgx.Conn, class int64, concurrently bool) error {
	name := s.classGraphName(class)
	how := ""
	if concurrently {
		how = "CONCURRENTLY "
	}
	if _, err := conn.Exec(ctx, "DROP INDEX "+how+"IF EXISTS "+name); err != nil {
		return fmt.Errorf("class graph %d: drop a failed build: %w", class, err)
	}
	// The name, the expression and the model literal are fixed in New (a checked model name
	// and numbers); class is a number read from the database.
	sql := fmt.Sprintf(`CREATE INDEX %s%s ON chunks USING hnsw (%s public.vector_cosine_ops)
		WITH (m = 16, ef_construction = 64) WHERE embed_model = %s AND class_id = %d`, how, name, s.vectorExpr, s.modelLit, class)
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("class graph %d: build: %w", class, err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO class_vector_graphs (class_id, model, dimension, index_name) VALUES ($1, $2, $3, $4)
		ON CONFLICT (class_id, model, dimension) DO UPDATE SET index_name = EXCLUDED.index_name, built_at = now()`,
		class, s.model.Model, s.model.Dimension, name); err != nil {
		return fmt.Errorf("class graph %d: record: %w", class, err)
	}
	return nil
}

// dropClassGraph forgets class's graph, so searches stop planning with it, then drops it.
func (s *Store) dropClassGraph(ctx context.Context, conn *pgx.Conn, class int64, name string, concurrently bool) error {
	if _, err := conn.Exec(ctx, `DELETE FROM class_vector_graphs WHERE class_id = $1 AND model = $2 AND dimension = $3`,
		class, s.model.Model, s.model.Dimension); err != nil {
		return fmt.Errorf("class graph %d: forget: %w", class, err)
	}
	how := ""
	if concurrently {
		how = "CONCURRENTLY "
	}
	if _, err := conn.Exec(ctx, "DROP INDEX "+how+"IF EXISTS "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("class graph %d: drop: %w", class, err)
	}
	return nil
}
