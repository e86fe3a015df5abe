package bot

import (
	"fmt"
	"time"

	"github.com/citahq/cita/rag"
)

// StepLines describes an agent answer's steps for the "How I answered" views, one line each:
// `1. searched "taxi receipts": 5 passages (120ms)`. It names what the model asked for and how
// many passages came back, never their text; a step whose query or document was left out
// (bot.Store.LoadTrace, for a viewer outside part of the answer's scope) reads "searched" or
// "read a document".
func StepLines(steps []rag.AgentStep) []string {
	out := make([]string, 0, len(steps))
	for _, st := range steps {
		var what string
		switch st.Tool {
		case "search":
			what = "searched" // the query is left out for a viewer who may not see it
			if st.Query != "" {
				what = fmt.Sprintf("searched %q", st.Query)
			}
		case "get_document":
			what = "read a document"
			if st.DocumentID != 0 {
				what = fmt.Sprintf("read document %d", st.DocumentID)
			}
		default:
			what = "called " + st.Tool
		}
		got := fmt.Sprintf("%d passage(s)", st.Results)
		if st.Error != "" {
			got = st.Error
		}
		out = append(out, fmt.Sprintf("%d. %s: %s (%s)", st.N, what, got, st.Took.Round(time.Millisecond)))
	}
	return out
}
