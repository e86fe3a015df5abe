package officebench

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"
)

// Peaks is the highest memory a Meter saw.
type Peaks struct {
	// HeapBytes is the peak of live and not yet swept heap objects (runtime/metrics
	// /memory/classes/heap/objects:bytes): what the Go code held, garbage included.
	HeapBytes uint64
	// GoTotalBytes is the peak of all memory the Go runtime mapped (heap, stacks, metadata).
	GoTotalBytes uint64
	// RSSBytes is the process's peak resident set (VmHWM in /proc/self/status): everything,
	// including memory outside the Go heap such as pdfium's WebAssembly linear memory. Zero where
	// /proc is unavailable.
	RSSBytes uint64
	// RSSAtStartBytes is the resident set when the Meter started: the baseline RSSBytes includes.
	RSSAtStartBytes uint64
}

// Meter samples memory in the background from Start to Stop.
type Meter struct {
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	peaks   Peaks
	samples []metrics.Sample
}

// StartMeter collects garbage, resets the process's peak-RSS mark when the kernel allows it (so
// work done before, such as generating files, does not count) and samples memory every interval
// until Stop.
func StartMeter(interval time.Duration) *Meter {
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	m := &Meter{
		stop: make(chan struct{}),
		done: make(chan struct{}),
		samples: []metrics.Sample{
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/total:bytes"},
		},
	}
	m.peaks.RSSAtStartBytes = procStatus("VmRSS:")
	m.sample()
	go m.run(interval)
	return m
}

func (m *Meter) run(interval time.Duration) {
	defer close(m.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.sample()
		}
	}
}

func (m *Meter) sample() {
	metrics.Read(m.samples)
	m.mu.Lock()
	defer m.mu.Unlock()
	if v := m.samples[0].Value; v.Kind() == metrics.KindUint64 {
		m.peaks.HeapBytes = max(m.peaks.HeapBytes, v.Uint64())
	}
	if v := m.samples[1].Value; v.Kind() == metrics.KindUint64 {
		m.peaks.GoTotalBytes = max(m.peaks.GoTotalBytes, v.Uint64())
	}
}

// Stop ends sampling and returns the peaks, with the process's peak RSS read last.
func (m *Meter) Stop() Peaks {
	close(m.stop)
	<-m.done
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.peaks.RSSBytes = procStatus("VmHWM:")
	return m.peaks
}

// resetPeakRSS asks Linux to reset VmHWM to the current RSS ("5" in clear_refs); elsewhere, or
// when not permitted, the peak stays the process's lifetime peak.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// procStatus returns a "kB" field of /proc/self/status in bytes; 0 when it cannot be read.
func procStatus(field string) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(field)) {
			continue
		}
		fields := bytes.Fields(line[len(field):])
		if len(fields) == 0 {
			return 0
		}
		kb, err := strconv.ParseUint(string(fields[0]), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
