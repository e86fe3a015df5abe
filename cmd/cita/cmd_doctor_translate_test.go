package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/citahq/cita/rag/translate"
)

// TestCheckTranslationFailsWhenApertiumIsMissingOffline: offline, cross-lingual search needs
// Apertium, so doctor fails (and says what to install); with a chat model, which translates
// questions itself, it is a warning.
func TestCheckTranslationFailsWhenApertiumIsMissingOffline(t *testing.T) {
	t.Parallel()
	c := checkTranslation(context.Background(), translate.ApertiumOptions{ModesDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}, t.TempDir(), false)
	if c.ok || c.warn {
		t.Fatalf("check = %+v, want a failure", c)
	}
	var out bytes.Buffer
	c.print(&out)
	for _, want := range []string{"translation:", "monolingual", "apertium-eng-spa", "scripts/setup.sh"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	withModel := checkTranslation(context.Background(), translate.ApertiumOptions{ModesDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}, t.TempDir(), true)
	if withModel.ok || !withModel.warn || !strings.Contains(withModel.detail, "chat model translates") {
		t.Errorf("with a chat model: %+v, want a warning", withModel)
	}
}

func TestCheckTranslationWithApertiumInstalled(t *testing.T) {
	t.Parallel()
	if _, err := translate.NewApertium(translate.ApertiumOptions{}); err != nil {
		msg := "Apertium is not installed (" + err.Error() + "): run scripts/setup.sh"
		if os.Getenv("CITA_SHARED_DIR") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	c := checkTranslation(context.Background(), translate.ApertiumOptions{Logger: slog.New(slog.DiscardHandler)}, "", false)
	if !c.ok || !strings.Contains(c.detail, "spa-eng and eng-spa answer") {
		t.Errorf("check = %+v, want ok", c)
	}
}

func TestCheckTranslationNamesTheFreeDictFallback(t *testing.T) {
	t.Parallel()
	if _, err := translate.LoadFreeDict(""); err != nil {
		msg := "FreeDict is not installed (" + err.Error() + "): run scripts/setup.sh"
		if os.Getenv("CITA_SHARED_DIR") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	c := checkTranslation(context.Background(), translate.ApertiumOptions{ModesDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}, "", false)
	if c.ok || !c.warn || !strings.Contains(c.detail, "word by word with FreeDict") || !strings.Contains(c.fix, "apertium-eng-spa") {
		t.Errorf("check = %+v, want a warning naming the FreeDict fallback and what to install", c)
	}
}
