// Package bot is cita's platform-neutral conversation handling: a turn in, a reply with sources
// out. It holds what Slack and Discord share: the Handler (rate limit, conversation memory,
// answering, answer records, never-silent reasons), the access mapping from platform identities
// to access groups, and the Store interface that bot/pgbot implements. Platform adapters
// (bot/slack, bot/discord) turn SDK events into Incoming turns and render Outgoing replies.
package bot

import (
	"context"
	"time"

	"github.com/citahq/cita/rag"
)

// Answerer answers one question; *rag.Pipeline satisfies it. onDelta, when non-nil, receives
// the answer text as it is produced.
type Answerer interface {
	Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error)
}

// ConversationKey names one conversation: a thread of a channel of a workspace (Slack team,
// Discord guild) on a platform. Thread is the thread's root message id; a DM without threads
// uses the DM channel and an empty Thread.
type ConversationKey struct {
	Platform  string // "slack", "discord"
	Workspace string // Slack team id, Discord guild id ("" for Discord DMs)
	Channel   string
	Thread    string
}

// Audience says who will see a reply, which decides whose access groups bound the search.
type Audience int

const (
	// AudienceChannel: everyone in the channel sees the reply; the scope is the intersection of
	// the members' groups.
	AudienceChannel Audience = iota
	// AudiencePrivate: only the asker sees the reply (a DM, an ephemeral reply); the scope is the
	// asker's groups.
	AudiencePrivate
)

// Incoming is one addressed message, already resolved by the platform adapter.
type Incoming struct {
	Conversation ConversationKey
	UserID       string
	Text         string // the question, with the bot's mention removed
	// Scope is the access scope of everyone who will see the reply, computed by the adapter with
	// an AccessMap (and a ScopeCache for channels). An empty scope gets a reason, never a search.
	Scope    rag.Scope
	Audience Audience
	// Ephemeral replies are visible to the asker only and are not part of the thread's memory:
	// the answer is recorded (for feedback and "how I answered") but no turn is saved.
	Ephemeral bool
	// Public says the reply is shown in a public channel, which every member of the workspace
	// may read: only such questions may become suggested prompts for others. False in DMs,
	// private channels and assistant threads.
	Public     bool
	ReceivedAt time.Time // when the event reached cita; zero means now
	// ReplyRef is the platform's id of the message that will show the reply (the Slack
	// placeholder's ts), recorded with the answer so that it can be withdrawn in place later;
	// "" when not known yet (see Store.SetReplyRef).
	ReplyRef string
	// Queued, when set, is told the question's place in line (1 = next) when every answer
	// worker is busy, so the adapter can say so while the question waits.
	Queued func(position int)
	// Recorded, when set, is told the answer's id once it is recorded (reserved), before any of
	// its text is streamed: every write of that text is then checked against its withdrawal.
	Recorded func(answerID int64)
}

// Reason says why a reply is not an answer from the documents. ReasonNone means the pipeline
// answered or abstained.
type Reason string

// The reasons a reply can carry instead of an answer; each has a sentence in ReasonText.
const (
	ReasonNone          Reason = ""
	ReasonEmptyQuestion Reason = "empty_question"
	ReasonRateLimited   Reason = "rate_limited"
	ReasonNoGroup       Reason = "no_access_group"
	ReasonNoCommonGroup Reason = "no_common_access_group"
	ReasonEmptyIndex    Reason = "empty_index"
	ReasonModelFailure  Reason = "model_failure"
	// ReasonTimeout: the whole answer took longer than HandlerOptions.AnswerTimeout. (A model
	// that falls silent for chat.timeout does not get here: the answer is composed offline.)
	ReasonTimeout Reason = "timeout"
	// ReasonAccessUnknown: the platform could not say who will see the reply (an API failure);
	// adapters reply with it without calling Handle.
	ReasonAccessUnknown Reason = "access_unknown"
	// ReasonBusy: every answer worker is busy and the line of waiting questions is full.
	ReasonBusy Reason = "busy"
	// ReasonWorkspaceRateLimited: the workspace as a whole asked more than its configured rate.
	ReasonWorkspaceRateLimited Reason = "workspace_rate_limited"
	// ReasonAttachmentOnly: a file was shared without a question; cita answers from the indexed
	// documents, not from attachments.
	ReasonAttachmentOnly Reason = "attachment_only"
	// ReasonEdited: an addressed message was edited; the first wording was answered (or is being
	// answered), and a new message asks again.
	ReasonEdited Reason = "edited"
	// ReasonInternalError: a bug (a panic) stopped the answer; it is logged with its stack.
	ReasonInternalError Reason = "internal_error"
	// ReasonNotRecorded: the answer could not be recorded with what it depends on (or its
	// withdrawal could not be checked before showing it), so it is not shown: an answer that
	// cannot be withdrawn later is never shown.
	ReasonNotRecorded Reason = "not_recorded"
)

// Outcomes of a turn, as counted by metrics (see Outgoing.Outcome).
const (
	OutcomeAnswered    = "answered"
	OutcomeAbstained   = "abstained"
	OutcomeHedged      = "hedged" // the closest passages, which may not answer (rag.Answer.Hedged)
	OutcomeError       = "error"
	OutcomeBusy        = "busy"
	OutcomeRateLimited = "rate_limited"
	OutcomeRefused     = "refused" // no access group, an empty question: the asker can fix it
)

// Outcome classifies the reply: answered, hedged, abstained (including "nothing is indexed"),
// error, busy, rate_limited or refused.
func (o Outgoing) Outcome() string {
	switch o.Reason {
	case ReasonNone:
		switch o.Kind() {
		case ReplyNotFound:
			return OutcomeAbstained
		case ReplyHedged:
			return OutcomeHedged
		default:
			return OutcomeAnswered
		}
	case ReasonEmptyIndex:
		return OutcomeAbstained
	case ReasonModelFailure, ReasonTimeout, ReasonAccessUnknown, ReasonInternalError, ReasonNotRecorded:
		return OutcomeError
	case ReasonBusy:
		return OutcomeBusy
	case ReasonRateLimited, ReasonWorkspaceRateLimited:
		return OutcomeRateLimited
	default:
		return OutcomeRefused
	}
}

// ReasonReply is the reply for a reason decided by an adapter, in the question's language.
func ReasonReply(question string, r Reason) Outgoing {
	lang := rag.AnswerLang(question)
	return Outgoing{Text: ReasonText(lang, r), Lang: lang, Reason: r}
}

// Outgoing is the reply to render: an answer with its sources, a hedged reply, "I couldn't find
// this" (an abstention), or a reason; Kind says which.
type Outgoing struct {
	Text          string
	Lang          string // "en" or "es"
	Sources       []rag.Source
	Abstained     bool
	AbstainReason string
	// Hedged: the closest passages found, which may not answer the question (rag.Answer.Hedged).
	Hedged bool
	Reason Reason
	// AnswerID identifies the stored answer record for feedback buttons and the "how I answered"
	// view; 0 when nothing was recorded (a reason reply, or the store failed).
	AnswerID int64
	// Answer is the pipeline's full result, nil for reason replies.
	Answer *rag.Answer
	// ShareGap offers the asker "Tell the document owners" (ShareGapButton): a declined or
	// hedged reply asked where not everyone could see it, whose question stays the asker's
	// unless they share it (docs/gaps.md).
	ShareGap bool
}

// ReplyKind is what a reply is, as a reader sees it. Renderers switch on it: every kind is
// shown differently, and a new kind must be handled wherever Kind is read.
type ReplyKind int

const (
	// ReplyReason: no search was made, or its result is not shown (busy, rate limited, access
	// unknown, nothing indexed, an error...); Text says why.
	ReplyReason ReplyKind = iota
	// ReplyAnswer: an answer, every claim cited.
	ReplyAnswer
	// ReplyHedged: the closest passages found, cited, which may not answer the question
	// (rag.Answer.Hedged). Shown visibly differently from an answer on every platform, with
	// the same sources, feedback buttons and "How I answered".
	ReplyHedged
	// ReplyNotFound: "I couldn't find this in our documentation" (an abstention), with who to
	// ask. No sources are shown; feedback and "How I answered" are.
	ReplyNotFound
)

// Kind returns what the reply is (see ReplyKind).
func (o Outgoing) Kind() ReplyKind {
	switch {
	case o.Reason != ReasonNone:
		return ReplyReason
	case o.Abstained:
		return ReplyNotFound
	case o.Hedged:
		return ReplyHedged
	default:
		return ReplyAnswer
	}
}

// FromPipeline reports whether the reply is the pipeline's (an answer, a hedged reply or "I
// couldn't find this"), not a reason: what feedback, "How I answered" and a follow-up thread
// are offered on. It is true for "I couldn't find this": to ask only about replies that cite
// passages, use CitesPassages.
func (o Outgoing) FromPipeline() bool { return o.Reason == ReasonNone }

// CitesPassages reports whether the reply shows cited passages: an answer or a hedged reply,
// not "I couldn't find this" and not a reason. What is shown only under such a reply (its
// sources, a disclaimer) tests this.
func (o Outgoing) CitesPassages() bool {
	k := o.Kind()
	return k == ReplyAnswer || k == ReplyHedged
}
