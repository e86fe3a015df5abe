package archtest

import (
	"strings"
	"testing"
)

// prodDeps lists pkg's transitive dependencies, tests excluded (tests may wire real adapters
// together, as bot/slack's tests do with the PostgreSQL store).
func prodDeps(t *testing.T, pkg string) []string { return goList(t, "-deps", pkg) }

// TestLayersImportOnlyInward checks the rules docs/architecture.md states, on the code's own
// dependencies: configuration imports nothing of ours but internal helpers; the platform-neutral
// bot package knows no platform and no store; the chat adapters, the bot store and the rag
// adapters do not import each other; ingestion knows nothing of chat. (The domain's own rule,
// rag imports no outer layer, is TestRagImportsNoOuterLayer.)
func TestLayersImportOnlyInward(t *testing.T) {
	t.Parallel()
	ragAdapters := []string{"rag/pgstore", "rag/openai", "rag/hashembed", "rag/rewrite", "rag/generate", "rag/translate", "rag/rerank"}
	rules := []struct {
		pkgs      []string
		forbidden []string
	}{
		{[]string{"config"}, []string{"rag", "bot", "sync", "cmd", "mcpserver"}},
		{[]string{"bot"}, []string{"bot/slack", "bot/discord", "bot/pgbot", "bot/leakcheck", "config", "sync", "cmd", "mcpserver"}},
		{[]string{"bot/slack"}, []string{"bot/discord", "bot/pgbot", "config", "sync", "cmd", "mcpserver"}},
		{[]string{"bot/discord"}, []string{"bot/slack", "bot/pgbot", "config", "sync", "cmd", "mcpserver"}},
		{[]string{"bot/pgbot"}, []string{"bot/slack", "bot/discord", "config", "sync", "cmd", "mcpserver"}},
		{[]string{"sync/..."}, []string{"bot", "cmd", "mcpserver"}},
		{[]string{"mcpserver/..."}, []string{"bot/slack", "bot/discord", "sync", "cmd"}},
	}
	for _, a := range ragAdapters {
		var others []string
		for _, b := range ragAdapters {
			if b != a {
				others = append(others, b)
			}
		}
		rules = append(rules, struct {
			pkgs      []string
			forbidden []string
		}{[]string{a + "/..."}, others})
	}
	for _, r := range rules {
		for _, pattern := range r.pkgs {
			for _, pkg := range listPackages(t, "./"+pattern) {
				for _, dep := range prodDeps(t, pkg) {
					for _, f := range r.forbidden {
						if full := module + "/" + f; dep == full || strings.HasPrefix(dep, full+"/") {
							t.Errorf("%s depends on %s", strings.TrimPrefix(pkg, module+"/"), strings.TrimPrefix(dep, module+"/"))
						}
					}
				}
			}
		}
	}
}
