package golden

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// recorder is a testing.TB that records a failure and, for Fatal, ends only its own goroutine.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true; runtime.Goexit() }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

// passes runs Check in its own goroutine and reports whether it passed.
func passes(t *testing.T, path, got string) bool {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, path, got)
	}()
	<-done
	return !r.failed
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	if passes(t, path, "a\n") {
		t.Error("a missing golden file passed")
	}
	*update = true
	written := passes(t, path, "a\n")
	*update = false
	if !written {
		t.Error("-update failed")
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "a\n" {
		t.Fatalf("-update wrote %q, %v", data, err)
	}
	if !passes(t, path, "a\n") {
		t.Error("equal output failed")
	}
	if passes(t, path, "b\n") {
		t.Error("different output passed")
	}
}
