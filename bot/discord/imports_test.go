package discord

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAdapterDoesNotImportConfig: the adapter takes its own Options; only cmd/cita knows the
// configuration file (issue 17).
func TestAdapterDoesNotImportConfig(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "github.com/citahq/cita/config" {
				t.Errorf("%s imports %s: take the value through Options instead", name, path)
			}
		}
	}
}
