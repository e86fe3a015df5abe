package leakcheck

import (
	"strings"
	"testing"
)

// TestUnprovenFailsARunOfRefusals: a run whose every try was a refusal shows no allowed code;
// whatever its size, it proves nothing, and a short one is caught by the pooled floor.
func TestUnprovenFailsARunOfRefusals(t *testing.T) {
	t.Parallel()
	for _, tries := range []int{3, 50} {
		r := &Report{Paths: map[string]int{}, Allowed: map[string]int{}}
		for _, w := range weights {
			r.Paths[w.path] = tries
		}
		why := strings.Join(r.Unproven(), "\n")
		if !strings.Contains(why, "all paths: 0 tries showed an allowed code") {
			t.Errorf("%d tries a path, all refusals: Unproven says\n%s", tries, why)
		}
	}
}

// TestUnprovenForgivesLuckOnFewTries: 0 of 5 get_document reads allowed is luck when the rest
// of the run shows plenty; 0 of 50 is not.
func TestUnprovenForgivesLuckOnFewTries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tries int
		fails bool
	}{{5, false}, {50, true}} {
		r := &Report{Paths: map[string]int{}, Allowed: map[string]int{}}
		for _, w := range weights {
			r.Paths[w.path], r.Allowed[w.path] = 100, 60
		}
		r.Paths[pathMCPDocument], r.Allowed[pathMCPDocument] = c.tries, 0
		why := strings.Join(r.Unproven(), "\n")
		if got := strings.Contains(why, pathMCPDocument+":"); got != c.fails {
			t.Errorf("get_document 0 of %d: reported %v, want %v:\n%s", c.tries, got, c.fails, why)
		}
	}
}
