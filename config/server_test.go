package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServerValidateNamesTheField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    ServerConfig
		want string // "" means valid
	}{
		{"zero value", ServerConfig{}, ""},
		{"explicit", ServerConfig{Workers: 4, QueueSize: -1, UserRateLimit: RateLimitConfig{PerMinute: 10, Burst: 3}, Log: LogConfig{Format: "json", Level: "debug"}}, ""},
		{"negative workers", ServerConfig{Workers: -2}, "server.workers"},
		{"queue below -1", ServerConfig{QueueSize: -5}, "server.queue_size"},
		{"rate without burst", ServerConfig{WorkspaceRateLimit: RateLimitConfig{PerMinute: 100}}, "server.workspace_rate_limit: set burst"},
		{"unknown log format", ServerConfig{Log: LogConfig{Format: "logfmt"}}, "server.log.format"},
		{"unknown log level", ServerConfig{Log: LogConfig{Level: "verbose"}}, "server.log.level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErr(t, tt.s.Validate(), nonEmpty(tt.want)...)
		})
	}
}

func TestServerDefaultsAndEnv(t *testing.T) {
	t.Setenv("CITA_WORKERS", "3")
	t.Setenv("CITA_LOG_FORMAT", "text")
	s := ServerConfig{QueueSize: 10}
	if err := s.ApplyEnv(); err != nil {
		t.Fatal(err)
	}
	s = s.WithDefaults()
	if s.Workers != 3 || s.QueueSize != 10 || s.Log.Format != "text" || s.Log.Level != "info" || s.ShutdownGrace != 30*time.Second {
		t.Fatalf("effective server config %+v", s)
	}
	t.Setenv("CITA_QUEUE_SIZE", "lots")
	if err := s.ApplyEnv(); err == nil || !strings.Contains(err.Error(), "CITA_QUEUE_SIZE") {
		t.Fatalf("a non-number in CITA_QUEUE_SIZE: %v", err)
	}
}

func TestLoadReadsTheServerSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cita.yaml")
	if err := os.WriteFile(path, []byte("server:\n  workers: 2\n  queue_size: 5\n  log:\n    format: yaml\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "server.log.format") {
		t.Fatalf("Load with a bad log format: %v", err)
	}
}
