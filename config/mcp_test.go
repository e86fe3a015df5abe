package config

import (
	"strings"
	"testing"
)

func TestMCPValidateNamesTheField(t *testing.T) {
	t.Parallel()
	oidc := OIDCConfig{Issuer: "https://login.example.com", Audience: "cita-mcp", AllowedDomains: []string{"example.com"}}
	tests := []struct {
		name string
		m    MCPConfig
		want string // "" means valid
	}{
		{"off", MCPConfig{Emails: map[string][]string{"a@b": nil}}, ""},
		{"on, no mapping", MCPConfig{Enabled: true}, ""},
		{"email without groups", MCPConfig{Enabled: true, Emails: map[string][]string{"a@example.com": {}}}, `mcp.emails["a@example.com"]`},
		{"oidc", MCPConfig{Enabled: true, OIDC: oidc}, ""},
		{"oidc on loopback http", MCPConfig{Enabled: true, OIDC: OIDCConfig{Issuer: "http://127.0.0.1:5556/dex", Audience: "x", AllowedDomains: []string{"example.com"}}}, ""},
		{"oidc over plain http", MCPConfig{Enabled: true, OIDC: OIDCConfig{Issuer: "http://login.example.com", Audience: "x", AllowedDomains: []string{"example.com"}}}, "must use https"},
		{"oidc without audience", MCPConfig{Enabled: true, OIDC: OIDCConfig{Issuer: oidc.Issuer, AllowedDomains: oidc.AllowedDomains}}, "mcp.oidc.audience"},
		{"oidc without domains", MCPConfig{Enabled: true, OIDC: OIDCConfig{Issuer: oidc.Issuer, Audience: "x"}}, "mcp.oidc.allowed_domains: required"},
		{"oidc with an e-mail as domain", MCPConfig{Enabled: true, OIDC: OIDCConfig{Issuer: oidc.Issuer, Audience: "x", AllowedDomains: []string{"a@example.com"}}}, "not a domain"},
		{"oidc fields without issuer", MCPConfig{Enabled: true, OIDC: OIDCConfig{Audience: "x"}}, "mcp.oidc.issuer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkErr(t, tt.m.Validate(), nonEmpty(tt.want)...)
		})
	}
}

func TestMCPAndAgentFromYAML(t *testing.T) {
	path := writeTemp(t, `
chat:
  base_url: http://127.0.0.1:11434/v1
  model: qwen2.5:7b
  agent: true
mcp:
  enabled: true
  domains: {example.com: [staff]}
`)
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Chat.Agent || cfg.Chat.MaxSteps != DefaultMaxSteps || !cfg.MCP.Enabled ||
		strings.Join(cfg.MCP.DefaultGroups, ",") != "everyone" || cfg.MCP.OIDC.EmailClaim != "email" {
		t.Fatalf("loaded %+v / %+v", cfg.Chat, cfg.MCP)
	}
	for text, want := range map[string]string{
		"chat:\n  agent: true\n": "chat.agent: needs a chat model",
		"chat:\n  base_url: http://127.0.0.1:1/v1\n  model: m\n  max_steps: 40\n": "chat.max_steps: 40 is out of range",
		"mcp:\n  enabled: true\n  default_groups: []\n":                           "",
	} {
		cfg, err := Load(writeTemp(t, text))
		if want == "" {
			if err != nil || len(cfg.MCP.DefaultGroups) != 0 {
				t.Errorf("%q: %v, default groups %v (an explicit [] must stay empty)", text, err, cfg.MCP.DefaultGroups)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}
