package pgbot_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

func TestAgentStepsRoundTrip(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	steps := []rag.AgentStep{
		{N: 1, Tool: "search", Query: "taxi receipts", Results: 5, ChunkIDs: []int64{3, 9}, Took: 12 * time.Millisecond},
		{N: 2, Tool: "get_document", DocumentID: 41, Error: "not found", Took: time.Millisecond},
	}
	for _, want := range [][]rag.AgentStep{steps, nil} {
		rec := &bot.AnswerRecord{Conversation: thread, AskerID: "U1", Question: "q", StandaloneQuery: "q", Text: "a",
			ScopeGroups: []string{"everyone"}, Steps: want}
		got := saveAndLoad(t, env, rec)
		if !reflect.DeepEqual(got.Steps, want) {
			t.Fatalf("steps loaded as %+v, saved %+v", got.Steps, want)
		}
	}
	if got := bot.StepLines(steps); !reflect.DeepEqual(got, []string{
		`1. searched "taxi receipts": 5 passage(s) (12ms)`,
		`2. read document 41: not found (1ms)`,
	}) {
		t.Fatalf("step lines = %q", got)
	}
}
