// Package golden compares what a test produced with a golden file, and rewrites the file
// instead when the test binary runs with -update. A test package that imports it gets the
// -update flag from here and must not define its own.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Check fails t when got differs from the file at path, or when the file cannot be read. Under
// -update it first writes got to path, creating its folder.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (go test -run '%s' -update writes it): %v", t.Name(), err)
	}
	if got != string(want) {
		t.Errorf("differs from the golden file %s (go test -run '%s' -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", path, t.Name(), got, want)
	}
}
