package slack

import (
	"context"
	"fmt"
	"strconv"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Page sizes of the paginated lists; Slack may return fewer.
const (
	userPageSize   = 500
	memberPageSize = 500
)

// versions is what the database said of this installation's audience subjects at one moment
// (bot.AudienceState.Version): every cached identity is reused only under the versions it was
// built with.
type versions struct {
	users, roles, channel int64
	// readers and recorded are the fingerprints of the channel's readers settled and recorded
	// last (nil when never); doubt says a change of them is not resolved yet (bot.AudienceState).
	readers, recorded []byte
	doubt             bool
}

// person is what Slack says of one account, for access.
type person struct {
	identity bot.Identity // without Roles
	deleted  bool
}

// reader reports whether the account can read anything at all (bots and deactivated accounts
// cannot; their access does not bound a reply).
func (p person) reader() bool { return !p.identity.Bot && !p.deleted }

// full reports whether the account is a full member of the workspace: one who can read every
// public channel without joining it.
func (p person) full() bool { return p.reader() && !p.identity.Guest }

// directory is the workspace's people from users.list, by user id.
type directory map[string]person

// audienceVersions reads the versions of the installation's users and user groups and, when
// channel is set, of the channel's readers, in one query.
func (a *Adapter) audienceVersions(ctx context.Context, channel string) (versions, error) {
	subjects := []string{bot.SubjectUsers, bot.SubjectRoles}
	if channel != "" {
		subjects = append(subjects, bot.ChannelSubject(channel))
	}
	st, err := a.opts.Store.AudienceStates(ctx, platform, a.teamID, subjects...)
	if err != nil {
		return versions{}, err
	}
	v := versions{users: st[0].Version, roles: st[1].Version}
	if channel != "" {
		v.channel, v.readers, v.recorded, v.doubt = st[2].Version, st[2].Readers, st[2].Recorded, st[2].Doubt
	}
	return v, nil
}

// directory returns the workspace's people (users.list, a few pages), cached under the users
// version: a change recorded by any replica, or the cache's ttl, lists them again. Concurrent
// questions share one listing.
func (a *Adapter) directory(ctx context.Context, v versions) (directory, error) {
	if d, ok := a.people.Get("", v.users); ok {
		return d, nil
	}
	res, err, _ := a.flight.Do("users.list:"+strconv.FormatInt(v.users, 10), func() (any, error) {
		d, err := a.listUsers(ctx)
		if err == nil {
			a.people.Set("", d, v.users)
		}
		return d, err
	})
	if err != nil {
		return nil, err
	}
	return res.(directory), nil
}

func (a *Adapter) listUsers(ctx context.Context) (directory, error) {
	d := directory{}
	page := a.api.GetUsersPaginated(slack.GetUsersOptionLimit(userPageSize))
	for {
		var next slack.UserPagination
		err := withRetry(ctx, func() (err error) {
			next, err = page.Next(ctx)
			return err
		})
		if page.Done(err) {
			return d, nil
		}
		if err != nil {
			return nil, fmt.Errorf("users.list (needs the users:read scope): %w", err)
		}
		for _, u := range next.Users {
			p, err := a.personOf(ctx, u)
			if err != nil {
				return nil, err
			}
			d[u.ID] = p
		}
		page = next
	}
}

// accountOf maps a Slack user to what access needs, before its directory groups. Guests are
// single- and multi-channel guests, Slack Connect users and anyone from another team; a
// deactivated account reads nothing. The address Slack returns (users:read.email) is the
// account's confirmed one, so it is verified.
func (a *Adapter) accountOf(u slack.User) person {
	id := bot.Identity{
		UserID: u.ID, Email: u.Profile.Email, EmailVerified: u.Profile.Email != "",
		Guest: u.IsRestricted || u.IsUltraRestricted || u.IsStranger || (a.teamID != "" && u.TeamID != "" && u.TeamID != a.teamID),
		Bot:   u.IsBot || u.IsAppUser || u.ID == "USLACKBOT",
	}
	if u.Deleted {
		return person{identity: bot.Identity{UserID: u.ID, Guest: true, Bot: id.Bot}, deleted: true}
	}
	return person{identity: id}
}

// personOf is accountOf with the verified address's directory groups looked up
// (bot.AccessMap.Resolve; bots and deactivated accounts read nothing, so they need none). It
// returns an error when the directory cannot be read: the caller then fails rather than guess
// anyone's groups.
func (a *Adapter) personOf(ctx context.Context, u slack.User) (person, error) {
	p := a.accountOf(u)
	if !p.reader() {
		return p, nil
	}
	id, err := a.opts.Access.Resolve(ctx, p.identity)
	if err != nil {
		return person{}, err
	}
	p.identity = id
	return p, nil
}

// person returns one account: from the directory, or (Slack Connect users, accounts newer than
// the listing) users.info, cached under the users version.
func (a *Adapter) person(ctx context.Context, v versions, userID string) (person, error) {
	d, err := a.directory(ctx, v)
	if err != nil {
		return person{}, err
	}
	if p, ok := d[userID]; ok {
		return p, nil
	}
	if p, ok := a.strangers.Get(userID, v.users); ok {
		return p, nil
	}
	var u *slack.User
	err = withRetry(ctx, func() (err error) {
		u, err = a.api.GetUserInfoContext(ctx, userID)
		return err
	})
	if err != nil {
		return person{}, fmt.Errorf("users.info %s: %w", userID, err)
	}
	p, err := a.personOf(ctx, *u)
	if err != nil {
		return person{}, err
	}
	a.strangers.Set(userID, p, v.users)
	return p, nil
}

// userGroups returns each user's user group ids and handles (usergroups.list with members),
// cached under the roles version; nil when the access map names no user group.
func (a *Adapter) userGroups(ctx context.Context, v versions) (map[string][]string, error) {
	if len(a.opts.Access.Roles) == 0 {
		return nil, nil
	}
	if m, ok := a.roles.Get("", v.roles); ok {
		return m, nil
	}
	res, err, _ := a.flight.Do("usergroups.list:"+strconv.FormatInt(v.roles, 10), func() (any, error) {
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
		a.roles.Set("", m, v.roles)
		return m, nil
	})
	if err != nil {
		return nil, err
	}
	return res.(map[string][]string), nil
}

// scopeOf returns a person's scope: empty when nothing maps them.
func (a *Adapter) scopeOf(p person, roles map[string][]string) rag.Scope {
	id := p.identity
	id.Roles = roles[id.UserID]
	s, _ := a.opts.Access.Scope(id) // an unmapped person gets the empty scope
	return s
}

// askerScope returns the scope of one user (DMs, ephemeral replies); empty when unmapped.
func (a *Adapter) askerScope(ctx context.Context, userID string) (rag.Scope, error) {
	v, err := a.audienceVersions(ctx, "")
	if err != nil {
		return rag.Scope{}, err
	}
	p, err := a.person(ctx, v, userID)
	if err != nil {
		return rag.Scope{}, err
	}
	if !p.reader() {
		return rag.Scope{}, nil
	}
	roles, err := a.userGroups(ctx, v)
	if err != nil {
		return rag.Scope{}, err
	}
	return a.scopeOf(p, roles), nil
}

// fullMemberScopes returns the distinct scopes of the workspace's full members: the readers of
// every public channel. Cached under the users and roles versions.
func (a *Adapter) fullMemberScopes(ctx context.Context, v versions) ([]rag.Scope, error) {
	if s, ok := a.fullScopes.Get("", v.users, v.roles); ok {
		return s, nil
	}
	d, err := a.directory(ctx, v)
	if err != nil {
		return nil, err
	}
	roles, err := a.userGroups(ctx, v)
	if err != nil {
		return nil, err
	}
	var scopes []rag.Scope
	for _, p := range d {
		if p.full() {
			scopes = append(scopes, a.scopeOf(p, roles))
		}
	}
	scopes = bot.DistinctScopes(scopes)
	a.fullScopes.Set("", scopes, v.users, v.roles)
	return scopes, nil
}
