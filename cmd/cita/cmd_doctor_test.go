package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag/pgstore"
)

func TestCheckPgvector(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, installed, available string
		ok                         bool
		want                       string
	}{
		{"current", "0.8.0", "0.8.0", true, "version 0.8.0"},
		{"newer", "0.10.1", "0.10.1", true, "version 0.10.1"},
		{"too old", "0.7.4", "0.7.4", false, "ALTER EXTENSION vector UPDATE"},
		{"missing package", "", "", false, "install pgvector 0.8"},
		{"available, not created yet", "", "0.8.1", true, "cita migrate"},
		{"available but old", "", "0.6.0", false, "install pgvector 0.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checkPgvector(tt.installed, tt.available)
			if c.ok != tt.ok || !strings.Contains(c.detail+" "+c.fix, tt.want) {
				t.Fatalf("checkPgvector(%q, %q) = %+v, want ok=%v mentioning %q", tt.installed, tt.available, c, tt.ok, tt.want)
			}
		})
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestDoctorReportsEachCheck(t *testing.T) {
	clearEnv(t)
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(context.Background(), cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	pool.Close()
	// The embedding endpoint answers but refuses the key; the chat endpoint is down.
	var gotAuth string
	embed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`))
	}))
	defer embed.Close()
	path := writeConfig(t, `
database_url: "`+cs+`"
chat:
  base_url: http://`+closedPort(t)+`/v1
  model: gpt-4o-mini
embedder:
  provider: openai
  base_url: `+embed.URL+`/v1
  model: text-embedding-3-small
  dimensions: 1536
  api_key: sk-wrong
slack:
  bot_token: xoxb-1-abc
  app_token: xapp-1-def
`)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--config", path, "doctor"}, &stdout, &stderr)
	out := stdout.String()
	if code != 1 {
		t.Fatalf("exit %d, want 1 (two endpoints fail):\n%s%s", code, out, stderr.String())
	}
	for _, want := range []string{
		"ok    configuration: valid",
		"ok    database: PostgreSQL",
		"ok    pgvector: version 0.",
		"ok    migrations: schema at migration",
		"WARN  server settings: maintenance_work_mem is", // the test cluster's 512 MB, against 1M chunks of 1536 dimensions
		"fix: as a superuser, if the server has the memory: ALTER SYSTEM SET maintenance_work_mem",
		"ok    slack: on, Socket Mode",
		"ok    discord: off",
		"FAIL  chat endpoint: GET http://127.0.0.1:",
		"unreachable",
		"fix: start the model server or correct chat.base_url",
		"FAIL  embedding endpoint: GET " + embed.URL + "/v1/models answered 401 Unauthorized: the API key was refused",
		"fix: set a valid key in the configuration or CITA_EMBEDDER_API_KEY",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if gotAuth != "Bearer sk-wrong" {
		t.Errorf("the endpoint check sent Authorization %q, want the configured key", gotAuth)
	}
}

func TestDoctorReportsAnUnmigratedSchema(t *testing.T) {
	clearEnv(t)
	cs, _ := testdb.Schema(t) // created, never migrated
	path := writeConfig(t, "database_url: \""+cs+"\"\n")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--config", path, "doctor"}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, stdout.String())
	}
	if out := stdout.String(); !strings.Contains(out, "FAIL  migrations") || !strings.Contains(out, "run `cita migrate`") {
		t.Fatalf("doctor output:\n%s", out)
	}
}
