package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/syncbuf"
)

// TestTokensCreateRefusesATokenThatReadsNothing: --groups the address does
// not hold is an error (exit 1) and no token is created; a mapped address gets one.
func TestTokensCreateRefusesATokenThatReadsNothing(t *testing.T) {
	clearEnv(t)
	cs := indexedSchema(t, testDoc{"it/vpn.md", "VPN setup", "en", []string{"everyone"}, "Connect with the client."})
	path := writeConfig(t, fmt.Sprintf("database_url: %q\nmcp:\n  enabled: true\n  domains:\n    norvik.example: [staff]\n", cs))
	cli := func(args ...string) (int, string, string) {
		var stdout, stderr syncbuf.Buffer
		code := run(context.Background(), append([]string{"--config", path}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	for _, args := range [][]string{
		{"tokens", "create", "--email", "eve@elsewhere.example", "--groups", "hr"},
		{"tokens", "create", "--email", "ana@norvik.example", "--groups", "finance"},
	} {
		code, out, errOut := cli(args...)
		if code != 1 || out != "" || !strings.Contains(errOut, "no token created") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and no token", args, code, out, errOut)
		}
	}
	if code, out, _ := cli("tokens", "list"); code != 0 || strings.Contains(out, "@") {
		t.Errorf("tokens list after the refusals: exit %d, %q; want no token", code, out)
	}
	if code, out, errOut := cli("tokens", "create", "--email", "ana@norvik.example"); code != 0 || out == "" || !strings.Contains(errOut, "staff") {
		t.Errorf("a mapped address: exit %d, %q, %q", code, out, errOut)
	}
}
