package slack

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// rolesKey is the one entry of the user-group cache.
const rolesKey = "usergroups"

// identity returns what Slack says about a user (users.info; user groups when the access map
// uses them), cached.
func (a *Adapter) identity(ctx context.Context, userID string) (bot.Identity, error) {
	if id, ok := a.identities.Get(userID); ok {
		return id, nil
	}
	var u *slack.User
	err := withRetry(ctx, func() (err error) {
		u, err = a.api.GetUserInfoContext(ctx, userID)
		return err
	})
	if err != nil {
		return bot.Identity{}, fmt.Errorf("users.info %s: %w", userID, err)
	}
	id := bot.Identity{
		// Slack returns an address (users:read.email) only when it is the account's confirmed one.
		UserID: u.ID, Email: u.Profile.Email, EmailVerified: u.Profile.Email != "",
		Guest: u.IsRestricted || u.IsUltraRestricted || u.IsStranger || (a.teamID != "" && u.TeamID != "" && u.TeamID != a.teamID),
		Bot:   u.IsBot || u.IsAppUser || u.ID == "USLACKBOT",
	}
	if len(a.opts.Access.Roles) > 0 {
		roles, err := a.userGroups(ctx)
		if err != nil {
			return bot.Identity{}, err
		}
		id.Roles = roles[userID]
	}
	if u.Deleted {
		id = bot.Identity{UserID: u.ID, Guest: true, Bot: id.Bot} // a deleted account reads nothing
	}
	if id, err = a.opts.Access.Resolve(ctx, id); err != nil { // directory (Google Groups) memberships
		return bot.Identity{}, err
	}
	a.identities.Set(userID, id)
	return id, nil
}

// userGroups returns each user's user group ids and handles (usergroups.list with members).
func (a *Adapter) userGroups(ctx context.Context) (map[string][]string, error) {
	if m, ok := a.roles.Get(rolesKey); ok {
		return m, nil
	}
	var groups []slack.UserGroup
	err := withRetry(ctx, func() (err error) {
		groups, err = a.api.GetUserGroupsContext(ctx, slack.GetUserGroupsOptionIncludeUsers(true))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("usergroups.list (needs the usergroups:read scope): %w", err)
	}
	m := map[string][]string{}
	for _, g := range groups {
		for _, u := range g.Users {
			m[u] = append(m[u], g.ID, g.Handle)
		}
	}
	a.roles.Set(rolesKey, m)
	return m, nil
}

// askerScope returns the scope of one user (DMs, ephemeral replies); empty when unmapped.
func (a *Adapter) askerScope(ctx context.Context, userID string) (rag.Scope, error) {
	id, err := a.identity(ctx, userID)
	if err != nil {
		return rag.Scope{}, err
	}
	s, _ := a.opts.Access.Scope(id) // an unmapped user gets the empty scope, and a reason
	return s, nil
}

// channelScope returns the groups every human member of the channel has, cached until the
// ttl or a membership event. The empty scope means the members share no group.
func (a *Adapter) channelScope(ctx context.Context, channel string) (rag.Scope, error) {
	if s, ok := a.scopes.Get(channel); ok {
		return s, nil
	}
	var members []string
	cursor := ""
	for {
		var page []string
		err := withRetry(ctx, func() (err error) {
			page, cursor, err = a.api.GetUsersInConversationContext(ctx, &slack.GetUsersInConversationParameters{ChannelID: channel, Cursor: cursor, Limit: 500})
			return err
		})
		if err != nil {
			return rag.Scope{}, fmt.Errorf("conversations.members %s: %w", channel, err)
		}
		members = append(members, page...)
		if cursor == "" {
			break
		}
	}
	var scopes []rag.Scope
	for _, m := range members {
		id, err := a.identity(ctx, m)
		if err != nil {
			return rag.Scope{}, err
		}
		if id.Bot {
			continue
		}
		s, _ := a.opts.Access.Scope(id)
		scopes = append(scopes, s)
	}
	scope := bot.IntersectScopes(scopes)
	a.scopes.Set(channel, scope)
	a.logger.DebugContext(ctx, "channel scope", slog.String("channel_id", channel), slog.Int("members", len(members)), slog.String("scope", scope.Key()))
	return scope, nil
}

// forgetChannel drops a channel's cached scope (member_joined_channel, member_left_channel).
func (a *Adapter) forgetChannel(channel string) { a.scopes.Delete(channel) }

// forgetUserGroups drops the user-group cache and the identities built on it
// (subteam_members_changed).
func (a *Adapter) forgetUserGroups() {
	a.roles.Delete(rolesKey)
	a.identities.Clear()
	a.scopes.Clear()
}
