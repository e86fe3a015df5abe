package bot

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"

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
}

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
	// RecordReaders stores readers (a ReadersFingerprint) as a channel's readers seen last. When
	// they differ from the ones seen before it bumps the channel's version and reports changed.
	// The caller then withdraws the answers the readers may not read (RedactUnreadable) and,
	// only once that succeeded, settles them (ReadersSettled). It returns the channel's version
	// after the call.
	RecordReaders(ctx context.Context, platform, workspace, channel string, readers []byte) (changed bool, version int64, err error)
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
	// AnswerWithdrawn is the check before every write of an answer's text: it reports whether
	// answer id was withdrawn from its conversation, with its notice to show instead of the
	// text. It returns an error when the store cannot be read: the caller must not write.
	AnswerWithdrawn(ctx context.Context, answerID int64) (red Redaction, withdrawn bool, err error)
	// AnswerWritten is the statement after every write of an answer's text (whether or not the
	// write succeeded: it may have landed): it counts the write and, when the answer was
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
