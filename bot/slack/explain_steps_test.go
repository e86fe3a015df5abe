package slack

import (
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

func TestExplainListsAgentSteps(t *testing.T) {
	t.Parallel()
	rec := &bot.AnswerRecord{Question: "q", StandaloneQuery: "q", ScopeGroups: []string{"everyone"},
		Steps: []rag.AgentStep{{N: 1, Tool: "search", Query: "taxi receipts", Results: 4}, {N: 2, Tool: "get_document", DocumentID: 9, Results: 3}}}
	blocks, _ := renderExplain(rec)
	text := blocks[0].(*slack.SectionBlock).Text.Text
	if !strings.Contains(text, `1. searched "taxi receipts": 4 passage(s)`) || !strings.Contains(text, "2. read document 9: 3 passage(s)") {
		t.Fatalf("explain lacks the steps:\n%s", text)
	}
	rec.Steps = nil
	blocks, _ = renderExplain(rec)
	if strings.Contains(blocks[0].(*slack.SectionBlock).Text.Text, "Steps") {
		t.Fatal("a single-search answer shows a steps section")
	}
}
