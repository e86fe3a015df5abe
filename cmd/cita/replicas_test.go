package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// replicaConfig is a configuration with the pair's primary and, when maxLag is set, its standby
// as the read replica.
func replicaConfig(t *testing.T, pair *testdb.Replicated, maxLag string, readURLs ...string) string {
	t.Helper()
	text := fmt.Sprintf("database_url: %q\n", pair.Primary)
	if maxLag != "" {
		text += "database:\n  max_replica_lag: " + maxLag + "\n  read_urls:\n"
		for _, u := range readURLs {
			text += fmt.Sprintf("    - %q\n", u)
		}
	}
	return writeConfig(t, text)
}

// askOutput runs `cita ask --no-cache` and returns what it printed.
func askOutput(t *testing.T, configPath, question string) string {
	t.Helper()
	return askWith(t, configPath, "--no-cache", question)
}

// askWith runs `cita ask` with args and returns what it printed.
func askWith(t *testing.T, configPath string, args ...string) string {
	t.Helper()
	question := args[len(args)-1]
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"--config", configPath, "ask"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("cita ask %q exited %d: %s", question, code, stderr.String())
	}
	return stdout.String()
}

// TestAskSearchesThroughTheReadReplica runs `cita ask` with database.read_urls naming a real
// streaming standby whose replay is paused: within max_replica_lag the search runs there (a
// document only the primary has is not found), a document deleted on the primary is not
// answered, and with a smaller max_replica_lag the lagging replica is skipped. `cita doctor`
// reports the replica.
func TestAskSearchesThroughTheReadReplica(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	pair := testdb.NewReplicated(t)
	logger := slog.New(slog.DiscardHandler)
	pool, err := pgstore.Open(ctx, pair.Primary, pgstore.PoolOptions{}, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	emb := hashembed.New(0)
	store, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	index := func(path, title, text string) {
		t.Helper()
		chunk := rag.Chunk{Heading: title, Content: text}
		chunk.Embedding = emb.Vector(chunk.Text())
		if _, _, err := store.ReplaceDocument(ctx, rag.Document{Source: "test", ExternalID: path, Title: title, Lang: "en",
			UpdatedAt: time.Date(2025, 5, 6, 0, 0, 0, 0, time.UTC), ContentHash: path, Groups: []string{"everyone"}}, []rag.Chunk{chunk}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.CompactStats(ctx); err != nil {
			t.Fatal(err)
		}
	}
	index("remote.md", "Remote work policy", "Employees may work remotely up to three days per week with their manager's approval.")
	pair.WaitReplayed(t)
	pair.PauseReplay(t)

	patient := replicaConfig(t, pair, "1h", pair.Standby)
	const remoteQ, laptopQ = "How many days per week may employees work remotely?", "Where do new hires collect their zanzibar laptop?"
	// Answered through the replica and stored in the answer cache (on the primary).
	if out := askWith(t, patient, remoteQ); !strings.Contains(out, "remote.md") {
		t.Fatalf("cita ask through the replica does not cite remote.md:\n%s", out)
	}
	index("onboarding.md", "Laptop onboarding", "New hires collect their zanzibar laptop from the service desk on the first day.")
	if out := askOutput(t, replicaConfig(t, pair, ""), laptopQ); !strings.Contains(out, "onboarding.md") {
		t.Fatalf("cita ask on the primary does not cite onboarding.md (the test would prove nothing):\n%s", out)
	}
	if out := askOutput(t, patient, laptopQ); strings.Contains(out, "onboarding.md") {
		t.Errorf("cita ask cited onboarding.md, which only the primary has: it did not search through the replica:\n%s", out)
	}

	if n, err := store.DeleteDocuments(ctx, "test", []string{"remote.md"}); err != nil || n != 1 {
		t.Fatalf("delete remote.md: %d, %v", n, err)
	}
	if out := askOutput(t, patient, remoteQ); strings.Contains(out, "remote.md") {
		t.Errorf("cita ask answered from remote.md, deleted on the primary, through the lagging replica:\n%s", out)
	}
	// The cache's version check runs on the primary: the cached answer citing remote.md is stale.
	if out := askWith(t, patient, remoteQ); strings.Contains(out, "remote.md") {
		t.Errorf("cita ask served the cached answer citing remote.md, deleted on the primary:\n%s", out)
	}

	strict := replicaConfig(t, pair, "1s", pair.Standby)
	time.Sleep(1100 * time.Millisecond) // the replica's last replayed commit is now over 1s old
	if out := askOutput(t, strict, laptopQ); !strings.Contains(out, "onboarding.md") {
		t.Errorf("cita ask with max_replica_lag 1s did not skip the lagging replica (onboarding.md not cited):\n%s", out)
	}

	t.Run("doctor", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		run(ctx, []string{"--config", replicaConfig(t, pair, "1s", pair.Standby, pair.Primary), "doctor"}, &stdout, &stderr)
		out := stdout.String()
		for _, want := range []string{"WARN  read replica ", "over database.max_replica_lag 1s: searches skip it",
			"FAIL  read replica ", "is not a standby (not in recovery)"} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor output lacks %q:\n%s", want, out)
			}
		}
		pair.ResumeReplay(t)
		pair.WaitReplayed(t)
		stdout.Reset()
		run(ctx, []string{"--config", replicaConfig(t, pair, "1h", pair.Standby), "doctor"}, &stdout, &stderr)
		if out := stdout.String(); !strings.Contains(out, "ok    read replica ") {
			t.Errorf("doctor does not pass the caught-up replica:\n%s", out)
		}
	})
}
