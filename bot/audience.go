package bot

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citahq/cita/rag"
)

// Subjects of audience versions: what an adapter caches about who reads what, per workspace.
const (
	// SubjectUsers covers the workspace's people: who exists, their e-mail, guest, bot and
	// deactivated flags (Slack users.list; Discord guild members).
	SubjectUsers = "users"
	// SubjectRoles covers who holds which platform group: Slack user groups, Discord roles.
	SubjectRoles = "roles"
)

// ChannelSubject is the subject of one channel's readers (members, viewers, permissions).
func ChannelSubject(channelID string) string { return "channel:" + channelID }

// AudienceState is what the database says of one subject of a workspace.
type AudienceState struct {
	// Version grows by one at every change; 0 means the subject never changed.
	Version int64
	// Readers is the fingerprint (ReadersFingerprint) of a channel's readers settled last: the
	// readers whose withdrawals succeeded (ReadersSettled). Nil for other subjects and for
	// channels never settled.
	Readers []byte
	// Recorded is the fingerprint of the channel's readers as recorded last (RecordReaders,
	// AddReader): when it differs from the settled one, a change is not settled yet.
	Recorded []byte
	// Doubt says the channel's readers changed in a way nobody resolved yet (MarkDoubt): the
	// next check must record them (RecordReaders), even when they look settled.
	Doubt bool
}

// ErrReadersMoved is returned by RecordReaders when the channel's readers were recorded
// differently, or put in doubt, after the caller read its version: the caller's lookup may
// predate that change (a join, a permission change) and must be made again before anything is
// answered from it.
var ErrReadersMoved = errors.New("channel readers changed since they were read")

// JoinerTTL bounds how long a Slack member_joined_channel event alone makes its user a reader
// of the channel, when conversations.members does not list them (Slack's list trails its
// events by seconds) and no member_left_channel came: AddReader records the joiner, and
// ChannelJoiners returns them for this long.
const JoinerTTL = 10 * time.Minute

// JoinerListGrace is how long Slack's member list may go on without a joiner: a complete list
// read later than this after the join that still does not show them means they left (a
// member_left_channel that was lost), and they stop counting.
const JoinerListGrace = time.Minute

// Joiner is a user recorded as a reader of a channel by a join event (AddReader).
type Joiner struct {
	UserID string
	Joined time.Time
}

// WriteCheck is what the store says before a write of an answer's text (CheckWrite).
type WriteCheck int

const (
	// WriteAllowed: the answer stands and its channel's readers may read it.
	WriteAllowed WriteCheck = iota
	// WriteWithdrawn: the answer was withdrawn (now or before): show its notice instead.
	WriteWithdrawn
	// WriteHeld: the channel's readers are in doubt (MarkDoubt): write nothing yet, and ask
	// again.
	WriteHeld
)

// Audiences is how every replica learns that who reads what changed, whichever replica heard of
// it (platform events are delivered to one replica only, and sometimes not at all). Adapters cache
// identities and channel audiences under the versions they were computed with and check the
// versions with one query per question; bot/pgbot keeps them in PostgreSQL.
type Audiences interface {
	// BumpAudience records that the subjects of a workspace changed (a membership, role or user
	// event). It returns an error when the change cannot be recorded; the caller must then drop
	// its own caches, since the other replicas will not hear of it.
	BumpAudience(ctx context.Context, platform, workspace string, subjects ...string) error
	// AudienceStates returns the state of each subject, in order, in one query.
	AudienceStates(ctx context.Context, platform, workspace string, subjects ...string) ([]AudienceState, error)
	// RecordReaders stores readers (their scopes, and their ReadersFingerprint) as a channel's
	// readers seen last, and ends its doubt (MarkDoubt), provided that the channel's version is
	// still expected, the one read before the lookup that found them; when the recorded readers
	// differ, or are in doubt, and the version moved, it returns ErrReadersMoved and records
	// nothing. When the readers differ from the ones recorded before it bumps the channel's
	// version and reports changed. The caller then withdraws the answers the readers may not
	// read (RedactUnreadable) and, only once that succeeded, settles them (ReadersSettled). It
	// returns the channel's version after the call.
	RecordReaders(ctx context.Context, platform, workspace, channel string, readers []rag.Scope, expected int64) (changed bool, version int64, err error)
	// AddReader adds one reader's scope to the channel's recorded readers at once (bumping its
	// version), so that no later write of an answer they may not read passes CheckWrite, and,
	// when userID is set, records them as a joiner the member list may not show yet
	// (ChannelJoiners). It returns the channel's version after the call.
	AddReader(ctx context.Context, platform, workspace, channel, userID string, scope rag.Scope) (version int64, err error)
	// ChannelJoiners returns, sorted, the users recorded by AddReader in the channel within ttl,
	// each with when they joined; older ones are forgotten.
	ChannelJoiners(ctx context.Context, platform, workspace, channel string, ttl time.Duration) ([]Joiner, error)
	// ForgetJoiners forgets joiners of the channel: the member list shows them now, or they
	// left.
	ForgetJoiners(ctx context.Context, platform, workspace, channel string, users []string) error
	// MarkDoubt records that the readers of channels changed in a way not resolved yet (a role
	// or permission change being read): it bumps their versions and holds every write of their
	// answers (CheckWrite says WriteHeld) until RecordReaders records readers read after it.
	MarkDoubt(ctx context.Context, platform, workspace string, channels ...string) error
	// ReadersSettled records readers (a ReadersFingerprint) as the channel's settled readers:
	// every answer they may not read was withdrawn. AudienceStates returns them; until they are
	// settled, every check of the channel withdraws again.
	ReadersSettled(ctx context.Context, platform, workspace, channel string, readers []byte) error
	// RedactUnreadable marks as withdrawn every answer shown in the channel (all its threads) that
	// used a document one of readers may not read, and returns the withdrawn answers whose message
	// does not show the notice yet (these and any earlier ones whose edit failed). Ephemeral
	// answers are never withdrawn: only their asker saw them. With no readers nothing is newly
	// withdrawn and only the pending notices are returned (a cheap check for every question).
	RedactUnreadable(ctx context.Context, platform, workspace, channel string, readers []rag.Scope) ([]Redaction, error)
	// RedactionShown records that the message of a withdrawn answer now shows the notice: unless
	// the answer's text was written again since red was loaded (red.Writes), when the notice
	// shown may be under that write and stays pending.
	RedactionShown(ctx context.Context, red Redaction) error
	// CheckWrite is the check before every write of an answer's text. An answer shown in a
	// channel that one of the channel's recorded readers may not read is withdrawn here, in the
	// same statement; then it says whether answer id is withdrawn from its conversation (with
	// its notice to show instead of the text), held (its channel's readers are in doubt) or may
	// be written. It returns an error when the store cannot be read: the caller must not write.
	CheckWrite(ctx context.Context, answerID int64) (red Redaction, check WriteCheck, err error)
	// WithdrawAnswer withdraws one answer shown in a channel (a write held past its bound) and
	// returns its notice; ok is false when there is no such answer shown to everyone there.
	WithdrawAnswer(ctx context.Context, answerID int64) (red Redaction, ok bool, err error)
	// AnswerWritten is the statement after every write of an answer's text (whether or not the
	// write succeeded: it may have landed): it withdraws the answer when a recorded reader of its
	// channel may not read it (as CheckWrite), counts the write and, when the answer was
	// withdrawn meanwhile, marks its notice as not shown and returns it (withdrawn true), so
	// that the caller edits the message into the notice again. A notice whose edit fails stays
	// pending and is retried at the channel's next check.
	AnswerWritten(ctx context.Context, answerID int64) (red Redaction, withdrawn bool, err error)
	// PendingRedaction returns the notice still to show for one answer: ok is true when the
	// answer was withdrawn from its conversation and its message does not show the notice yet.
	// It returns an error when the store cannot be read.
	PendingRedaction(ctx context.Context, answerID int64) (red Redaction, ok bool, err error)
	// ChannelsWithAnswers returns, sorted, the channels of a workspace that show at least one
	// answer to everyone there (not ephemeral, not withdrawn): where a change that can reach
	// every channel (a role's permissions, say) may have to withdraw answers.
	ChannelsWithAnswers(ctx context.Context, platform, workspace string) ([]string, error)
	// PublicChannels returns, sorted, the channels of a workspace that show at least one answer
	// given there while the channel was public (bot_answers.public): where a new full member of
	// the workspace reads without joining.
	PublicChannels(ctx context.Context, platform, workspace string) ([]string, error)
	// AnsweredChannels returns, sorted, every channel of platform (in any workspace) that shows
	// at least one answer to everyone there, as conversation keys without a thread: what the
	// reconciliation sweep re-checks. Answers older than the retention are redacted by then, so
	// these are the channels with answers from the retention window.
	AnsweredChannels(ctx context.Context, platform string) ([]ConversationKey, error)
}

// Redaction is a withdrawn answer whose message must be edited to the notice.
type Redaction struct {
	AnswerID     int64
	Conversation ConversationKey
	// ReplyRef is the platform's id of the answer's message (Slack ts, Discord message id); ""
	// when it was never known (the message could not be posted).
	ReplyRef string
	Lang     string
	// Writes is how many writes of the answer's text were recorded when the redaction was
	// loaded (see RedactionShown).
	Writes int64
}

// DistinctScopes returns scopes without repeats (by Key), sorted by Key: the readers of a
// channel as far as access goes. An empty scope (a reader with no group) is kept.
func DistinctScopes(scopes []rag.Scope) []rag.Scope {
	seen := map[string]bool{}
	var out []rag.Scope
	for _, s := range scopes {
		if !seen[s.Key()] {
			seen[s.Key()] = true
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b rag.Scope) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// ReadersFingerprint returns a fixed-width fingerprint of a set of readers' scopes: equal for
// the same distinct scopes in any order, different when any reader's groups differ. Every group
// and every scope is length-prefixed, so no two sets encode alike.
func ReadersFingerprint(readers []rag.Scope) []byte {
	h := sha256.New()
	for _, s := range DistinctScopes(readers) {
		groups := s.Groups()
		fmt.Fprintf(h, "%d[", len(groups))
		for _, g := range groups {
			fmt.Fprintf(h, "%d:%s", len(g), g)
		}
		h.Write([]byte("]"))
	}
	return h.Sum(nil)
}

// redactedNotices replace a withdrawn answer, per language; %s is how to reach the bot in a
// direct message (a mention on Slack).
var redactedNotices = map[string]string{
	"en": "I withdrew this answer: someone who can now read this conversation may not read the documents it used. Ask me in a direct message (%s) and I'll answer with your own access.",
	"es": "Retiré esta respuesta: alguien que ahora puede leer esta conversación no tiene acceso a los documentos que usó. Pregúntame por mensaje directo (%s) y te responderé con tu propio acceso.",
}

// RedactedNotice returns the notice that replaces a withdrawn answer in lang ("en" when
// unknown); dm says how to reach the bot directly.
func RedactedNotice(lang, dm string) string {
	text, ok := redactedNotices[lang]
	if !ok {
		text = redactedNotices["en"]
	}
	return fmt.Sprintf(text, dm)
}
