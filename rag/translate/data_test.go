package translate_test

import (
	"os"
	"testing"

	"github.com/citahq/cita/rag/translate"
)

// missingData stops a test that needs the Debian translation data when it is not installed: it
// fails in CI (CITA_SHARED_DIR set: the setup script must have installed it) and skips
// elsewhere, both saying what to install.
func missingData(t *testing.T, what string, err error) {
	t.Helper()
	msg := what + " is not installed (" + err.Error() + "): run scripts/setup.sh, or apt-get install apertium apertium-eng-spa dict-freedict-spa-eng dict-freedict-eng-spa"
	if os.Getenv("CITA_SHARED_DIR") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func newApertium(t *testing.T) *translate.Apertium {
	t.Helper()
	a, err := translate.NewApertium(translate.ApertiumOptions{})
	if err != nil {
		missingData(t, "Apertium", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func loadFreeDict(t *testing.T) *translate.FreeDict {
	t.Helper()
	f, err := translate.LoadFreeDict("")
	if err != nil {
		missingData(t, "FreeDict", err)
	}
	return f
}
