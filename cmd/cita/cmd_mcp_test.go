package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/syncbuf"
	"github.com/citahq/cita/mcpserver"
)

// TestServeMCPOnlyWithTokens is the admin's path: `cita tokens create` prints a token,
// `cita serve` with only mcp enabled answers the SDK client with it, `cita tokens list` shows
// its last use and `cita tokens revoke` stops it at the next call.
func TestServeMCPOnlyWithTokens(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	cs := indexedSchema(t,
		testDoc{"it/vpn.md", "VPN setup", "en", []string{"everyone"}, "Connect to the VPN with the Norvik client; the gateway is vpn.norvik.example."},
		testDoc{"hr/bonus.md", "Bonus scheme", "en", []string{"hr"}, "The 2025 bonus pool is CANARY-BONUS-55 percent of target."})

	addr := closedPort(t)
	path := writeConfig(t, fmt.Sprintf(`
database_url: "%s"
listen: %s
mcp:
  enabled: true
  domains:
    norvik.example: [staff]
`, cs, addr))
	cli := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr syncbuf.Buffer
		if code := run(ctx, append([]string{"--config", path}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("cita %v exited %d: %s", args, code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	out, notes := cli("tokens", "create", "--email", "ana@norvik.example", "--expires", "30d", "--note", "Claude Desktop")
	token := strings.TrimSpace(out)
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(token, mcpserver.TokenPrefix) {
		t.Fatalf("stdout must hold only the token, got %q", out)
	}
	if !strings.Contains(notes, "token 1 for ana@norvik.example, expires") || !strings.Contains(notes, "everyone, staff") {
		t.Fatalf("stderr notes = %q", notes)
	}

	srv := startServe(t, ctx, path, addr)
	session, err := mcpserver.Dial(ctx, "http://"+addr+"/mcp", token)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, srv.stderr.String())
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "VPN gateway CANARY-BONUS-55"}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "it/vpn.md") || strings.Contains(text, "CANARY-BONUS-55 percent") {
		t.Fatalf("search result = %q", text)
	}

	out, _ = cli("tokens", "list")
	if !strings.Contains(out, "ana@norvik.example") || !strings.Contains(out, "active") || strings.Contains(out, "never") ||
		!strings.Contains(out, "Claude Desktop") {
		t.Fatalf("list = %q", out)
	}
	out, _ = cli("tokens", "revoke", "1")
	if !strings.Contains(out, "revoked token 1 of ana@norvik.example") {
		t.Fatalf("revoke = %q", out)
	}
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "VPN"}})
	if err == nil || !strings.Contains(err.Error(), "token 1 was revoked") {
		t.Fatalf("call after revoke: %v", err)
	}
	if !strings.Contains(srv.stderr.String(), `"msg":"mcp call"`) || !strings.Contains(srv.stderr.String(), `"msg":"mcp request refused"`) {
		t.Errorf("serve logs lack the audit and refusal lines:\n%s", srv.stderr.String())
	}
	srv.stop(t)
}

func TestParseExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":           {},
		"90d":        now.AddDate(0, 0, 90),
		"12h":        now.Add(12 * time.Hour),
		"2025-12-31": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		got, err := parseExpiry(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseExpiry(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"0d", "-3h", "soon", "2020-01-01", "d"} {
		if _, err := parseExpiry(bad, now); err == nil {
			t.Errorf("parseExpiry(%q) accepted", bad)
		}
	}
}

// TestPlainHTTPIssuerIsWarnedOf is item 5 of issue 29: a plain-http OIDC issuer (allowed on a
// loopback address only; refused elsewhere by validation) was accepted without a word.
func TestPlainHTTPIssuerIsWarnedOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		issuer string
		warned bool
	}{{"http://127.0.0.1:5556/dex", true}, {"https://accounts.google.com", false}} {
		var logs strings.Builder
		warnPlainHTTPIssuer(config.OIDCConfig{Issuer: c.issuer}, slog.New(slog.NewTextHandler(&logs, nil)))
		if got := strings.Contains(logs.String(), "level=WARN"); got != c.warned {
			t.Errorf("issuer %s: warned %v, want %v (%q)", c.issuer, got, c.warned, logs.String())
		}
	}
}
