package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
)

// folderEnv is a schema with a synced folder source (everyone reads it, hr reads hr/**), a
// configuration naming them, and the chat handler over the same database, as `cita serve` wires
// it: what the commands that read the bot's record (feedback export, gaps) run against.
type folderEnv struct {
	cfg     string
	store   *pgbot.Store
	handler *bot.Handler
	cita    func(args ...string) string // runs cita with the configuration; fails the test on a non-zero exit
}

func newFolderEnv(t *testing.T, files map[string]string) *folderEnv {
	t.Helper()
	clearEnv(t)
	ctx := context.Background()
	cs, _ := testdb.Schema(t)
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := &folderEnv{cfg: writeConfig(t, fmt.Sprintf(`
database_url: %q
sources:
  - name: share
    type: folder
    folder: {path: %q}
    access:
      default_groups: [everyone]
      rules: [{match: "hr/**", groups: [hr]}]
`, cs, root))}
	env.cita = func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(ctx, append([]string{"--config", env.cfg}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("cita %v exited %d: %s", args, code, stderr.String())
		}
		return stdout.String()
	}
	env.cita("sync")
	logger := slog.New(slog.DiscardHandler)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{}, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	emb := hashembed.New(0)
	index, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	env.store = pgbot.New(pool)
	env.handler = bot.NewHandler(rag.NewPipeline(rag.NewHybrid(index, emb, rag.DefaultHybridOptions()), rag.Extractive{}, nil, rag.PipelineOptions{}),
		env.store, bot.HandlerOptions{Logger: logger})
	return env
}
