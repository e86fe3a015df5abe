package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestFixturesAreCurrent regenerates every fixture and compares it with the committed copy that
// sync/extract's tests and golden files read, so a change to a writer cannot leave them stale.
func TestFixturesAreCurrent(t *testing.T) {
	t.Parallel()
	committed := filepath.Join("..", "..", "testdata", "fixtures")
	generated := t.TempDir()
	if err := run(generated); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(generated)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("fixturegen wrote nothing")
	}
	for _, e := range entries {
		got, err := os.ReadFile(filepath.Join(generated, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(committed, e.Name()))
		if err != nil {
			t.Fatalf("%s is generated but not committed: %v", e.Name(), err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the committed fixture: run go generate ./sync/extract, then go test ./sync/extract -run 'TestGolden|TestGeneratedFixtures' -update and review the golden diff", e.Name())
		}
	}
}
