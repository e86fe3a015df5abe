package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/citahq/cita/internal/syncbuf"
)

// serving is `cita --config PATH serve` running in the background of a test.
type serving struct {
	stdout, stderr syncbuf.Buffer
	cancel         context.CancelFunc
	exited         chan int
}

// startServe runs `cita --config path serve` until the test ends or stop is called, and waits
// until http://addr/healthz answers 200.
func startServe(t *testing.T, ctx context.Context, path, addr string) *serving {
	t.Helper()
	sctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	s := &serving{cancel: cancel, exited: make(chan int, 1)}
	go func() { s.exited <- run(sctx, []string{"--config", path, "serve"}, &s.stdout, &s.stderr) }()
	waitFor(t, "/healthz", func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
	return s
}

// stop cancels serve's context and fails the test unless it exits 0 within the shutdown grace.
func (s *serving) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.exited:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, s.stderr.String())
		}
	case <-time.After(40 * time.Second):
		t.Fatal("serve did not stop within the shutdown grace")
	}
}
