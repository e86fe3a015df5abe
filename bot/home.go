package bot

import (
	"context"
	"time"

	"github.com/citahq/cita/rag"
)

// The home view (Slack's App Home tab): everyone sees their own recent questions and what
// became of them; a document owner also sees the gaps in their documents and their sources'
// sync health (docs/gaps.md).

// OwnQuestion is one of a person's recent questions and its outcome.
type OwnQuestion struct {
	Question string
	At       time.Time
	// Outcome is OutcomeAnswered, OutcomeHedged or OutcomeAbstained; Withdrawn overrides it.
	Outcome   string
	Withdrawn bool
	Shared    bool // shared with the document owners
	Resolved  bool // answered since, after a document change
}

// SourceHealth is one source an owner's documents come from, and its last sync.
type SourceHealth struct {
	Source    string
	Documents int // the owner's documents in it that the viewer may read
	LastRun   time.Time
	Complete  bool
	Error     string
	Known     bool // a run is on record
}

// HomeStore gives the home view what it shows; cmd/cita wires the bot store and the sync
// history.
type HomeStore interface {
	OwnQuestions(ctx context.Context, platform, workspace, user string, limit int) ([]OwnQuestion, error)
	// OwnedSources returns the sources of the documents whose owner names email that reader
	// may read, with their last sync; none when the person owns nothing.
	OwnedSources(ctx context.Context, email string, reader rag.Scope) ([]SourceHealth, error)
	GapReport(ctx context.Context, q GapQuery) ([]GapTopic, error)
}
