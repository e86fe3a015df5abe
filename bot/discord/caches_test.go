package discord

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// TestCachesAreBounded: the threads the bot opened and the audience lookups it remembers stay
// within a fixed size however many arrive, and an entry older than its age is not used.
func TestCachesAreBounded(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	a := newTestAdapter(t, f, nopHandler{}, nil)
	ctx := context.Background()
	for n := range 3 * maxThreads {
		a.markThread(fmt.Sprint(100000 + n))
	}
	if got := a.threads.Len(); got > maxThreads {
		t.Errorf("%d threads remembered, want at most %d", got, maxThreads)
	}
	if !a.ownsThread(&discordgo.Channel{ID: fmt.Sprint(100000 + 3*maxThreads - 1)}) {
		t.Error("the latest thread opened is forgotten")
	}
	for n := range 3 * maxAudienceEntries {
		_, _ = a.audience.remember(fmt.Sprint("channel:", n), func() (any, error) { return &discordgo.Channel{}, nil })
		a.audience.members.Set(fmt.Sprint(guildID, "/", n), membership{}, 0, 0)
	}
	_, _ = a.audience.memberRoles(ctx, versions{}, guildID, userHR, true)
	_, _ = a.audience.memberRoles(ctx, versions{}, guildID, userHR, true)
	if n := len(f.callsTo("GET", "/guilds/"+guildID+"/members/"+userHR)); n != 1 {
		t.Errorf("a full cache looked the latest member up %d times, want once", n)
	}
	if got := a.audience.cache.Len(); got > maxAudienceEntries {
		t.Errorf("%d channel facts remembered, want at most %d", got, maxAudienceEntries)
	}
	if got := a.audience.members.Len(); got > maxAudienceEntries {
		t.Errorf("%d member lookups remembered, want at most %d", got, maxAudienceEntries)
	}
}

// TestAudienceEntriesExpire: a remembered lookup is asked again once older than audienceTTL
// (the backstop for a lost event) or once its versions changed, and an opened thread is
// forgotten after threadMemory.
func TestAudienceEntriesExpire(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	now := time.Unix(1_800_000_000, 0)
	a := newTestAdapter(t, f, nopHandler{}, func(o *Options) { o.Now = func() time.Time { return now } })
	ctx := context.Background()
	lookups := func() int { return len(f.callsTo("GET", "/guilds/"+guildID+"/members/"+userHR)) }
	v := versions{users: 3, roles: 5}
	_, _ = a.audience.memberRoles(ctx, v, guildID, userHR, true)
	now = now.Add(audienceTTL - time.Second)
	_, _ = a.audience.memberRoles(ctx, v, guildID, userHR, true)
	if got := lookups(); got != 1 {
		t.Fatalf("%d lookups within the TTL, want 1", got)
	}
	now = now.Add(2 * time.Second)
	_, _ = a.audience.memberRoles(ctx, v, guildID, userHR, true)
	if got := lookups(); got != 2 {
		t.Errorf("%d lookups after the TTL, want 2", got)
	}
	for n, changed := range []versions{{users: 4, roles: 5}, {users: 4, roles: 6}} {
		_, _ = a.audience.memberRoles(ctx, changed, guildID, userHR, true)
		if got := lookups(); got != 3+n {
			t.Errorf("%d lookups after the versions became %+v, want %d", got, changed, 3+n)
		}
	}
	a.markThread("7001")
	now = now.Add(threadMemory - time.Second)
	if !a.ownsThread(&discordgo.Channel{ID: "7001"}) {
		t.Error("a thread opened within threadMemory is forgotten")
	}
	now = now.Add(2 * time.Second)
	if a.ownsThread(&discordgo.Channel{ID: "7001"}) {
		t.Error("a thread opened longer than threadMemory ago is still remembered")
	}
}
