package extract

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	dir := os.Getenv("PROBE_DIR")
	if dir == "" {
		t.Skip()
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		start := time.Now()
		doc, err := Extract(context.Background(), e.Name(), data, DefaultLimits())
		t.Logf("===== %s (%v) err=%v", e.Name(), time.Since(start), err)
		if err == nil {
			os.WriteFile("/tmp/probe/"+e.Name()+".txt", []byte(dumpDocument(doc)), 0o644)
		}
	}
}
