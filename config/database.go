package config

import (
	"fmt"
	"strings"
	"time"
)

// DefaultMaxReplicaLag is database.max_replica_lag when unset.
const DefaultMaxReplicaLag = 5 * time.Second

// DatabaseConfig lists read replicas. The primary stays database_url (env DATABASE_URL): every
// write, the answer cache, conversation memory and the loading of passage text run there.
type DatabaseConfig struct {
	// ReadURLs are streaming replicas of the primary (postgres:// URLs or keyword/value strings;
	// use ${VAR} for passwords). The search arms, which tolerate a little lag, run on a healthy
	// one in turn; none means everything runs on the primary.
	ReadURLs []string `yaml:"read_urls"`
	// MaxReplicaLag is how far behind the primary a replica may be and still serve searches
	// (default 5s; 1s to 1h). A replica further behind, unreachable or not in recovery is skipped
	// until it catches up.
	MaxReplicaLag time.Duration `yaml:"max_replica_lag"`
}

// WithDefaults returns d with the default of every unset field.
func (d DatabaseConfig) WithDefaults() DatabaseConfig {
	if d.MaxReplicaLag == 0 {
		d.MaxReplicaLag = DefaultMaxReplicaLag
	}
	return d
}

// validate never quotes a URL: it may hold a password.
func (d DatabaseConfig) validate() []error {
	var errs []error
	for i, u := range d.ReadURLs {
		u = strings.TrimSpace(u)
		isURL := strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
		if !isURL && !strings.Contains(u, "=") {
			errs = append(errs, fmt.Errorf("database.read_urls[%d]: not a PostgreSQL connection string; use postgres://USER:PASSWORD@HOST:5432/DB or host=HOST user=USER dbname=DB", i))
		}
	}
	if d.MaxReplicaLag != 0 && (d.MaxReplicaLag < time.Second || d.MaxReplicaLag > time.Hour) {
		errs = append(errs, fmt.Errorf("database.max_replica_lag: %s is out of range; use 1s to 1h (default %s)", d.MaxReplicaLag, DefaultMaxReplicaLag))
	}
	return errs
}
