package pgcluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinDir writes shell scripts standing in for initdb, pg_ctl, postgres and pg_config; the
// share directory pg_config reports holds the given extension control files.
func fakeBinDir(t *testing.T, controls map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	share := filepath.Join(dir, "share")
	if err := os.MkdirAll(filepath.Join(share, "extension"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range controls {
		if err := os.WriteFile(filepath.Join(share, "extension", name+".control"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scripts := map[string]string{
		"initdb":    "exit 1",
		"pg_ctl":    "exit 1",
		"postgres":  "echo 'postgres (PostgreSQL) 15.2'",
		"pg_config": "echo '" + share + "'",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestEnsureExplainsWhatToDo(t *testing.T) {
	t.Parallel()
	contrib := map[string]string{"unaccent": "", "pg_trgm": ""}
	withVector := func(version string) map[string]string {
		m := map[string]string{"vector": "default_version = '" + version + "'\n"}
		for k, v := range contrib {
			m[k] = v
		}
		return m
	}
	notACluster := testBaseDir(t)
	if err := os.WriteFile(filepath.Join(notACluster, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    Options
		wantErr []string
	}{
		{
			name:    "no server binaries",
			opts:    Options{DataDir: filepath.Join(t.TempDir(), "pg"), BinDir: t.TempDir()},
			wantErr: []string{"PostgreSQL server binaries not found", "scripts/install-postgres.sh", "PG_BINDIR"},
		},
		{
			name:    "no pgvector",
			opts:    Options{DataDir: filepath.Join(t.TempDir(), "pg"), BinDir: fakeBinDir(t, contrib)},
			wantErr: []string{"pgvector is not installed for PostgreSQL 15", "extension", "scripts/install-postgres.sh"},
		},
		{
			name:    "pgvector too old",
			opts:    Options{DataDir: filepath.Join(t.TempDir(), "pg"), BinDir: fakeBinDir(t, withVector("0.7.4"))},
			wantErr: []string{`pgvector "0.7.4"`, "0.8 or newer", "scripts/install-postgres.sh"},
		},
		{
			name:    "no unaccent",
			opts:    Options{DataDir: filepath.Join(t.TempDir(), "pg"), BinDir: fakeBinDir(t, map[string]string{"vector": "default_version = '0.8.0'", "pg_trgm": ""})},
			wantErr: []string{"unaccent", "postgresql-contrib", "scripts/install-postgres.sh"},
		},
		{
			name:    "data dir holds something else",
			opts:    Options{DataDir: notACluster},
			wantErr: []string{"holds no PostgreSQL cluster", notACluster},
		},
		{
			name:    "port out of range",
			opts:    Options{DataDir: filepath.Join(t.TempDir(), "pg"), Port: 70000},
			wantErr: []string{"port 70000 is out of range"},
		},
	}
	if os.Geteuid() == 0 {
		private := filepath.Join(testBaseDir(t), "private")
		if err := os.Mkdir(private, 0o700); err != nil {
			t.Fatal(err)
		}
		stopAtCleanup(t, filepath.Join(private, "pg")) // in case Ensure wrongly starts a server
		tests = append(tests, struct {
			name    string
			opts    Options
			wantErr []string
		}{
			name:    "root with a data dir the server user cannot reach",
			opts:    Options{DataDir: filepath.Join(private, "pg")},
			wantErr: []string{"cannot enter", "chmod o+x"},
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Ensure(testContext(t), tt.opts)
			if err == nil {
				t.Fatal("Ensure succeeded, want an error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}
