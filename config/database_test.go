package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDatabaseValidateNamesTheFieldWithoutQuotingIt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    DatabaseConfig
		want string // "" means valid
	}{
		{"none", DatabaseConfig{}, ""},
		{"url and keyword/value", DatabaseConfig{ReadURLs: []string{"postgres://u:p@r1:5432/cita", "host=r2 dbname=cita"}, MaxReplicaLag: 10 * time.Second}, ""},
		{"not a connection string", DatabaseConfig{ReadURLs: []string{"postgres://u:p@r1/cita", "r2.internal:s3cretpw"}}, "database.read_urls[1]"},
		{"lag too small", DatabaseConfig{MaxReplicaLag: 10 * time.Millisecond}, "database.max_replica_lag"},
		{"lag negative", DatabaseConfig{MaxReplicaLag: -time.Second}, "database.max_replica_lag"},
		{"lag too large", DatabaseConfig{MaxReplicaLag: 2 * time.Hour}, "database.max_replica_lag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.d.validate()
			if tt.want == "" {
				if len(errs) > 0 {
					t.Fatalf("unexpected errors: %v", errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.want) {
				t.Fatalf("errors %v, want one mentioning %q", errs, tt.want)
			}
			if strings.Contains(errs[0].Error(), "s3cretpw") {
				t.Fatalf("the error quotes the connection string: %v", errs[0])
			}
		})
	}
	if got := (DatabaseConfig{}).WithDefaults().MaxReplicaLag; got != DefaultMaxReplicaLag {
		t.Errorf("default max_replica_lag %s, want %s", got, DefaultMaxReplicaLag)
	}
}

func TestReadURLsNeedAPrimary(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	path := filepath.Join(t.TempDir(), "cita.yaml")
	if err := os.WriteFile(path, []byte("database:\n  read_urls: [\"postgres://reader@replica1/cita\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "database.read_urls: replicas need their primary") {
		t.Fatalf("read_urls without database_url: %v", err)
	}
	t.Setenv("DATABASE_URL", "postgres://cita@primary/cita")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("with DATABASE_URL: %v", err)
	}
	if len(cfg.Database.ReadURLs) != 1 || cfg.Database.MaxReplicaLag != DefaultMaxReplicaLag {
		t.Fatalf("database section %+v", cfg.Database)
	}
}
