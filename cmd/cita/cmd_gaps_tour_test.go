package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/testdb"
)

// The demo's gap tour runs the whole loop through the real Slack adapter on a scratch namespace:
// the question is not answered, the report lists it, and after the page is synced the thread
// gets a cited answer from it, once.
func TestGapsTourResolvesItsGapOnce(t *testing.T) {
	clearEnv(t)
	cs, _ := testdb.Schema(t)
	cfg := writeConfig(t, fmt.Sprintf("database_url: %q\n", cs))
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--config", cfg, "gaps", "tour", "--corpus", "../../testdata/corpus"}, &stdout, &stderr); code != 0 {
		t.Fatalf("cita gaps tour exited %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{"1 topics, 1 questions (1 open)", tourQuestion, "cita (in the same thread): Our documentation now answers",
		"gym on the third floor", "[1]", "resolved 1; asked again after the next sync: 0 more posted"} {
		if !strings.Contains(out, want) {
			t.Errorf("the tour does not show %q:\n%s", want, out)
		}
	}
	if strings.Contains(strings.SplitN(out, "$ cita gaps", 2)[0], "gym on the third floor") {
		t.Errorf("the first reply quotes the page before it exists:\n%s", out)
	}
}
