package syncrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrBusy is returned by Runner.Run when another process (or goroutine) is syncing the same
// source in the same database schema.
var ErrBusy = errors.New("source is being synced by another run")

// sourceLock is a PostgreSQL session advisory lock on one source, held on a connection taken
// out of the pool for the whole pass. Released on that same connection: returning a connection
// that still holds the lock to the pool would let any later borrower "win" it again.
type sourceLock struct {
	conn   *pgxpool.Conn
	source string
}

// lockKey is computed in SQL so that every replica derives the same 64-bit key; the schema
// keeps isolated indexes (tests, eval namespaces) in one database from blocking each other.
const lockKey = `hashtextextended('cita-sync:' || current_schema() || ':' || $1, 0)`

// tryLock takes the source's lock without waiting. It returns ErrBusy when another session
// holds it, or an error when the database cannot be reached.
func tryLock(ctx context.Context, pool *pgxpool.Pool, source string) (*sourceLock, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock source %s: %w", source, err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+lockKey+`)`, source).Scan(&ok); err != nil {
		conn.Release()
		return nil, fmt.Errorf("lock source %s: %w", source, err)
	}
	if !ok {
		conn.Release()
		return nil, fmt.Errorf("%s: %w", source, ErrBusy)
	}
	return &sourceLock{conn: conn, source: source}, nil
}

// release unlocks on the connection that locked. When the unlock cannot be confirmed the
// connection is closed instead of returned to the pool, which ends the session and its locks.
func (l *sourceLock) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ok bool
	err := l.conn.QueryRow(ctx, `SELECT pg_advisory_unlock(`+lockKey+`)`, l.source).Scan(&ok)
	if err != nil || !ok {
		_ = l.conn.Hijack().Close(ctx)
		return
	}
	l.conn.Release()
}
