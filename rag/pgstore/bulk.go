package pgstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// bulkLockKey is the session advisory lock a bulk loader holds for its whole load, one per
// schema (the term statistics are the schema's). Computed in SQL, like the sync locks, so every
// process derives the same key.
const bulkLockKey = `hashtextextended('cita-bulk-load:' || current_schema(), 0)`

// HasVectors reports whether any chunk carries an embedding of the store's model.
func (s *Store) HasVectors(ctx context.Context) (bool, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM chunks WHERE embed_model = $1)`, s.model.Model).Scan(&exists); err != nil {
		return false, fmt.Errorf("look for vectors of %s: %w", s.model.Model, err)
	}
	return exists, nil
}

// BeginBulkLoad prepares a first, bulk index of the store's model. Its state lives in the
// database (table bulk_load), under a session advisory lock held on a dedicated connection until
// the load ends: while it runs, every writer's statistics triggers skip their deltas and the
// model's HNSW index is dropped. It returns the function that ends the load (rebuilding the
// statistics and the vector index), to be called whatever happens to the load; a process that
// dies instead leaves a row that the next RecoverBulkLoad finishes.
//
// It returns a nil end and no error, and changes nothing, when another session is bulk loading
// this schema (loads serialize: the caller writes row by row, and that load's rebuild counts
// these rows too) or when the index already holds vectors of the model. An interrupted earlier
// load is recovered first. It returns an error when the database cannot be read or written.
func (s *Store) BeginBulkLoad(ctx context.Context) (end func(context.Context) error, err error) {
	lock, ok, err := s.tryBulkLock(ctx, beginLockWait)
	if err != nil || !ok {
		return nil, err
	}
	defer func() {
		if end == nil {
			lock.release(s.logger)
		}
	}()
	if _, err := s.recoverLocked(ctx, lock.conn); err != nil {
		return nil, err
	}
	has, err := s.HasVectors(ctx)
	if err != nil || has {
		return nil, err
	}
	// A first, bulk index of many documents loads faster without the HNSW index and builds it
	// once at the end: one parallel build costs less than maintaining the graph row by row.
	// Until then the vector arm scans exactly. The row comes first: a crash right after the DROP
	// finds it and builds the index again.
	if _, err := lock.conn.Exec(ctx, `INSERT INTO bulk_load (model, dimension) VALUES ($1, $2)`, s.model.Model, s.model.Dimension); err != nil {
		return nil, fmt.Errorf("record bulk load: %w", err)
	}
	if _, err := lock.conn.Exec(ctx, "DROP INDEX IF EXISTS "+s.vectorIndex); err != nil {
		if _, derr := lock.conn.Exec(context.WithoutCancel(ctx), `DELETE FROM bulk_load`); derr != nil {
			s.logger.ErrorContext(ctx, "undo bulk load record", slog.String("error", derr.Error()))
		}
		return nil, fmt.Errorf("drop vector index for model %s: %w", s.model.Model, err)
	}
	return func(ctx context.Context) error {
		defer lock.release(s.logger)
		return s.finishBulkLoad(ctx, lock.conn)
	}, nil
}

// RecoverBulkLoad finishes a bulk load whose process died: it rebuilds the term statistics,
// global and per access class (when the load had not), builds the load's vector index again,
// and clears the load's state. It reports whether there was such a load. A load still running
// (its lock held) is left alone. It returns an error when the database cannot be read or written.
func (s *Store) RecoverBulkLoad(ctx context.Context) (bool, error) {
	_, recovered, err := s.recoverBulkLoad(ctx)
	return recovered, err
}

// recoverBulkLoad is RecoverBulkLoad; live is the model of a load still running, or "".
func (s *Store) recoverBulkLoad(ctx context.Context) (live string, recovered bool, err error) {
	lock, ok, err := s.tryBulkLock(ctx, 0)
	if err != nil {
		return "", false, err
	}
	if !ok {
		// Someone holds the lock: a load in progress, or another process recovering (which
		// builds the index as well). Either way the row, if any, is theirs.
		err := s.pool.QueryRow(ctx, `SELECT model FROM bulk_load`).Scan(&live)
		if errors.Is(err, pgx.ErrNoRows) {
			return "", false, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("read bulk load state: %w", err)
		}
		return live, false, nil
	}
	defer lock.release(s.logger)
	recovered, err = s.recoverLocked(ctx, lock.conn)
	return "", recovered, err
}

// recoverLocked finishes an interrupted load's work. The caller holds the bulk lock, so a row
// found here belongs to a loader that is gone.
func (s *Store) recoverLocked(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var model string
	var dimension int
	var pending bool
	var started time.Time
	err := conn.QueryRow(ctx, `SELECT model, dimension, stats_pending, started_at FROM bulk_load`).Scan(&model, &dimension, &pending, &started)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read bulk load state: %w", err)
	}
	s.logger.WarnContext(ctx, "found an interrupted bulk load; rebuilding its term statistics and vector index",
		slog.String("model", model), slog.Time("started_at", started), slog.Bool("stats_pending", pending))
	if err := s.finishBulkLoad(ctx, conn); err != nil {
		return false, fmt.Errorf("recover interrupted bulk load: %w", err)
	}
	return true, nil
}

// finishBulkLoad completes the load recorded in bulk_load: the statistics (global and per access
// class), rebuilt in the same transaction that stops the triggers from skipping (so no write
// falls between the two), then the vector index of the load's model, then the row, then the
// large classes' own graphs, then fresh planner statistics.
func (s *Store) finishBulkLoad(ctx context.Context, conn *pgx.Conn) error {
	var model string
	var dimension int
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var pending bool
		if err := tx.QueryRow(ctx, `SELECT model, dimension, stats_pending FROM bulk_load FOR UPDATE`).Scan(&model, &dimension, &pending); err != nil {
			return fmt.Errorf("read bulk load state: %w", err)
		}
		if !pending {
			return nil
		}
		// The global and the per-access-class statistics (their triggers skipped the load's
		// rows alike), in one pass over the chunks, in this transaction: before the triggers
		// count again.
		if _, err := tx.Exec(ctx, `SELECT cita_rebuild_all_stats()`); err != nil {
			return fmt.Errorf("rebuild term statistics: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE bulk_load SET stats_pending = false`); err != nil {
			return fmt.Errorf("record rebuilt statistics: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sql, err := vectorIndexSQL(model, dimension)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("create vector index for model %s: %w", model, err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM bulk_load`); err != nil {
		return fmt.Errorf("clear bulk load state: %w", err)
	}
	// The large classes' own graphs, now that their sizes are known (class_graphs.go); built
	// in one pass each, as nothing else writes yet.
	if model == s.model.Model && dimension == s.model.Dimension {
		if _, _, err := s.ensureClassGraphs(ctx, conn, false); err != nil {
			return err
		}
	}
	// Fresh planner statistics for the table the load just filled.
	if _, err := conn.Exec(ctx, "ANALYZE chunks"); err != nil {
		return fmt.Errorf("analyze chunks: %w", err)
	}
	return nil
}

// beginLockWait is how long BeginBulkLoad waits for the bulk-load lock: long enough to outlast
// another process's check for an interrupted load, short enough not to wait out a running load
// (the caller then writes row by row).
const beginLockWait = 5 * time.Second

// sqlstateLockNotAvailable is PostgreSQL's lock_not_available: lock_timeout expired.
const sqlstateLockNotAvailable = "55P03"

// bulkLock is the bulk-load advisory lock, held by a connection of its own: outside the pool,
// so that holding it for a whole load takes no connection from the writers.
type bulkLock struct {
	conn *pgx.Conn
}

// tryBulkLock takes the schema's bulk-load lock, waiting at most wait (0: not at all); ok is
// false when another session holds it.
func (s *Store) tryBulkLock(ctx context.Context, wait time.Duration) (lock *bulkLock, ok bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, false, fmt.Errorf("take bulk load lock: %w", err)
	}
	if wait <= 0 {
		err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+bulkLockKey+`)`).Scan(&ok)
	} else {
		// lock_timeout bounds the wait; the session is this lock's alone.
		if _, err = conn.Exec(ctx, fmt.Sprintf("SET lock_timeout = %d", wait.Milliseconds())); err == nil {
			_, err = conn.Exec(ctx, `SELECT pg_advisory_lock(`+bulkLockKey+`)`)
			var pgErr *pgconn.PgError
			if ok = err == nil; errors.As(err, &pgErr) && pgErr.Code == sqlstateLockNotAvailable {
				err = nil
			}
		}
	}
	if err != nil || !ok {
		_ = conn.Close(context.WithoutCancel(ctx))
		if err != nil {
			return nil, false, fmt.Errorf("take bulk load lock: %w", err)
		}
		return nil, false, nil
	}
	return &bulkLock{conn: conn}, true, nil
}

// release unlocks, then closes the lock's connection. The unlock makes the release immediate:
// the server ends a closed session's locks only once its backend has exited, which a session
// taking the lock right after could beat. A failed unlock still ends with the session.
func (l *bulkLock) release(logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var unlocked bool
	if err := l.conn.QueryRow(ctx, `SELECT pg_advisory_unlock(`+bulkLockKey+`)`).Scan(&unlocked); err != nil || !unlocked {
		logger.WarnContext(ctx, "bulk load lock not released by unlock; closing its session", slog.Any("error", err))
	}
	if err := l.conn.Close(ctx); err != nil {
		logger.WarnContext(ctx, "close bulk load lock connection", slog.String("error", err.Error()))
	}
}
