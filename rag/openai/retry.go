package openai

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Backoff bounds. A Retry-After longer than maxRetryAfter is not waited out: the call fails and
// says how long the server asked for.
const (
	baseBackoff   = 500 * time.Millisecond
	maxBackoff    = 20 * time.Second
	maxRetryAfter = 2 * time.Minute
)

// errAttemptTimeout is the cause of an attempt's context when the per-attempt Timeout fires.
var errAttemptTimeout = errors.New("attempt timed out")

// retrier runs an operation with the retry policy: retry on 429, 5xx and timeouts, with exponential
// backoff and jitter, or the server's Retry-After when it sends one.
type retrier struct {
	maxRetries int
	timeout    time.Duration
	logger     *slog.Logger
	// sleep waits d or until ctx ends; tests replace it to record waits without spending them.
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

func newRetrier(cfg Config) *retrier {
	return &retrier{
		maxRetries: cfg.MaxRetries,
		timeout:    cfg.Timeout,
		logger:     cfg.Logger,
		sleep:      sleepContext,
		now:        time.Now,
	}
}

// attemptResult is what the retry loop learned from a failed attempt.
type attemptResult struct {
	err        error
	attempts   int
	status     int    // HTTP status of the last response, 0 when none arrived
	retryAfter string // the last response's Retry-After header
	timedOut   bool   // the last attempt hit the per-attempt Timeout

	retryAfterTooLong bool // the server asked to wait longer than maxRetryAfter
}

// do calls attempt until it succeeds, fails with a status that retrying cannot fix, runs out of
// retries, or ctx ends. When attemptTimeout is positive each attempt's ctx carries that timeout;
// attempts that manage their own deadline pass 0 and wrap errAttemptTimeout in their error.
// It returns nil on success, else a result describing the last failure.
func (r *retrier) do(ctx context.Context, op string, attemptTimeout time.Duration,
	attempt func(ctx context.Context) error) *attemptResult {
	for n := 0; ; n++ {
		meta := &responseMeta{}
		actx := context.WithValue(ctx, responseMetaKey{}, meta)
		cancel := context.CancelFunc(func() {})
		if attemptTimeout > 0 {
			actx, cancel = context.WithTimeoutCause(actx, attemptTimeout, errAttemptTimeout)
		}
		err := attempt(actx)
		timedOut := errors.Is(context.Cause(actx), errAttemptTimeout) || errors.Is(err, errAttemptTimeout)
		cancel()
		if err == nil {
			return nil
		}
		status, retryAfter := meta.get()
		res := &attemptResult{err: err, attempts: n + 1, status: status, retryAfter: retryAfter, timedOut: timedOut}
		if ctx.Err() != nil {
			res.err = errors.Join(context.Cause(ctx), err)
			return res
		}
		if !retryable(status, timedOut, err) || n >= r.maxRetries {
			return res
		}
		wait, fromHeader := r.waitBefore(n, status, retryAfter)
		if fromHeader && wait > maxRetryAfter {
			res.retryAfterTooLong = true
			return res
		}
		r.logger.WarnContext(ctx, "retrying model request",
			slog.String("op", op), slog.Int("attempt", n+1), slog.Int("status", status),
			slog.Bool("timed_out", timedOut), slog.Duration("wait", wait),
			slog.Bool("retry_after", fromHeader))
		if err := r.sleep(ctx, wait); err != nil {
			res.err = errors.Join(err, res.err)
			return res
		}
	}
}

// retryable reports whether another attempt may succeed: 408, 429 and 5xx answers, the
// per-attempt timeout, and network timeouts or resets before any answer.
func retryable(status int, timedOut bool, err error) bool {
	switch {
	case timedOut:
		return true
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500:
		return true
	case status != 0:
		return false
	}
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection reset") || strings.Contains(msg, "unexpected EOF") ||
		strings.HasSuffix(msg, ": EOF")
}

// waitBefore returns the wait before retry n+1 and whether it came from Retry-After.
func (r *retrier) waitBefore(n, status int, retryAfter string) (time.Duration, bool) {
	if retryAfter != "" && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) {
		if d, ok := parseRetryAfter(retryAfter, r.now()); ok {
			return d, true
		}
	}
	return backoff(n), false
}

// backoff is exponential with "equal jitter": half the step fixed, half random, so concurrent
// clients spread out but every wait grows.
func backoff(n int) time.Duration {
	step := baseBackoff << min(n, 10)
	if step > maxBackoff || step <= 0 {
		step = maxBackoff
	}
	half := step / 2
	return half + rand.N(half+1)
}

// parseRetryAfter reads a Retry-After value in delay-seconds or HTTP-date form; ok is false for
// anything else. Dates in the past give 0.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if !(secs >= 0 && secs <= 1e6) { // also rejects NaN
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(at.Sub(now), 0), true
}

// sleepContext waits d, or returns ctx's cause if ctx ends first.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// responseMeta is filled by captureTransport with the status and Retry-After of the response to
// the request whose context carries it (go-openai's errors do not expose headers).
type responseMeta struct {
	mu         sync.Mutex
	status     int
	retryAfter string
}

type responseMetaKey struct{}

func (m *responseMeta) get() (int, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status, m.retryAfter
}

// captureTransport records response metadata for the retry loop and otherwise defers to base.
type captureTransport struct {
	base http.RoundTripper
}

// RoundTrip performs the request with the base transport, returning its response and error as is.
func (t *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err == nil {
		if m, ok := req.Context().Value(responseMetaKey{}).(*responseMeta); ok {
			m.mu.Lock()
			m.status, m.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
			// OpenAI and Azure may also send the finer retry-after-ms; it wins when it parses.
			if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
				m.retryAfter = strconv.FormatFloat(ms/1000, 'f', -1, 64)
			}
			m.mu.Unlock()
		}
	}
	return resp, err
}
