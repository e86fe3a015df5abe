package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/config"
)

// checkReplicas checks each of database.read_urls against the primary (conn): it answers, it is
// a standby of the primary's cluster, and how far behind it is. An unreachable replica or one
// that is not a standby of the primary fails (a configuration error, though searches go on on
// the primary); one further behind than database.max_replica_lag warns (searches skip it until
// it catches up). No line quotes a connection string.
func checkReplicas(ctx context.Context, primary *pgx.Conn, db config.DatabaseConfig) []checkResult {
	db = db.WithDefaults()
	var out []checkResult
	for i, url := range db.ReadURLs {
		out = append(out, checkReplica(ctx, primary, i, url, db.MaxReplicaLag))
	}
	return out
}

func checkReplica(ctx context.Context, primary *pgx.Conn, i int, url string, maxLag time.Duration) checkResult {
	field := fmt.Sprintf("database.read_urls[%d]", i)
	c := checkResult{name: "read replica " + field}
	fix := "point " + field + " at a streaming replica of the primary (postgres://USER:PASSWORD@HOST:5432/DB), or remove it"
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		c.detail, c.fix = "the connection string cannot be parsed", fix
		return c
	}
	c.name = fmt.Sprintf("read replica %s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
	cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		c.detail, c.fix = "unreachable: "+err.Error(), fix
		return c
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var inRecovery bool
	var replayed *string
	var replayAge float64
	err = conn.QueryRow(cctx, `SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text,
		coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8, -1)`).Scan(&inRecovery, &replayed, &replayAge)
	if err != nil {
		c.detail, c.fix = err.Error(), fix
		return c
	}
	if !inRecovery || replayed == nil {
		c.detail, c.fix = "answers but is not a standby (not in recovery): searches never use it", fix
		return c
	}
	var primaryID, replicaID int64
	if primary.QueryRow(cctx, `SELECT system_identifier FROM pg_control_system()`).Scan(&primaryID) == nil &&
		conn.QueryRow(cctx, `SELECT system_identifier FROM pg_control_system()`).Scan(&replicaID) == nil && primaryID != replicaID {
		c.detail = fmt.Sprintf("a standby of another cluster (system identifier %d, the primary's is %d): searches would read other data", replicaID, primaryID)
		c.fix = fix
		return c
	}
	var behind int64
	if err := primary.QueryRow(cctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint`, *replayed).Scan(&behind); err != nil {
		c.detail, c.fix = "compare with the primary's WAL position: "+err.Error(), "check that database_url is the primary, not a standby"
		return c
	}
	if behind <= 0 {
		c.ok, c.detail = true, "streaming standby, caught up with the primary; searches run on it"
		return c
	}
	age := time.Duration(replayAge * float64(time.Second)).Round(time.Millisecond)
	if replayAge >= 0 && age > maxLag {
		c.warn = true
		c.detail = fmt.Sprintf("streaming standby %d bytes of WAL behind; its last replayed commit is %s old, over database.max_replica_lag %s: searches skip it until it catches up", behind, age, maxLag)
		c.fix = "check the replica's replay (pg_stat_replication on the primary, pg_get_wal_replay_pause_state() on the replica) and its load"
		return c
	}
	c.ok, c.detail = true, fmt.Sprintf("streaming standby, %d bytes of WAL behind the primary (within database.max_replica_lag %s)", behind, maxLag)
	return c
}
