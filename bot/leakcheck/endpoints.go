package leakcheck

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"
)

// endpoints are one platform's adapters, one per replica, each behind a loopback HTTP server of
// its own, and the client that posts to them what the platform would.
type endpoints[A any] struct {
	adapters []A
	servers  []*httptest.Server
	client   *http.Client
	timeout  time.Duration // how long a reply, or an adapter's shutdown, may take
}

func newEndpoints[A any](timeout time.Duration) endpoints[A] {
	return endpoints[A]{client: &http.Client{Timeout: 30 * time.Second}, timeout: timeout}
}

// serve puts adapter a, answering through h, behind a new loopback server.
func (e *endpoints[A]) serve(a A, h http.Handler) {
	e.adapters = append(e.adapters, a)
	e.servers = append(e.servers, httptest.NewServer(h))
}

// shutdown lets each adapter's answers in flight finish (stop, within timeout), then stops the
// servers.
func (e *endpoints[A]) shutdown(ctx context.Context, stop func(A, context.Context) error) {
	for _, a := range e.adapters {
		sctx, cancel := context.WithTimeout(ctx, e.timeout)
		_ = stop(a, sctx)
		cancel()
	}
	for _, s := range e.servers {
		s.Close()
	}
}

// postSigned posts body to path on one replica's server with header (the platform's signature
// among it) and returns the response's body; an error unless the status is 200.
func (e *endpoints[A]) postSigned(ctx context.Context, replica int, path string, header http.Header, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.servers[replica].URL+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s: %s", resp.Status, raw)
	}
	return raw, nil
}

// await returns what reply brings within timeout; ok is false when the time ran out, or when
// ctx ended (err is then ctx's).
func await[T any](ctx context.Context, reply <-chan T, timeout time.Duration) (v T, ok bool, err error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case v = <-reply:
		return v, true, nil
	case <-t.C:
		return v, false, nil
	case <-ctx.Done():
		return v, false, ctx.Err()
	}
}
