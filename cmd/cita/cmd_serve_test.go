package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot/slack/slackload"
	"github.com/citahq/cita/internal/metrics"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestReadyzFollowsTheSchemaVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ready := &readiness{pool: pool}
	mux := http.NewServeMux()
	serveRoutes(mux, ready, metrics.New(), slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	if code, body := get(t, srv.URL+"/readyz"); code != http.StatusOK {
		t.Fatalf("freshly migrated: /readyz %d %q", code, body)
	}
	// Forget the newest migration, as if the database were behind this binary.
	var newest int64
	if err := pool.QueryRow(ctx, "DELETE FROM goose_db_version WHERE version_id = (SELECT max(version_id) FROM goose_db_version) RETURNING version_id").Scan(&newest); err != nil {
		t.Fatal(err)
	}
	code, body := get(t, srv.URL+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "cita migrate") {
		t.Fatalf("schema behind: /readyz %d %q, want 503 naming cita migrate", code, body)
	}
	if code, _ := get(t, srv.URL+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz %d while the schema is behind; liveness must not depend on the database", code)
	}
	if _, err := pool.Exec(ctx, "INSERT INTO goose_db_version (version_id, is_applied) VALUES ($1, true)", newest); err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, srv.URL+"/readyz"); code != http.StatusOK {
		t.Fatalf("version row restored: /readyz %d %q", code, body)
	}
	ready.draining.Store(true)
	if code, body := get(t, srv.URL+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
		t.Fatalf("draining: /readyz %d %q", code, body)
	}
}

// waitFor polls cond every 20 ms for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeAnswersAndExposesMetrics runs `cita serve` with Slack over HTTP against a loopback
// fake Slack: a signed mention is answered, /metrics counts it with its stages, /readyz is
// ready, logs are JSON, and SIGTERM (ctx) stops the server cleanly.
func TestServeAnswersAndExposesMetrics(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	emb := hashembed.New(0)
	store, err := pgstore.New(pool, emb.Info(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	text := "Every employee gets 22 vacation days per year. Vacation requests need two weeks of notice."
	chunk := rag.Chunk{Heading: "Vacation policy", Content: text}
	chunk.Embedding = emb.Vector(chunk.Text())
	if _, _, err := store.ReplaceDocument(ctx, rag.Document{Source: "test", ExternalID: "vacation.md", Title: "Vacation policy", Lang: "en",
		UpdatedAt: time.Now(), ContentHash: "h1", Groups: []string{"everyone"}}, []rag.Chunk{chunk}); err != nil {
		t.Fatal(err)
	}
	pool.Close()

	fake := slackload.NewFakeSlack()
	defer fake.Close()
	addr := closedPort(t)
	const secret = "serve-test-signing-secret"
	path := writeConfig(t, fmt.Sprintf(`
database_url: "%s"
listen: %s
slack:
  bot_token: xoxb-serve-test
  mode: http
  signing_secret: %s
  api_url: %s
  disclaimer: "Generated from our handbook; check the source before acting."
server:
  workers: 2
  queue_size: 4
database:
  read_urls: ["%s"] # the primary itself: not a standby, so skipped
`, cs, addr, secret, fake.APIURL(), cs))
	srv := startServe(t, ctx, path, addr)
	base := "http://" + addr
	if code, body := get(t, base+"/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz %d %q", code, body)
	}

	body := []byte(`{"token":"x","team_id":"T1","api_app_id":"A1","type":"event_callback","event_id":"EvServe1","event_time":1700000000,` +
		`"event":{"type":"app_mention","user":"U00001","text":"<@UBOT> How many vacation days do I get per year?","ts":"1700000000.000100",` +
		`"channel":"C00001","event_ts":"1700000000.000100","team":"T1"}}`)
	req, _ := http.NewRequest(http.MethodPost, base+"/slack/events", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	slackload.Sign(req.Header, body, secret, time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("event acknowledged with %s", resp.Status)
	}

	var page string
	waitFor(t, "the answer to be counted", func() bool {
		_, page = get(t, base+"/metrics")
		return strings.Contains(page, `cita_questions_total{outcome="answered",platform="slack"} 1`)
	})
	waitFor(t, "the final reply", func() bool {
		_, page = get(t, base+"/metrics")
		return strings.Contains(page, `cita_reply_visible_seconds_count{platform="slack",step="final"} 1`)
	})
	for _, want := range []string{
		`cita_reply_visible_seconds_count{platform="slack",step="placeholder"} 1`,
		`cita_stage_duration_seconds_count{stage="search"} 1`,
		`cita_stage_duration_seconds_count{stage="fts_arm"} 1`,
		`cita_stage_duration_seconds_count{stage="vector_arm"} 1`,
		`cita_platform_request_duration_seconds_count{code="200",method="chat.postMessage",platform="slack"}`,
		`cita_answer_queue_depth 0`, `cita_answer_workers 2`, `cita_answer_queue_capacity 4`,
		`cita_db_connections_acquired`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// Each arm reads once for the question and, when a translator is installed, once more for
	// what its translation adds: 2 or 4 reads, every one on the primary.
	reads := "none"
	for _, line := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(line, `cita_db_search_reads_total{target="primary"} `); ok {
			reads = v
		}
	}
	if reads != "2" && reads != "4" {
		t.Errorf("/metrics: %s search reads on the primary, want 2 (both arms) or 4 (both arms, with the translation)", reads)
	}
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, `cita_db_replica_healthy{`) && !strings.HasSuffix(line, " 0") ||
			strings.HasPrefix(line, `cita_db_replica_skips_total{reason="not_standby"`) && !strings.HasSuffix(line, " "+reads) {
			t.Errorf("/metrics: %s; the read URL is not a standby: want it unhealthy and skipped by every read (%s)", line, reads)
		}
	}
	if !strings.Contains(page, `cita_translation_failures_total{reason="error"} 0`) {
		t.Error("/metrics lacks cita_translation_failures_total")
	}
	if !strings.Contains(page, `cita_db_replica_healthy{`) {
		t.Error("/metrics lacks cita_db_replica_healthy")
	}
	if fake.Calls()["chat.update"] == 0 {
		t.Error("the answer was never written into the placeholder")
	}
	if got := fake.FinalBlocks("C00001"); !strings.Contains(got, "cita_disclaimer") || !strings.Contains(got, "check the source before acting") {
		t.Errorf("slack.disclaimer is not under the answer: %s", got)
	}

	srv.stop(t)
	logs := srv.stderr.String()
	if !strings.Contains(logs, `"msg":"serving"`) || !strings.Contains(logs, `"msg":"stopped"`) {
		t.Errorf("logs are not JSON with serving and stopped records:\n%s", logs)
	}
}
