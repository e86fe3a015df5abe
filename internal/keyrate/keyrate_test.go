package keyrate

import (
	"testing"
	"time"
)

func TestEachKeyHasItsOwnBucket(t *testing.T) {
	t.Parallel()
	l := New(60, 2) // one a second, two at once
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for i, want := range []bool{true, true, false} {
		if got := l.Allow("alice", t0); got != want {
			t.Errorf("alice's call %d at once: %v, want %v", i+1, got, want)
		}
	}
	if !l.Allow("bob", t0) {
		t.Error("bob is limited by alice's calls")
	}
	if !l.Allow("alice", t0.Add(time.Second)) {
		t.Error("alice has no token a second later")
	}
}

func TestIdleBucketsAreForgotten(t *testing.T) {
	t.Parallel()
	l := New(1, 1)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	l.Allow("alice", t0)
	l.Allow("bob", t0.Add(2*time.Hour)) // sweeps
	if _, ok := l.buckets["alice"]; ok {
		t.Error("alice's bucket, idle for two hours, is still kept")
	}
}

func TestNilLimiterAllowsEverything(t *testing.T) {
	t.Parallel()
	var l *Limiter
	if !l.Allow("anyone", time.Now()) {
		t.Error("a nil limiter refused")
	}
}
