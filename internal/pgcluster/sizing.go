package pgcluster

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Machine is what the private server's settings are sized for.
type Machine struct {
	Memory int64 // bytes the server may use: the machine's, or its cgroup's limit when lower
	CPUs   int
	// SharedMemory is the size of /dev/shm, where PostgreSQL puts the memory a parallel index
	// build shares between its processes (0: unknown).
	SharedMemory int64
	// FreeDisk is the free space on the data directory's file system (0: unknown).
	FreeDisk int64
}

const (
	mib = int64(1) << 20
	gib = int64(1) << 30
)

// DetectMachine reads the machine's memory (/proc/meminfo, lowered to a cgroup v2 or v1 memory
// limit), its CPUs, the size of /dev/shm and the free space where dataDir lives. What it cannot
// read it leaves at a safe small value (memory 2 GiB, 1 CPU) or 0.
func DetectMachine(dataDir string) Machine {
	m := Machine{Memory: 2 * gib, CPUs: max(runtime.NumCPU(), 1)}
	if total := memTotal(); total > 0 {
		m.Memory = total
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if limit, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && limit > 0 && limit < m.Memory {
			m.Memory = limit
		}
	}
	m.SharedMemory = fsSize("/dev/shm", false)
	for dir := dataDir; dir != ""; dir = filepath.Dir(dir) { // the data directory may not exist yet
		if m.FreeDisk = fsSize(dir, true); m.FreeDisk > 0 || dir == filepath.Dir(dir) {
			break
		}
	}
	return m
}

// memTotal returns MemTotal from /proc/meminfo in bytes, or 0.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// fsSize returns the size (or, with free, the space available) of the file system holding
// path, or 0 when it cannot be read.
func fsSize(path string, free bool) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0
	}
	if free {
		return int64(st.Bavail) * int64(st.Bsize)
	}
	return int64(st.Blocks) * int64(st.Bsize)
}

// HNSWBytesPerVector is about how much memory pgvector's HNSW build needs per vector of dim
// dimensions (m = 16): measured at 384 dimensions, where 16 MB held 7,243 vectors (2.3 kB
// each: the vector and its neighbour lists).
func HNSWBytesPerVector(dim int) int64 { return int64(dim)*4 + 780 }

// Sizes are the server settings Sized chooses, in bytes where they are sizes.
type Sizes struct {
	SharedBuffers, EffectiveCache, MaintenanceWorkMem, AutovacuumWorkMem, MaxWALSize int64
	ParallelMaintenanceWorkers                                                       int
}

// Sized sizes the server for m. A quarter of the memory goes to shared buffers and a quarter
// to maintenance (an HNSW build keeps its whole graph there: 1M vectors of 384 dimensions take
// about 2.3 GB, and a graph that does not fit is built several times slower on disk), each
// capped at 8 GB; index builds run one process per CPU when their memory fits in half of
// /dev/shm (a parallel build shares it there), else one; the WAL grows to a twentieth of the free disk, between 1 and 16 GB, so a bulk
// load checkpoints every minute or so, not every few seconds. small (test clusters, several of
// which share a machine) caps shared buffers and maintenance at 512 MB.
func Sized(m Machine, small bool) Sizes {
	clamp := func(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }
	limit := 8 * gib
	if small {
		limit = 512 * mib
	}
	s := Sizes{
		SharedBuffers:      clamp(m.Memory/4, 128*mib, limit),
		EffectiveCache:     clamp(m.Memory*3/4, 256*mib, 64*gib),
		MaintenanceWorkMem: clamp(m.Memory/4, 64*mib, limit),
		AutovacuumWorkMem:  clamp(m.Memory/32, 64*mib, gib),
		MaxWALSize:         clamp(m.FreeDisk/20, gib, 16*gib),
	}
	s.ParallelMaintenanceWorkers = max(m.CPUs-1, 0)
	if m.SharedMemory > 0 && s.MaintenanceWorkMem > m.SharedMemory/2 {
		// A parallel build shares its graph through /dev/shm, which a container may keep
		// small (64 MB by default): there a build that kept its graph in memory would fail.
		// Memory matters more than a second process, so builds run in one.
		s.ParallelMaintenanceWorkers = 0
	}
	return s
}

// settings returns s as postgresql.conf lines' names and values.
func (s Sizes) settings() [][2]string {
	return [][2]string{
		{"shared_buffers", pgSize(s.SharedBuffers)},
		{"effective_cache_size", pgSize(s.EffectiveCache)},
		{"maintenance_work_mem", pgSize(s.MaintenanceWorkMem)},
		{"autovacuum_work_mem", pgSize(s.AutovacuumWorkMem)},
		{"max_parallel_maintenance_workers", strconv.Itoa(s.ParallelMaintenanceWorkers)},
		{"max_wal_size", pgSize(s.MaxWALSize)},
		{"min_wal_size", pgSize(min(s.MaxWALSize/4, gib))},
	}
}

// pgSize writes a size in PostgreSQL's units, rounded down to a whole MB ('6144MB').
func pgSize(b int64) string {
	return fmt.Sprintf("'%dMB'", max(b/mib, 1))
}
