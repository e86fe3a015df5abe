package pgstore

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultMaxReplicaLag is how far behind the primary a read replica may be, by default, and
// still serve searches.
const DefaultMaxReplicaLag = 5 * time.Second

// Replica states, as Stats reports them and metrics label them.
const (
	ReplicaOK         = "ok"          // serving searches
	ReplicaLagging    = "lagging"     // further behind the primary than the maximum lag
	ReplicaDown       = "down"        // its last check or search failed
	ReplicaNotStandby = "not_standby" // it answers but is not in recovery: not a replica of the primary
	ReplicaUnknown    = "unknown"     // not checked yet
)

// ReplicaOptions tunes Replicas.
type ReplicaOptions struct {
	// MaxLag is how far behind the primary a replica may be and still serve searches; 0 means
	// DefaultMaxReplicaLag.
	MaxLag time.Duration
	// CheckInterval is how often every replica's replay position is compared with the
	// primary's; 0 means a fifth of MaxLag, between 100 ms and 1 s.
	CheckInterval time.Duration
	// Logger receives state changes (a replica falling behind, failing, catching up).
	Logger *slog.Logger
}

// Replica is one read replica: a name that is safe to show (host, port and database, never a
// password) and its pool.
type Replica struct {
	Name string
	Pool *pgxpool.Pool
}

// OpenReplicas returns a pool for each connection string, set up as Open sets up the primary's
// (opts.Schema's search_path, the pgvector types) but never migrated: a replica follows the
// primary's schema. Pools connect lazily, so a replica that is down is no error here (the
// checks of Replicas find it). It returns an error, quoting no connection string, when one
// cannot be parsed.
func OpenReplicas(connStrings []string, opts PoolOptions) ([]Replica, error) {
	var out []Replica
	closeAll := func() {
		for _, r := range out {
			r.Pool.Close()
		}
	}
	seen := map[string]int{}
	for i, cs := range connStrings {
		cfg, err := poolConfig(cs, opts) // a parse error quotes no connection string (ParseError)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("database.read_urls[%d]: %w", i, err)
		}
		name := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
		if seen[name]++; seen[name] > 1 {
			name += "#" + strconv.Itoa(seen[name])
		}
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("read replica %s: %w", name, err)
		}
		out = append(out, Replica{Name: name, Pool: pool})
	}
	return out, nil
}

// Replicas routes reads that tolerate lag to a healthy replica, in turn, and everything else to
// the primary. A replica is healthy while its last check found it a standby that holds
// everything the primary had written MaxLag ago or later: the lag is measured in WAL, by
// comparing the replica's replay position with positions of the primary sampled by this
// process's clock, so neither an idle primary nor clock skew between servers misleads it. The
// check runs every CheckInterval in the background, never per query; a search that fails on a
// replica marks it down until its next check. Create it with NewReplicas; it is safe for
// concurrent use.
type Replicas struct {
	primary  *pgxpool.Pool
	replicas []*replicaState
	maxLag   time.Duration
	interval time.Duration
	logger   *slog.Logger

	next         atomic.Uint64 // round robin
	primaryReads atomic.Uint64
	history      walHistory // the primary's positions, touched by the checking goroutine only

	stop chan struct{}
	done chan struct{}
}

// NewReplicas returns a router over primary and replicas; it owns the replicas' pools (Close
// closes them). Until Start has checked them, every read goes to the primary.
func NewReplicas(primary *pgxpool.Pool, replicas []Replica, opts ReplicaOptions) *Replicas {
	if opts.MaxLag <= 0 {
		opts.MaxLag = DefaultMaxReplicaLag
	}
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = min(max(opts.MaxLag/5, 100*time.Millisecond), time.Second)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Replicas{primary: primary, maxLag: opts.MaxLag, interval: opts.CheckInterval, logger: opts.Logger}
	for _, rep := range replicas {
		r.replicas = append(r.replicas, &replicaState{name: rep.Name, pool: rep.Pool, skips: map[string]uint64{}})
	}
	return r
}

// Start checks every replica once, so that the first search can use them, then keeps checking
// them every CheckInterval until Close or ctx ends. Call it at most once.
func (r *Replicas) Start(ctx context.Context) {
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	r.check(ctx)
	go func() {
		defer close(r.done)
		t := time.NewTicker(r.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.stop:
				return
			case <-t.C:
				r.check(ctx)
			}
		}
	}()
}

// Close stops the checks and closes the replicas' pools (not the primary's).
func (r *Replicas) Close() {
	if r.stop != nil {
		close(r.stop)
		<-r.done
		r.stop = nil
	}
	for _, rep := range r.replicas {
		rep.pool.Close()
	}
}

// pick returns the pool for a read that tolerates lag: the next healthy replica in turn, or the
// primary (and a nil replica) when none is.
func (r *Replicas) pick() (*pgxpool.Pool, *replicaState) {
	n := len(r.replicas)
	if n > 0 {
		now := time.Now()
		start := int(r.next.Add(1) % uint64(n))
		for i := range n {
			rep := r.replicas[(start+i)%n]
			if state, _ := rep.status(now, r.maxLag); state != ReplicaOK {
				rep.skipped(state)
				continue
			}
			rep.reads.Add(1)
			return rep.pool, rep
		}
	}
	r.primaryReads.Add(1)
	return r.primary, nil
}

// ReplicaStat is one replica as Stats sees it.
type ReplicaStat struct {
	Name  string
	State string // ReplicaOK, ReplicaLagging, ...
	// Lag is how far behind the primary the replica is at most, by its last check and the time
	// since; -1 when unknown (never checked, down, not a standby).
	Lag   time.Duration
	Reads uint64            // searches it served
	Skips map[string]uint64 // searches that passed it over, by its state then
}

// Stats returns the searches the primary served and each replica's state and counts.
func (r *Replicas) Stats() (primaryReads uint64, replicas []ReplicaStat) {
	now := time.Now()
	for _, rep := range r.replicas {
		state, lag := rep.status(now, r.maxLag)
		rep.mu.Lock()
		skips := make(map[string]uint64, len(rep.skips))
		for k, v := range rep.skips {
			skips[k] = v
		}
		rep.mu.Unlock()
		replicas = append(replicas, ReplicaStat{Name: rep.name, State: state, Lag: lag, Reads: rep.reads.Load(), Skips: skips})
	}
	return r.primaryReads.Load(), replicas
}

// replicaState is what the checks learnt of one replica.
type replicaState struct {
	name  string
	pool  *pgxpool.Pool
	reads atomic.Uint64

	mu sync.Mutex
	// health is the last check's verdict: ReplicaOK when the replica is a standby that answered
	// (it may still be lagging), or ReplicaDown, ReplicaNotStandby, ReplicaUnknown.
	health string
	// replayedAsOf is when, by this process's clock, the primary had written nothing the
	// replica has not replayed; zero when unknown.
	replayedAsOf time.Time
	state        string // the last reported state, for logging changes
	skips        map[string]uint64
}

// status returns the replica's state at now and how far behind it is at most (-1 unknown).
func (s *replicaState) status(now time.Time, maxLag time.Duration) (string, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.health != ReplicaOK {
		if s.health == "" {
			return ReplicaUnknown, -1
		}
		return s.health, -1
	}
	if s.replayedAsOf.IsZero() {
		return ReplicaLagging, -1
	}
	lag := now.Sub(s.replayedAsOf)
	if lag > maxLag {
		return ReplicaLagging, lag
	}
	return ReplicaOK, lag
}

func (s *replicaState) skipped(state string) {
	s.mu.Lock()
	s.skips[state]++
	s.mu.Unlock()
}

// failed marks the replica down after a search failed on it, until its next check.
func (s *replicaState) failed() {
	s.mu.Lock()
	s.health = ReplicaDown
	s.mu.Unlock()
}
