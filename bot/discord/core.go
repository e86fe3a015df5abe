package discord

import (
	"context"

	"github.com/citahq/cita/rag"
)

// Core is what the adapter needs from the platform-neutral bot: answer a turn (with the
// conversation's memory), store a vote, and explain a stored answer. bot.Handler provides it
// through NewCore; tests may give their own.
type Core interface {
	// Ask answers one turn. An abstention is a Reply, not an error; errors are turned into words
	// for the user by the adapter.
	Ask(ctx context.Context, t Turn) (*Reply, error)
	// Feedback stores a 👍 (+1) or 👎 (-1) for a stored answer.
	Feedback(ctx context.Context, f Vote) error
	// Explain returns the "How I answered" text of a stored answer for the user who asks to see
	// it.
	Explain(ctx context.Context, answerID, userID string) (string, error)
}

// Turn is one question from Discord with everything the core needs to answer it safely.
type Turn struct {
	// ConversationID keys the memory: the thread id in a thread, the DM channel in a DM, or the
	// interaction id for a one-off /ask in a channel.
	ConversationID string
	GuildID        string // empty in DMs
	ChannelID      string
	UserID         string
	Text           string
	// Scope is the audience's access: the asker's groups for a private answer or a DM, the
	// intersection over everyone who can see the channel for a visible one.
	Scope   rag.Scope
	Private bool
}

// Reply is the core's answer to a Turn.
type Reply struct {
	AnswerID  string // the stored answer's id, carried by the buttons; empty when nothing was stored
	Text      string // cites sources as [n]
	Sources   []rag.Source
	Abstained bool
}

// Vote is a 👍/👎 click on an answer.
type Vote struct {
	AnswerID string
	UserID   string
	Value    int // +1 or -1
}
