package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/citahq/cita/rag"
)

// ErrAnswerNotFound is returned when an answer id names no stored answer.
var ErrAnswerNotFound = errors.New("answer not found")

// ErrNotVisible is returned when a user acts on an answer they cannot see: another
// conversation, someone else's ephemeral reply, a redacted answer, or (for its trace) sources
// they may not read.
var ErrNotVisible = errors.New("answer not visible to this user")

// ErrWithdrawn is returned when a user acts, from its conversation, on an answer withdrawn from
// that conversation because someone who may not read its documents can read it now
// (RedactionAudience). It wraps ErrNotVisible.
var ErrWithdrawn = fmt.Errorf("%w: withdrawn from its conversation", ErrNotVisible)

// Store keeps conversation memory, answer records, feedback, event dedupe and the audience
// versions (Audiences). bot/pgbot implements it on PostgreSQL.
type Store interface {
	Audiences
	// SaveAnswer records an answer with the documents it used and, unless rec.VisibleTo is set
	// (an ephemeral reply), the question and the answer as two turns of rec.Conversation, in one
	// transaction. It returns the answer's id.
	// With rec.ID set it completes the reservation rec.ID (ReserveAnswer) instead; an answer
	// withdrawn meanwhile stays withdrawn and gets no turns. Text is stored as valid UTF-8
	// without NUL.
	SaveAnswer(ctx context.Context, rec *AnswerRecord) (int64, error)
	// ReserveAnswer records an answer before any of its text is shown: its conversation, asker,
	// audience (VisibleTo, ScopeGroups), question, language, message (ReplyRef) and the documents
	// that reach it so far (rec.Consulted), marked ReasonNotRecorded until SaveAnswer completes
	// it. A reserved answer is withdrawn like any other. It returns the answer's id.
	ReserveAnswer(ctx context.Context, rec *AnswerRecord) (int64, error)
	// AddConsulted records that more passages reached answer id (a later agent step, say).
	AddConsulted(ctx context.Context, answerID int64, refs []SourceRef) error
	// RecentTurns returns up to n of the conversation's latest turns, oldest first, keeping only
	// turns whose answer used documents that scope may read (and still may) and was not
	// withdrawn.
	RecentTurns(ctx context.Context, conv ConversationKey, scope rag.Scope, n int) ([]rag.Turn, error)
	// HasTurns reports whether the bot already answered in the conversation (a follow-up there
	// needs no mention), visibly to everyone there; an answer since redacted still counts.
	HasTurns(ctx context.Context, conv ConversationKey) (bool, error)
	// LoadTrace returns the record of answer id as viewer may see it, for "How I answered", with
	// the access check in the query that loads it: only when viewer acts from the answer's
	// conversation, the answer was not an ephemeral reply to someone else, viewer's groups
	// overlap the answer's scope, and viewer may read, as they were and as they are now, every
	// document the answer used. The record's ScopeGroups are the answer's groups viewer holds
	// (OtherGroups counts the rest), and its TopHits name only cited passages. It returns
	// ErrAnswerNotFound, ErrWithdrawn for an answer withdrawn from viewer's conversation,
	// ErrNotVisible (also for an empty viewer scope and a redacted answer), or a database error.
	// Agent steps keep their queries and documents only when viewer holds every group of the
	// answer's scope.
	LoadTrace(ctx context.Context, id int64, viewer Viewer) (*AnswerRecord, error)
	// SetReplyRef records the platform's id of the message that shows answer id (when it is
	// not the one given in Incoming.ReplyRef), so the answer can be withdrawn in place.
	SetReplyRef(ctx context.Context, id int64, ref string) error
	// RecordFeedback stores (or replaces) a user's rating of an answer. It returns
	// ErrAnswerNotFound, or ErrNotVisible when the user rates from another conversation, rates
	// someone else's ephemeral answer, or rates a redacted answer (checked in the statement that
	// stores the rating).
	RecordFeedback(ctx context.Context, fb Feedback) error
	// MarkEvent records a platform event id and reports whether this is its first delivery.
	MarkEvent(ctx context.Context, eventID string) (bool, error)
}

// Viewer is someone asking to see a stored answer: the conversation they act from, who they
// are, and the access groups they hold now (their own, not the channel's).
type Viewer struct {
	Conversation ConversationKey
	UserID       string
	Scope        rag.Scope
}

// Feedback is one user's rating of an answer, given from a conversation.
type Feedback struct {
	AnswerID     int64
	Conversation ConversationKey
	UserID       string
	Rating       int // +1 or -1
}

// AnswerRecord is what cita keeps of one answer: enough to rate it, show how it was found and
// tell later whether the documents it cited changed.
type AnswerRecord struct {
	ID           int64
	Conversation ConversationKey
	AskerID      string
	// VisibleTo is the only user who can read the reply (a DM, an ephemeral reply): the only
	// one who may open "How I answered" or rate it. Empty means everyone in the conversation.
	VisibleTo string
	// Ephemeral says the reply was shown to VisibleTo outside the conversation (/cita, Discord
	// private:True): it is not part of the conversation's memory, gets no source-change notice
	// and is never withdrawn. A DM answer is visible to its asker only but not ephemeral.
	Ephemeral bool
	// Public says everyone in the workspace could read the reply (a public channel, not
	// ephemeral): only such questions may be suggested to others (pgbot.PopularQuestions).
	Public          bool
	Question        string
	StandaloneQuery string
	Text            string
	ScopeGroups     []string
	// OtherGroups counts the answer's groups left out of ScopeGroups because the viewer does not
	// hold them (LoadTrace only).
	OtherGroups   int
	Abstained     bool
	AbstainReason string
	// Hedged: the reply gave the closest passages as possibly not answering, for HedgeReason;
	// MinEvidence and ConfidentEvidence are the thresholds Evidence was judged against (0 when
	// no band applied: a model judged, a cached answer, a reason).
	Hedged            bool
	HedgeReason       string
	MinEvidence       float64
	ConfidentEvidence float64
	Reason            Reason
	Evidence          float64
	// Sources are the cited sources, in the order shown.
	Sources []SourceRef
	// Consulted are the documents whose text or owner reached the reply: the cited sources, or
	// the top hit whose owner an abstention names. Memory visibility is decided by them.
	Consulted []SourceRef
	// TopHits are the fused search results with their rank in each arm, for "how I answered".
	// Only cited ones name their passage (Cited, with ids, title, heading and path).
	TopHits          []HitRef
	Timings          map[string]time.Duration
	Total            time.Duration
	Model            string
	PromptTokens     int
	CompletionTokens int
	// Dropped lists the chunks retrieval found but the context budget left out.
	Dropped []int64
	// Cached says the answer came from the answer cache: its tokens were not spent again.
	Cached bool
	// Steps are an agent answer's searches and document reads, in order; nil for one search.
	Steps []rag.AgentStep
	// Lang is the reply's language ("en", "es"), for the notice that may withdraw it.
	Lang string
	// ReplyRef is the platform's id of the message showing the reply (Slack ts); "" when unknown.
	ReplyRef string
	// RedactedAt is when the answer was redacted, for Redaction's reason; zero while it stands.
	// A redacted answer feeds no memory, "How I answered" or feedback.
	RedactedAt time.Time
	// Redaction says why it was redacted ("" while it stands).
	Redaction RedactionReason
	CreatedAt time.Time
}

// SourceRef is one cited (or consulted) chunk with its document's version at answer time.
type SourceRef struct {
	N          int       `json:"n"`
	ChunkID    int64     `json:"chunk_id"`
	DocumentID int64     `json:"document_id"`
	DocVersion int64     `json:"doc_version"`
	Title      string    `json:"title"`
	Section    string    `json:"section,omitempty"`
	Locator    string    `json:"locator,omitempty"`
	URL        string    `json:"url,omitempty"`
	Path       string    `json:"path"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// HitRef is one fused search hit with its rank in each arm (0: the arm did not return it). A hit
// the answer did not cite keeps only its ranks and score: its passage may be one that someone
// shown the answer may not read.
type HitRef struct {
	Cited      bool    `json:"cited,omitempty"`
	ChunkID    int64   `json:"chunk_id"`
	DocumentID int64   `json:"document_id"`
	Title      string  `json:"title"`
	Heading    string  `json:"heading"`
	Path       string  `json:"path"`
	Score      float64 `json:"score"`
	FTSRank    int     `json:"fts_rank,omitempty"`
	VectorRank int     `json:"vector_rank,omitempty"`
}

// RedactionReason says why an answer record was redacted (bot_answers.redaction_reason). Every
// reason marks the record alike (RedactedAt) and empties its copies of document text.
type RedactionReason string

// Redaction reasons.
const (
	// RedactionAudience: withdrawn from its conversation, whose readers now include someone who
	// may not read a document it used (Audiences.RedactUnreadable); its message shows a notice.
	RedactionAudience RedactionReason = "audience_widened"
	// RedactionDocumentDeleted: a document it used was deleted (retention, pgbot.Store.Prune).
	RedactionDocumentDeleted RedactionReason = "document_deleted"
	// RedactionAccessNarrowed: a document it used no longer reaches the answer's scope
	// (retention, pgbot.Store.Prune).
	RedactionAccessNarrowed RedactionReason = "access_narrowed"
)
