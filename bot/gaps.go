package bot

import (
	"context"
	"errors"
	"time"

	"github.com/citahq/cita/rag"
)

// The gap record (docs/gaps.md). A question is a gap when cita declined it, hedged it, or
// someone pressed 👎 on its answer. Only questions asked where everyone in the audience could
// already see them (a public channel, a reply shown to everyone) and questions their askers
// chose to share ("Tell the document owners") are grouped into topics and reported; a DM, a
// private channel, an assistant thread, an ephemeral reply, the CLI and MCP contribute neither
// text nor a count.

// GapQuery selects what a gap report shows.
type GapQuery struct {
	Since time.Time // questions asked from then on; zero: all
	// Source keeps only the gaps whose nearest readable document is in this source ("" all).
	Source string
	// Reader is the report's reader: only documents it may read are shown, named as owners or
	// sources. An empty reader sees no document (and the report still lists the questions).
	Reader rag.Scope
	// Platform and Workspace keep one workspace's questions ("" every one: the operator's CLI).
	Platform, Workspace string
	Limit               int // topics; 0 means 50
}

// GapDocument is a document near a gap's questions, one the report's reader may read.
type GapDocument struct {
	Title  string `json:"title"`
	URL    string `json:"url,omitempty"`
	Source string `json:"source"`
	Owner  string `json:"owner,omitempty"`
}

// GapTopic is one need people asked about that the documents did not answer, for one owner.
type GapTopic struct {
	Topic    int64    `json:"topic"`
	Concepts []string `json:"concepts"` // what the questions are about, heaviest first
	// Owner and Source are those of the nearest readable document ("" when none is readable:
	// nobody the reader may see owns it yet).
	Owner      string        `json:"owner"`
	Source     string        `json:"source"`
	Asked      int           `json:"asked"`
	Open       int           `json:"open"`
	Resolved   int           `json:"resolved"`
	Declined   int           `json:"declined"`
	Hedged     int           `json:"hedged"`
	Downvoted  int           `json:"downvoted"`
	Shared     int           `json:"shared"` // asked privately and shared by the asker
	FirstAsked time.Time     `json:"first_asked"`
	LastAsked  time.Time     `json:"last_asked"`
	Langs      []string      `json:"langs"`
	Questions  []string      `json:"questions"` // masked (MaskQuestion), newest first, distinct
	Nearest    []GapDocument `json:"nearest,omitempty"`
}

// ErrNotShareable: the answer is not the sharer's own declined or hedged reply (or it was
// withdrawn), so its question cannot be shared with the document owners.
var ErrNotShareable = errors.New("only the asker can share a declined or hedged question")

// GapStore keeps the gap record; bot/pgbot implements it.
type GapStore interface {
	// ShareGap records that the asker of answerID agrees to show its question to the document
	// owners. It returns ErrNotShareable unless userID asked it and it was declined or hedged.
	ShareGap(ctx context.Context, answerID int64, userID string) error
	// GapReport returns the open and resolved gaps q selects, most asked first.
	GapReport(ctx context.Context, q GapQuery) ([]GapTopic, error)
}

// ShareGapButton is the label of the button that shares a declined or hedged question.
func ShareGapButton(lang string) string {
	if lang == "es" {
		return "Avisar a los responsables de los documentos"
	}
	return "Tell the document owners"
}

// ShareGapNote says, beside the button, who will see a shared question.
func ShareGapNote(lang string) string {
	if lang == "es" {
		return "Si lo pulsas, tu pregunta (sin tu nombre; con nombres, correos y teléfonos ocultos) la verán los responsables de los documentos y quien lea el informe de lagunas de cita, y te escribiré aquí cuando la documentación la responda."
	}
	return "If you press it, your question (not your name; names, e-mail addresses and phone numbers masked) is shown to the document owners and whoever reads cita's gap report, and I'll write to you here when the documentation answers it."
}

// ShareGapReply is what the asker is told after pressing the button (err from ShareGap).
func ShareGapReply(lang string, err error) string {
	switch {
	case err == nil && lang == "es":
		return "Hecho: los responsables de los documentos verán tu pregunta. Te escribiré cuando la documentación la responda."
	case err == nil:
		return "Done: the document owners will see your question. I'll write to you when the documentation answers it."
	case errors.Is(err, ErrNotShareable) && lang == "es":
		return "Solo quien hizo la pregunta puede compartirla, y solo si no pude responderla."
	case errors.Is(err, ErrNotShareable):
		return "Only whoever asked can share the question, and only when I couldn't answer it."
	case lang == "es":
		return "No pude compartir tu pregunta. Inténtalo de nuevo en un minuto."
	default:
		return "I couldn't share your question. Try again in a minute."
	}
}
