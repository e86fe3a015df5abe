package main

import (
	"fmt"
	"time"

	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/officebench"
)

// indexStats measures one `cita index --stats` run: wall time from listing to the last write,
// and the process's memory peaks. A nil *indexStats (no --stats) does nothing.
type indexStats struct {
	meter *officebench.Meter
	start time.Time
}

// startIndexStats starts measuring when enabled; nil otherwise.
func startIndexStats(enabled bool) *indexStats {
	if !enabled {
		return nil
	}
	return &indexStats{meter: officebench.StartMeter(20 * time.Millisecond), start: time.Now()}
}

// print stops measuring and prints files/s, chunks/s and peak memory. Files counts every listed
// file (unchanged ones included: skipping them is part of the throughput).
func (s *indexStats) print(e *env, rep *indexer.Report) {
	if s == nil || rep == nil {
		return
	}
	peaks := s.meter.Stop()
	res := officebench.NewResult(rep.Listed, len(rep.Failed), rep.Chunks, time.Since(s.start), peaks)
	fmt.Fprintf(e.stdout, "stats: %s\n", res)
}
