package pgstore

import (
	"strings"
	"testing"
	"time"
)

func TestWALHistoryReplayedAsOf(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var h walHistory
	for i, lsn := range []int64{100, 100, 250, 400} { // idle, then writing
		h.add(walSample{at: t0.Add(time.Duration(i) * time.Second), lsn: lsn}, time.Hour)
	}
	tests := []struct {
		replayed int64
		want     time.Time
		ok       bool
	}{
		{400, t0.Add(3 * time.Second), true}, // caught up
		{399, t0.Add(2 * time.Second), true}, // holds all the primary had at 2s, not at 3s
		{100, t0.Add(time.Second), true},     // the idle second counts as replayed
		{99, time.Time{}, false},             // behind everything the history holds
	}
	for _, tt := range tests {
		got, ok := h.replayedAsOf(tt.replayed)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("replayedAsOf(%d) = %v, %v; want %v, %v", tt.replayed, got, ok, tt.want, tt.ok)
		}
	}
	h.add(walSample{at: t0.Add(time.Hour + 3*time.Second), lsn: 500}, time.Hour)
	if len(h.samples) != 2 || h.samples[0].lsn != 400 {
		t.Errorf("an hour later the history holds %v, want the samples from 3s on", h.samples)
	}
}

// TestOpenReplicasQuotesNoPassword: pgx redacts passwords from its parse errors on a best-effort
// basis; a replica's unparsable connection string must not reach logs or the terminal at all.
func TestOpenReplicasQuotesNoPassword(t *testing.T) {
	t.Parallel()
	_, err := OpenReplicas([]string{`host=replica1 user=reader password="hunter2 secret77" port=notaport`}, PoolOptions{})
	if err == nil {
		t.Fatal("an unparsable connection string was accepted")
	}
	if strings.Contains(err.Error(), "secret77") || !strings.Contains(err.Error(), "database.read_urls[0]") {
		t.Fatalf("error %q: want it to name the entry and quote no password", err)
	}
}
