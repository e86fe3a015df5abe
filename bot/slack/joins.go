package slack

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// memberJoined handles member_joined_channel. The joiner reads the channel's history at once,
// whatever conversations.members says yet (Slack's list trails its events), so first, before
// any lookup of the channel, their scope is added to the channel's recorded readers (every
// later write of an answer they may not read is then refused: bot.Audiences.CheckWrite) and the
// answers shown there that they may not read are withdrawn. A joiner whose access cannot be
// resolved counts as reading nothing: every answer there that used a document is withdrawn.
// Then the channel's readers are read and settled as a question there would (resolveChannel),
// retried when Slack cannot say; if it still cannot, the channel's next check reads them again.
// A full member joining a public channel was a reader already: nothing changes.
func (a *Adapter) memberJoined(ctx context.Context, team, channel, user string) {
	attrs := []any{slog.String("channel_id", channel), slog.String("user_id", user)}
	scope, reads, full, err := a.joinerScope(ctx, user)
	if err != nil {
		a.logger.WarnContext(ctx, "resolve the access of a slack joiner; they count as reading nothing", append(attrs, slog.Any("error", err))...)
	}
	if !reads || (full && a.plainPublic(ctx, channel)) {
		return
	}
	if err := a.closeForReader(ctx, team, channel, user, scope); err != nil {
		a.logger.ErrorContext(ctx, "withdraw slack answers a joiner may not read; the channel's next check withdraws again",
			append(attrs, slog.Any("error", err))...)
	}
	err = bot.Retrying(ctx, func() error {
		_, _, err := a.resolveChannel(ctx, team, channel, false)
		return err
	}, func(err error) {
		a.logger.WarnContext(ctx, "check slack channel after a join; retrying", append(attrs, slog.Any("error", err))...)
	})
	if err != nil {
		a.logger.ErrorContext(ctx, "check slack channel after a join; its next question or the sweep checks again", append(attrs, slog.Any("error", err))...)
	}
}

// joinerScope returns the scope of a user who joined a channel, whether they read at all (bots
// and deactivated accounts do not) and whether they are a full member of the workspace. On
// error the scope is empty and reads true: someone unknown reads nothing cita may show.
func (a *Adapter) joinerScope(ctx context.Context, user string) (scope rag.Scope, reads, full bool, err error) {
	v, err := a.audienceVersions(ctx, "")
	if err != nil {
		return rag.Scope{}, true, false, fmt.Errorf("read audience versions: %w", err)
	}
	p, err := a.person(ctx, v, user)
	if err != nil {
		return rag.Scope{}, true, false, err
	}
	if !p.reader() {
		return rag.Scope{}, false, false, nil
	}
	roles, err := a.userGroups(ctx, v)
	if err != nil {
		return rag.Scope{}, true, false, err
	}
	return a.scopeOf(p, roles), true, p.full(), nil
}

// closeForReader adds scope to channel's recorded readers (and user, when set, to its
// joiners), then withdraws the answers shown there that scope may not read, each step retried
// when the database fails. The withdrawal runs even when the readers could not be recorded.
func (a *Adapter) closeForReader(ctx context.Context, team, channel, user string, scope rag.Scope) error {
	attrs := []any{slog.String("channel_id", channel), slog.String("user_id", user)}
	added := bot.Retrying(ctx, func() error {
		_, err := a.opts.Store.AddReader(ctx, platform, a.teamID, channel, user, scope)
		return err
	}, func(err error) {
		a.logger.WarnContext(ctx, "record a new slack reader; retrying", append(attrs, slog.Any("error", err))...)
	})
	var reds []bot.Redaction
	err := bot.Retrying(ctx, func() (err error) {
		reds, err = a.opts.Store.RedactUnreadable(ctx, platform, team, channel, []rag.Scope{scope})
		return err
	}, func(err error) {
		a.logger.WarnContext(ctx, "withdraw slack answers for a new reader; retrying", append(attrs, slog.Any("error", err))...)
	})
	for _, red := range reds {
		a.showRedaction(ctx, red)
	}
	if added != nil {
		return fmt.Errorf("record the reader: %w", added)
	}
	return err
}

// memberLeft handles member_left_channel: a joiner the member list never showed stops counting
// (a member the list shows stops counting when the list no longer does).
func (a *Adapter) memberLeft(ctx context.Context, channel, user string) {
	if err := a.opts.Store.ForgetJoiners(ctx, platform, a.teamID, channel, []string{user}); err != nil {
		a.logger.WarnContext(ctx, "forget a slack joiner who left; they count until bot.JoinerTTL", slog.String("channel_id", channel),
			slog.String("user_id", user), slog.Any("error", err))
	}
}

// teamJoined handles team_join: every replica reloads the workspace's people, and a new full
// member, who reads every public channel without joining it, counts at once as a reader of the
// public channels showing answers (recorded for their later writes, and the answers there they
// may not read withdrawn), as a join of each would.
func (a *Adapter) teamJoined(ctx context.Context, team string, u *slack.User) {
	a.bump(ctx, bot.SubjectUsers)
	if u == nil || u.ID == "" {
		return
	}
	p, err := a.personOf(ctx, *u)
	var scope rag.Scope
	switch {
	case err != nil:
		a.logger.WarnContext(ctx, "resolve the access of a new slack member; they count as reading nothing", slog.String("user_id", u.ID), slog.Any("error", err))
	case !p.full():
		return // a guest reads only the channels they join; a bot reads nothing
	default:
		v, verr := a.audienceVersions(ctx, "")
		var roles map[string][]string
		if verr == nil {
			roles, verr = a.userGroups(ctx, v)
		}
		if verr != nil {
			a.logger.WarnContext(ctx, "resolve the access of a new slack member; they count as reading nothing", slog.String("user_id", u.ID), slog.Any("error", verr))
		} else {
			scope = a.scopeOf(p, roles)
		}
	}
	channels, err := a.opts.Store.PublicChannels(ctx, platform, team)
	if err != nil {
		a.logger.ErrorContext(ctx, "list public slack channels with answers after a new member; each is checked at its next question",
			slog.String("user_id", u.ID), slog.Any("error", err))
		return
	}
	for _, ch := range channels {
		if err := a.closeForReader(ctx, team, ch, "", scope); err != nil {
			a.logger.ErrorContext(ctx, "withdraw slack answers a new member may not read; the channel's next check withdraws again",
				slog.String("channel_id", ch), slog.String("user_id", u.ID), slog.Any("error", err))
		}
	}
}

// withdrawAll withdraws every answer shown in channel that used a document, as if a reader who
// may read nothing had joined, and records that reader, so that no write of such an answer
// follows. The channel's next question records its real readers again.
func (a *Adapter) withdrawAll(ctx context.Context, team, channel string) error {
	if err := a.closeForReader(ctx, team, channel, "", rag.Scope{}); err != nil {
		return fmt.Errorf("withdraw answers in %s: %w", channel, err)
	}
	return nil
}
