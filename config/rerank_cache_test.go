package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadRerankAndCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		yaml    string
		check   func(t *testing.T, c *Config)
		wantErr []string
	}{
		{name: "defaults: no reranker, cache on", yaml: "", check: func(t *testing.T, c *Config) {
			if c.Rerank.BaseURL != "" || !c.Cache.On() || c.Cache.TTL != 24*time.Hour || c.Cache.AbstainTTL != 10*time.Minute ||
				c.Rerank.TopN != 30 || c.Rerank.Timeout != 2*time.Second {
				t.Errorf("defaults: rerank %+v cache on=%v %+v", c.Rerank, c.Cache.On(), c.Cache)
			}
		}},
		{name: "all keys", yaml: `
rerank: {base_url: "http://tei:8080", flavor: tei, top_n: 40, timeout: 1500ms}
cache: {enabled: false, ttl: 2h, abstain_ttl: 5m}
`, check: func(t *testing.T, c *Config) {
			if c.Rerank.Flavor != "tei" || c.Rerank.TopN != 40 || c.Rerank.Timeout != 1500*time.Millisecond ||
				c.Cache.On() || c.Cache.TTL != 2*time.Hour || c.Cache.AbstainTTL != 5*time.Minute {
				t.Errorf("rerank %+v cache on=%v %+v", c.Rerank, c.Cache.On(), c.Cache)
			}
		}},
		{name: "cohere needs a model", yaml: `rerank: {base_url: "https://api.cohere.com/v2"}`, wantErr: []string{"rerank.model"}},
		{name: "bad values", yaml: `
rerank: {base_url: "api.cohere.com", model: m, flavor: voyage, top_n: 500, timeout: -1s}
cache: {ttl: -1h, abstain_ttl: -1m}
`, wantErr: []string{"rerank.flavor", "rerank.base_url", "rerank.top_n", "rerank.timeout", "cache.ttl", "cache.abstain_ttl"}},
		{name: "unknown key", yaml: `cache: {tll: 1h}`, wantErr: []string{"tll"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "cita.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				tc.check(t, c)
				return
			}
			if err == nil {
				t.Fatalf("no error, want %v", tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
