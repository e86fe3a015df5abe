package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkErr fails the test when err is not nil and want is empty, or when err is nil or leaves
// out any of want (the field names and hints the message must hold).
func checkErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

func writeTemp(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cita.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// nonEmpty is want as a list: none for "".
func nonEmpty(want string) []string {
	if want == "" {
		return nil
	}
	return []string{want}
}
