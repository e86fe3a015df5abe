package pgstore

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// walSample is the primary's WAL write position at a moment of this process's clock.
type walSample struct {
	at  time.Time
	lsn int64
	// clockOffset is this process's clock minus the primary's, measured conservatively (from
	// before the query was sent), for reading the primary's commit timestamps.
	clockOffset time.Duration
}

// walHistory keeps the primary's recent positions, oldest first.
type walHistory struct {
	samples []walSample
}

// add appends a sample and drops those older than keep, always keeping the newest two.
func (h *walHistory) add(s walSample, keep time.Duration) {
	h.samples = append(h.samples, s)
	cut := 0
	for cut < len(h.samples)-2 && s.at.Sub(h.samples[cut].at) > keep {
		cut++
	}
	h.samples = h.samples[cut:]
}

// newest returns the latest sample; the zero sample when there is none.
func (h *walHistory) newest() walSample {
	if len(h.samples) == 0 {
		return walSample{}
	}
	return h.samples[len(h.samples)-1]
}

// replayedAsOf returns the latest moment at which the primary had written nothing beyond
// replayed, a replica's replay position, and false when every sample kept is beyond it (the
// replica is further behind than the history reaches).
func (h *walHistory) replayedAsOf(replayed int64) (time.Time, bool) {
	for i := len(h.samples) - 1; i >= 0; i-- {
		if h.samples[i].lsn <= replayed {
			return h.samples[i].at, true
		}
	}
	return time.Time{}, false
}

// Queries of the checks. Positions are read as bytes since 0/0.
const (
	primaryWALSQL = `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint, clock_timestamp()`
	replicaWALSQL = `SELECT pg_is_in_recovery(), coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, -1),
		pg_last_xact_replay_timestamp()`
)

// check samples the primary's WAL position, then every replica's replay position, and updates
// each replica's state. The primary is read first, so a replica that has replayed that position
// held, when asked, everything the primary had written at the sample's time.
func (r *Replicas) check(ctx context.Context) {
	if len(r.replicas) == 0 {
		return
	}
	timeout := max(2*r.interval, 2*time.Second)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lsn int64
	var primaryClock time.Time
	at := time.Now()
	if err := r.primary.QueryRow(cctx, primaryWALSQL).Scan(&lsn, &primaryClock); err != nil {
		// Without the primary's position no replica's lag is known anew: theirs age, and they
		// are skipped once it passes the maximum.
		r.logger.WarnContext(ctx, "read replicas: cannot read the primary's WAL position", slog.String("error", err.Error()))
		return
	}
	r.history.add(walSample{at: at, lsn: lsn, clockOffset: at.Sub(primaryClock)}, r.maxLag+3*r.interval)
	var wg sync.WaitGroup
	for _, rep := range r.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.checkReplica(cctx, rep)
		}()
	}
	wg.Wait()
	now := time.Now()
	for _, rep := range r.replicas {
		state, lag := rep.status(now, r.maxLag)
		rep.mu.Lock()
		changed := state != rep.state
		rep.state = state
		rep.mu.Unlock()
		if !changed {
			continue
		}
		attrs := []any{slog.String("replica", rep.name), slog.String("state", state), slog.Duration("max_lag", r.maxLag)}
		if lag >= 0 {
			attrs = append(attrs, slog.Duration("lag", lag))
		}
		if state == ReplicaOK {
			r.logger.InfoContext(ctx, "read replica serves searches", attrs...)
		} else {
			r.logger.WarnContext(ctx, "read replica skipped: searches run on the primary meanwhile", attrs...)
		}
	}
}

// checkReplica reads one replica's recovery state and replay position. The replica holds what
// the primary had at the latest sampled moment whose position it has replayed, and at least
// what the primary had when it committed the last transaction the replica replayed (its
// timestamp, on the primary's clock, read on this process's clock): the later of the two
// counts. The second lets a process that starts while a replica lags use it at once, when the
// lag is within the maximum, rather than after its history has grown as long as the lag.
func (r *Replicas) checkReplica(ctx context.Context, rep *replicaState) {
	var inRecovery bool
	var replayed int64
	var replayTS *time.Time
	err := rep.pool.QueryRow(ctx, replicaWALSQL).Scan(&inRecovery, &replayed, &replayTS)
	rep.mu.Lock()
	defer rep.mu.Unlock()
	switch {
	case err != nil:
		if rep.health != ReplicaDown {
			r.logger.WarnContext(ctx, "read replica check failed", slog.String("replica", rep.name), slog.String("error", err.Error()))
		}
		rep.health = ReplicaDown
	case !inRecovery || replayed < 0:
		rep.health = ReplicaNotStandby
	default:
		rep.health = ReplicaOK
		if asOf, ok := r.history.replayedAsOf(replayed); ok && asOf.After(rep.replayedAsOf) {
			rep.replayedAsOf = asOf
		}
		if replayTS != nil {
			if asOf := replayTS.Add(r.history.newest().clockOffset); asOf.After(rep.replayedAsOf) {
				rep.replayedAsOf = asOf
			}
		}
	}
}
