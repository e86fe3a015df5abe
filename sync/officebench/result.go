package officebench

import (
	"fmt"
	"time"
)

// Result is one measured indexing run.
type Result struct {
	Files        int     `json:"files"`
	Failed       int     `json:"failed"`
	Chunks       int     `json:"chunks"`
	Bytes        int64   `json:"bytes,omitempty"`
	LargestBytes int64   `json:"largest_file_bytes,omitempty"`
	Seconds      float64 `json:"seconds"`
	FilesPerS    float64 `json:"files_per_s"`
	ChunksPerS   float64 `json:"chunks_per_s"`
	PeakHeapMB   float64 `json:"peak_heap_mb"`
	PeakGoMB     float64 `json:"peak_go_total_mb"`
	PeakRSSMB    float64 `json:"peak_rss_mb"`
	StartRSSMB   float64 `json:"start_rss_mb"`
}

// NewResult computes rates from counts and the wall time, and converts peaks to MiB.
func NewResult(files, failed, chunks int, took time.Duration, peaks Peaks) Result {
	r := Result{
		Files: files, Failed: failed, Chunks: chunks, Seconds: took.Seconds(),
		PeakHeapMB: mib(peaks.HeapBytes), PeakGoMB: mib(peaks.GoTotalBytes),
		PeakRSSMB: mib(peaks.RSSBytes), StartRSSMB: mib(peaks.RSSAtStartBytes),
	}
	if s := took.Seconds(); s > 0 {
		r.FilesPerS, r.ChunksPerS = float64(files)/s, float64(chunks)/s
	}
	return r
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// String is the one-line summary `cita index --stats` and `cita bench --office` print.
func (r Result) String() string {
	s := fmt.Sprintf("%d files (%d failed), %d chunks in %.1fs: %.1f files/s, %.0f chunks/s | peak memory: RSS %.0f MiB (%.0f MiB at start), Go heap %.0f MiB, Go total %.0f MiB",
		r.Files, r.Failed, r.Chunks, r.Seconds, r.FilesPerS, r.ChunksPerS, r.PeakRSSMB, r.StartRSSMB, r.PeakHeapMB, r.PeakGoMB)
	if r.LargestBytes > 0 {
		s += fmt.Sprintf(" | folder %.1f MiB, largest file %.0f KiB", float64(r.Bytes)/(1<<20), float64(r.LargestBytes)/(1<<10))
	}
	return s
}
