// Package directory keeps a Google Workspace account's group memberships in PostgreSQL, for
// identity groups: a Refresher reads every group and its direct members from the Admin SDK
// Directory API on a schedule and replaces the stored snapshot in one transaction; every
// replica looks a user's groups up there (Store.GroupsOf, a bot.Directory), nested groups
// included. Groups are named by their e-mail address, as Google Drive permissions name them.
package directory

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"golang.org/x/oauth2/google"
	admin "google.golang.org/api/admin/directory/v1"
	"google.golang.org/api/option"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
)

// Membership is one direct membership: Member (a user's or a group's address) belongs to Group.
type Membership struct {
	Group, Member string
	MemberIsGroup bool
}

// Snapshot is a complete read of the directory.
type Snapshot struct {
	Groups  int // groups listed
	Members []Membership
}

// Google reads groups and members through the Admin SDK Directory API. Construct it with
// NewGoogle.
type Google struct {
	svc      *admin.Service
	customer string
	domain   string
	logger   *slog.Logger
}

// scopes are the read-only Directory API scopes the listing needs (grant them to the service
// account's client id for domain-wide delegation).
var scopes = []string{admin.AdminDirectoryGroupReadonlyScope, admin.AdminDirectoryGroupMemberReadonlyScope}

// NewGoogle returns a Directory API client for cfg (defaults applied here), authenticated with
// its service-account key acting as Subject, or its OAuth token file. extra options come last
// (tests pass option.WithEndpoint and option.WithoutAuthentication). It returns an error when a
// credentials file cannot be read.
func NewGoogle(ctx context.Context, cfg config.GoogleGroupsConfig, logger *slog.Logger, extra ...option.ClientOption) (*Google, error) {
	cfg = cfg.WithDefaults()
	var opts []option.ClientOption
	switch {
	case cfg.CredentialsFile != "":
		key, err := os.ReadFile(cfg.CredentialsFile)
		if err != nil {
			return nil, fmt.Errorf("identity.google_groups.credentials_file: %w", err)
		}
		jwt, err := google.JWTConfigFromJSON(key, scopes...)
		if err != nil {
			return nil, fmt.Errorf("identity.google_groups.credentials_file: %w", err)
		}
		jwt.Subject = cfg.Subject
		opts = append(opts, option.WithTokenSource(jwt.TokenSource(context.WithoutCancel(ctx))))
	case cfg.TokenFile != "":
		opts = append(opts, option.WithAuthCredentialsFile(option.AuthorizedUser, cfg.TokenFile), option.WithScopes(scopes...))
	}
	if cfg.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(cfg.Endpoint))
	}
	svc, err := admin.NewService(ctx, append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("connect to the Google Directory API: %w", err)
	}
	return &Google{svc: svc, customer: cfg.Customer, domain: cfg.Domain, logger: logger}, nil
}

// List reads every group of the account (or of its configured domain) and each group's direct
// members. Suspended or otherwise inactive members are left out, and so are members of type
// CUSTOMER ("everyone in the account"), which name no address; addresses that make no valid
// group name are left out with a warning (both only narrow access). It returns an error, and no
// snapshot, when any page cannot be read: a partial listing must not replace a complete one.
func (g *Google) List(ctx context.Context) (Snapshot, error) {
	var snap Snapshot
	call := g.svc.Groups.List().Context(ctx).MaxResults(200)
	if g.domain != "" {
		call = call.Domain(g.domain)
	} else {
		call = call.Customer(g.customer)
	}
	var groups []*admin.Group
	if err := call.Pages(ctx, func(page *admin.Groups) error {
		groups = append(groups, page.Groups...)
		return nil
	}); err != nil {
		return Snapshot{}, fmt.Errorf("list groups: %w", err)
	}
	for _, grp := range groups {
		name, err := rag.EmailGroup(grp.Email)
		if err != nil {
			g.logger.WarnContext(ctx, "directory group skipped", slog.String("group_id", grp.Id), slog.String("error", err.Error()))
			continue
		}
		snap.Groups++
		err = g.svc.Members.List(grp.Id).Context(ctx).MaxResults(200).Pages(ctx, func(page *admin.Members) error {
			for _, m := range page.Members {
				if ms, ok := g.membership(ctx, name, m); ok {
					snap.Members = append(snap.Members, ms)
				}
			}
			return nil
		})
		if err != nil {
			return Snapshot{}, fmt.Errorf("list members of %s: %w", name, err)
		}
	}
	return snap, nil
}

// membership turns a member of group into a Membership; ok is false for a member left out.
func (g *Google) membership(ctx context.Context, group string, m *admin.Member) (Membership, bool) {
	if m == nil || (m.Status != "" && m.Status != "ACTIVE") {
		return Membership{}, false
	}
	if m.Type != "USER" && m.Type != "GROUP" {
		return Membership{}, false // CUSTOMER: the whole account, no address to match
	}
	email, err := rag.EmailGroup(m.Email)
	if err != nil {
		g.logger.WarnContext(ctx, "directory member skipped", slog.String("group", group), slog.String("member_id", m.Id), slog.String("error", err.Error()))
		return Membership{}, false
	}
	return Membership{Group: group, Member: email, MemberIsGroup: m.Type == "GROUP"}, true
}
