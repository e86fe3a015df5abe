package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/internal/testdb"
)

// TestEvalLeaks runs `cita eval --leaks` as an operator would: it asks the questions through
// every path (the CLI path with `cita ask --explain`'s printer), reports them with the time,
// finds no leak, and drops its namespace.
func TestEvalLeaks(t *testing.T) {
	clearEnv(t)
	cs, _ := testdb.Schema(t)
	cfg := writeConfig(t, fmt.Sprintf("database_url: %q\n", cs))
	var stdout, stderr bytes.Buffer
	argv := []string{"--config", cfg, "eval", "--leaks", "--questions", "150", "--seed", "7"}
	if code := run(context.Background(), argv, &stdout, &stderr); code != 0 {
		t.Fatalf("cita %v exited %d:\n%s\n%s", argv, code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	t.Log(out)
	for _, want := range []string{"150 questions", "slack mention", "discord /ask", "cli ask", "mcp search", "agent steps via mcp ask",
		"tries  allowed   silent  leaks", "in flight:", "leaks: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	conn, err := pgx.Connect(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	_, schema, ok := strings.Cut(stderr.String(), "namespace ")
	schema, _, _ = strings.Cut(schema, "\n")
	if !ok || !strings.HasPrefix(schema, "cita_leaks_") {
		t.Fatalf("stderr names no namespace: %s", stderr.String())
	}
	var left bool
	if err := conn.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left {
		t.Errorf("namespace %s was not dropped", schema)
	}
}
