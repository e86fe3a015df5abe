// Package archtest checks the project's dependency rules: imports point inward, and the domain
// (rag/) knows nothing of ingestion, chat platforms, configuration or the command line.
package archtest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/citahq/cita"

// TestRagImportsNoOuterLayer fails when any package under rag/ (its tests included) depends,
// directly or through another package, on sync/, bot/, cmd/ or config/.
func TestRagImportsNoOuterLayer(t *testing.T) {
	t.Parallel()
	forbidden := []string{module + "/sync", module + "/bot", module + "/cmd", module + "/config"}
	for _, pkg := range listPackages(t, "./rag/...") {
		for _, dep := range deps(t, pkg) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// repoRoot is the module root, two folders above this file.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Fields(string(out))
}

func listPackages(t *testing.T, pattern string) []string { return goList(t, pattern) }

// deps lists pkg's transitive dependencies, those of its tests included.
func deps(t *testing.T, pkg string) []string { return goList(t, "-deps", "-test", pkg) }
