package discord

import (
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

func TestExplainListsAgentSteps(t *testing.T) {
	t.Parallel()
	rec := &bot.AnswerRecord{Question: "q", StandaloneQuery: "q", ScopeGroups: []string{"everyone"},
		Steps: []rag.AgentStep{{N: 1, Tool: "search", Query: "taxi receipts", Results: 4}, {N: 2, Tool: "get_document", DocumentID: 9, Error: "not found"}}}
	text := explainText(rec)
	if !strings.Contains(text, `1. searched "taxi receipts": 4 passage(s)`) || !strings.Contains(text, "2. read document 9: not found") {
		t.Fatalf("explain lacks the steps:\n%s", text)
	}
}
