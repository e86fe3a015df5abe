package directory_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/sync/directory"
)

type bundle struct {
	fake      *fakeDirectory
	store     *directory.Store
	exec      func(sql string, args ...any)
	refresher func() *directory.Refresher
}

func setup(t *testing.T) *bundle {
	t.Helper()
	ctx := context.Background()
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	fake, srv := newFakeDirectory(t)
	store := directory.NewStore(pool, 24*time.Hour)
	b := &bundle{fake: fake, store: store}
	b.exec = func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	b.refresher = func() *directory.Refresher {
		t.Helper()
		// The real Google client, pointed at the loopback fake.
		g, err := directory.NewGoogle(ctx, config.GoogleGroupsConfig{Enabled: true}, slog.New(slog.DiscardHandler),
			option.WithEndpoint(srv.URL+"/"), option.WithoutAuthentication())
		if err != nil {
			t.Fatal(err)
		}
		return directory.NewRefresher(g, store, 6*time.Hour, slog.New(slog.DiscardHandler))
	}
	return b
}

func (b *bundle) groupsOf(t *testing.T, email string) []string {
	t.Helper()
	g, err := b.store.GroupsOf(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// org is a small Workspace: eng-leads inside eng inside all-staff, a suspended user, a member of
// type CUSTOMER, an external member, and a group whose address is not a valid group name.
func org() []fakeGroup {
	return []fakeGroup{
		{ID: "g1", Email: "All-Staff@Example.com", Members: []map[string]string{group("eng@example.com"), user("carol@example.com"),
			{"id": "C0abc", "type": "CUSTOMER"}}},
		{ID: "g2", Email: "eng@example.com", Members: []map[string]string{user("Alice@Example.com"), group("eng-leads@example.com"),
			{"id": "u9", "email": "sus@example.com", "type": "USER", "status": "SUSPENDED"}, user("partner@other.org")}},
		{ID: "g3", Email: "eng-leads@example.com", Members: []map[string]string{user("bob@example.com")}},
		{ID: "g4", Email: "finance@example.com", Members: []map[string]string{user("carol@example.com")}},
		{ID: "g5", Email: "weird name@example.com", Members: []map[string]string{user("alice@example.com")}},
	}
}

func TestRefreshReadsGroupsThroughTheGoogleClient(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.fake.set(org()...)
	r := b.refresher()
	if ran, err := r.RefreshIfDue(ctx); !ran || err != nil {
		t.Fatalf("first refresh: ran %v, %v", ran, err)
	}
	if b.fake.lastQuery["customer"] != "my_customer" || b.fake.groupLists < 3 {
		t.Fatalf("groups.list query %v over %d pages; want customer my_customer, paginated", b.fake.lastQuery, b.fake.groupLists)
	}
	for email, want := range map[string][]string{
		"alice@example.com":  {"all-staff@example.com", "eng@example.com"},
		"ALICE@example.com":  {"all-staff@example.com", "eng@example.com"},
		"bob@example.com":    {"all-staff@example.com", "eng-leads@example.com", "eng@example.com"}, // nested twice
		"carol@example.com":  {"all-staff@example.com", "finance@example.com"},
		"partner@other.org":  {"all-staff@example.com", "eng@example.com"},
		"sus@example.com":    nil, // suspended
		"nobody@example.com": nil,
		"not an address":     nil,
	} {
		if got := b.groupsOf(t, email); !slices.Equal(got, want) {
			t.Errorf("GroupsOf(%s) = %v, want %v", email, got, want)
		}
	}
	st, err := b.store.State(ctx)
	if err != nil || st.Groups != 4 || st.RefreshedAt.IsZero() || st.LastError != "" {
		t.Fatalf("state %+v (%v); want 4 groups read (the invalid one skipped)", st, err)
	}

	// Not due again for six hours.
	if ran, err := r.RefreshIfDue(ctx); ran || err != nil {
		t.Fatalf("refresh right after a complete one: ran %v, %v", ran, err)
	}

	// Alice leaves eng; the next due read replaces the snapshot.
	groups := org()
	groups[1].Members = groups[1].Members[1:]
	b.fake.set(groups...)
	b.exec(`UPDATE directory_state SET refreshed_at = now() - interval '7 hours', attempted_at = now() - interval '7 hours'`)
	if ran, err := r.RefreshIfDue(ctx); !ran || err != nil {
		t.Fatalf("due refresh: ran %v, %v", ran, err)
	}
	if got := b.groupsOf(t, "alice@example.com"); len(got) != 0 {
		t.Errorf("alice after leaving eng: %v", got)
	}

	// A listing that fails half way keeps the previous snapshot, records the error and waits
	// before trying again.
	b.fake.failMembers = "g3"
	b.fake.set(org()...)
	b.exec(`UPDATE directory_state SET refreshed_at = now() - interval '7 hours', attempted_at = now() - interval '7 hours'`)
	if ran, err := r.RefreshIfDue(ctx); !ran || err == nil || !strings.Contains(err.Error(), "eng-leads@example.com") {
		t.Fatalf("failing refresh: ran %v, %v", ran, err)
	}
	if got := b.groupsOf(t, "alice@example.com"); len(got) != 0 {
		t.Errorf("a failed read changed the memberships: alice %v", got)
	}
	if st, _ := b.store.State(ctx); !strings.Contains(st.LastError, "403") {
		t.Errorf("state after the failure: %+v", st)
	}
	if ran, _ := r.RefreshIfDue(ctx); ran {
		t.Error("retried at once after a failure")
	}

	// Memberships older than max_age count for nothing.
	b.exec(`UPDATE directory_state SET refreshed_at = now() - interval '25 hours'`)
	if got := b.groupsOf(t, "bob@example.com"); len(got) != 0 {
		t.Errorf("memberships past max_age still count: %v", got)
	}
}

// TestOneReplicaRefreshesAtATime: refreshers of several replicas on one database read the
// directory once per period.
func TestOneReplicaRefreshesAtATime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.fake.set(org()...)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ran := 0
	for range 4 {
		r := b.refresher()
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := r.RefreshIfDue(context.Background())
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				ran++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ran != 1 || b.fake.groupLists != 3 {
		t.Fatalf("%d replicas read the directory (%d groups.list pages); want 1 (3 pages)", ran, b.fake.groupLists)
	}
}

// TestIdentityGroupsMatchDrive: a verified Slack identity gets the names the Drive connector
// writes for the same person: the address, its domain, and the groups from the directory.
func TestIdentityGroupsMatchDrive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.fake.set(org()...)
	if _, err := b.refresher().RefreshIfDue(ctx); err != nil {
		t.Fatal(err)
	}
	m := bot.NewAccessMap(nil, nil, nil, nil, nil)
	m.EmailGroups, m.Directory = true, b.store
	for _, tc := range []struct {
		name string
		id   bot.Identity
		want []string
	}{
		{"member", bot.Identity{UserID: "U1", Email: "Bob@Example.com", EmailVerified: true},
			[]string{"all-staff@example.com", "bob@example.com", "domain:example.com", "eng-leads@example.com", "eng@example.com"}},
		{"guest: no domain group", bot.Identity{UserID: "U2", Email: "partner@other.org", EmailVerified: true, Guest: true},
			[]string{"all-staff@example.com", "eng@example.com", "partner@other.org"}},
		{"unverified address: nothing", bot.Identity{UserID: "U3", Email: "bob@example.com"}, nil},
	} {
		id, err := m.Resolve(ctx, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Groups(id); !slices.Equal(got, tc.want) {
			t.Errorf("%s: groups %v, want %v", tc.name, got, tc.want)
		}
	}
}
