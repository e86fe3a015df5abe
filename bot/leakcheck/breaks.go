package leakcheck

import (
	"context"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// The deliberate breaks TestCatchesLeaks applies one at a time (faults): each replaces one
// check of cita with one that lets everything through, at the interface the check sits behind,
// so the production code stays as it is and the harness must find the leak on the break's path.

// wideScope is a scope holding every group of the organisation: every restricted group,
// everyone, the domain and every address.
func (o *org) wideScope() rag.Scope {
	groups := append([]string{everyone, domainGroup}, o.groups...)
	for _, p := range o.people {
		groups = append(groups, p.email)
	}
	return rag.MustScope(groups...)
}

// anyScopeArms is a search index whose filter is broken: every arm searches and loads with the
// wide scope, whatever scope the question has.
type anyScopeArms struct {
	rag.ArmStore
	wide rag.Scope
}

func (a anyScopeArms) SearchVector(ctx context.Context, vec []float32, _ rag.Scope, k int) ([]rag.ArmHit, error) {
	return a.ArmStore.SearchVector(ctx, vec, a.wide, k)
}

func (a anyScopeArms) SearchFTS(ctx context.Context, q rag.FTSQuery, _ rag.Scope, k int) ([]rag.ArmHit, []string, error) {
	return a.ArmStore.SearchFTS(ctx, q, a.wide, k)
}

func (a anyScopeArms) LoadHits(ctx context.Context, ids []int64, _ rag.Scope) ([]rag.Hit, error) {
	return a.ArmStore.LoadHits(ctx, ids, a.wide)
}

// scopelessCache is an answer cache whose key forgets the scope: an answer cached for one scope
// is served to every other.
type scopelessCache struct{ rag.AnswerCache }

func (c scopelessCache) Lookup(ctx context.Context, key rag.CacheKey) (*rag.Answer, error) {
	key.Scope = brokenScope
	return c.AnswerCache.Lookup(ctx, key)
}

func (c scopelessCache) Store(ctx context.Context, key rag.CacheKey, ans *rag.Answer) error {
	key.Scope = brokenScope
	return c.AnswerCache.Store(ctx, key, ans)
}

// brokenScope is the one scope every key of scopelessCache takes: a valid key (the cache reads
// its groups back), of a group no document has.
var brokenScope = rag.MustScope("broken").Key()

// storeBreaks are the breaks of the bot store (faultStore): conversation memory and "How I
// answered" read with the wide scope, and an answer whose record is dropped while SaveAnswer
// reports success (so it is shown although nothing could ever withdraw it).
type storeBreaks struct {
	memoryIgnoresScope, traceIgnoresScope, recordDropped bool
	// skipWriteCheck: every write of an answer's text is told the answer stands, and no
	// withdrawal that lands during a write is reported after it.
	skipWriteCheck bool
	// joinersIgnored: AddReader records nothing and ChannelJoiners is empty, so only Slack's
	// member list says who reads a channel; writeIgnoresReaders: a write is stopped only by the
	// answer's withdrawal, not by the channel's recorded readers; teamJoinIgnored: team_join
	// checks no public channel.
	joinersIgnored, writeIgnoresReaders, teamJoinIgnored bool
	wide                                                 rag.Scope
}

// RecentTurns reads the conversation's memory, with the wide scope when memory is broken.
func (s *faultStore) RecentTurns(ctx context.Context, conv bot.ConversationKey, scope rag.Scope, n int) ([]rag.Turn, error) {
	if s.breaks.memoryIgnoresScope {
		scope = s.breaks.wide
	}
	return s.Store.RecentTurns(ctx, conv, scope, n)
}

// LoadTrace loads "How I answered", as a viewer holding the wide scope when it is broken.
func (s *faultStore) LoadTrace(ctx context.Context, id int64, viewer bot.Viewer) (*bot.AnswerRecord, error) {
	if s.breaks.traceIgnoresScope {
		viewer.Scope = s.breaks.wide
	}
	return s.Store.LoadTrace(ctx, id, viewer)
}
