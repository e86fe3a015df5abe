package bot_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/citahq/cita/bot"
)

type directoryFunc func(ctx context.Context, email string) ([]string, error)

func (f directoryFunc) GroupsOf(ctx context.Context, email string) ([]string, error) {
	return f(ctx, email)
}

func TestIdentityGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := bot.NewAccessMap(nil, nil, nil, map[string][]string{"example.com": {"staff"}}, []string{"everyone"})
	m.EmailGroups = true
	m.Directory = directoryFunc(func(_ context.Context, email string) ([]string, error) {
		switch email {
		case "ana@example.com":
			return []string{"eng@example.com", "bad group@example.com"}, nil
		case "down@example.com":
			return nil, errors.New("connection refused")
		}
		return nil, nil
	})
	for _, tc := range []struct {
		name string
		id   bot.Identity
		want []string
	}{
		{"verified member", bot.Identity{UserID: "U1", Email: "ana@example.com", EmailVerified: true},
			[]string{"ana@example.com", "domain:example.com", "eng@example.com", "everyone", "staff"}},
		{"unverified address", bot.Identity{UserID: "U1", Email: "ana@example.com"}, []string{"everyone", "staff"}},
		{"guest: own address only", bot.Identity{UserID: "U2", Email: "gus@partner.org", EmailVerified: true, Guest: true}, []string{"gus@partner.org"}},
		{"an address that is no valid group", bot.Identity{UserID: "U3", Email: "josé@example.com", EmailVerified: true}, []string{"everyone", "staff"}},
		{"no address", bot.Identity{UserID: "U4", EmailVerified: true}, []string{"everyone"}},
	} {
		id, err := m.Resolve(ctx, tc.id)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := m.Groups(id); !slices.Equal(got, tc.want) {
			t.Errorf("%s: groups %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := m.Resolve(ctx, bot.Identity{UserID: "U5", Email: "down@example.com", EmailVerified: true}); err == nil {
		t.Error("a directory that cannot be read gave an identity; want an error (fail closed)")
	}
	off := bot.NewAccessMap(nil, nil, nil, nil, nil)
	if got := off.Groups(bot.Identity{UserID: "U1", Email: "ana@example.com", EmailVerified: true}); len(got) != 0 {
		t.Errorf("identity groups while off: %v", got)
	}
}
