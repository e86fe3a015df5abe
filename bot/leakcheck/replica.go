package leakcheck

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/rewrite"
)

// replica is one `cita serve` process as the harness runs it: its own connection pool to the
// shared database, its own answer cache client, answering pipeline and bot handler. Two
// replicas share everything that lives in the database and nothing that lives in memory.
type replica struct {
	pool  *pgxpool.Pool
	index *pgstore.Store
	store *pgbot.Store // the database as the harness itself uses it
	// faulty is the store the replica's handler and adapters use: the same, with database faults.
	faulty   *faultStore
	pipeline *rag.Pipeline
	handler  *bot.Handler
	emb      *hashembed.Embedder
	search   *rag.Hybrid
}

// openReplica connects to schema (migrating it when needed) and wires the offline pipeline the
// chat adapters use, with the PostgreSQL answer cache, so repeated questions are cache hits. The
// handler and the adapters record through a store that injects database faults at rates.
func openReplica(ctx context.Context, connString, schema string, emb *hashembed.Embedder, d *dice, rates dbFaults, f faults, wide rag.Scope, logger *slog.Logger) (*replica, error) {
	pool, err := pgstore.Open(ctx, connString, pgstore.PoolOptions{Schema: schema}, logger)
	if err != nil {
		return nil, err
	}
	index, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := index.EnsureVectorIndex(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	var cache rag.AnswerCache = pgstore.NewCache(pool, pgstore.CacheOptions{Variant: "leakcheck"}, logger)
	if f.cacheIgnoresScope {
		cache = scopelessCache{cache}
	}
	var arms rag.ArmStore = index
	if f.searchIgnoresScope {
		arms = anyScopeArms{index, wide}
	}
	search := rag.NewHybrid(arms, emb, rag.DefaultHybridOptions())
	p := rag.NewPipeline(search, rag.Extractive{}, rewrite.Offline{},
		rag.PipelineOptions{Cache: cache, MaxSources: 8, Logger: logger})
	store := pgbot.New(pool)
	faulty := &faultStore{Store: store, dice: d, rates: rates, breaks: storeBreaks{memoryIgnoresScope: f.memoryIgnoresScope,
		traceIgnoresScope: f.traceIgnoresScope, recordDropped: f.recordDropped, skipWriteCheck: f.skipWriteCheck,
		joinersIgnored: f.joinersIgnored, writeIgnoresReaders: f.writeIgnoresReaders, teamJoinIgnored: f.teamJoinIgnored, wide: wide}}
	h := bot.NewHandler(p, faulty, bot.HandlerOptions{
		// The harness asks far faster than people do; the rate limits are not what it tests.
		RateLimit: bot.RateLimit{PerMinute: 1e6, Burst: 1e6},
		Queue:     bot.NewQueue(4, 10_000),
		Logger:    logger,
	})
	return &replica{pool: pool, index: index, store: store, faulty: faulty, pipeline: p, handler: h, emb: emb, search: search}, nil
}

func (r *replica) close() { r.pool.Close() }
