package pgbot_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// placePoster stands in for a platform: the follow-up of a public question goes to its thread,
// read by scope; a shared one to its asker's DM, read by the asker's groups.
type placePoster struct {
	mu     sync.Mutex
	scope  map[string]rag.Scope // by channel ("" for DMs): what its readers may read now
	posted []bot.GapPlace
	texts  []string
}

func (p *placePoster) GapPlace(_ context.Context, g bot.OpenGap) (bot.GapPlace, error) {
	if g.Shared {
		return bot.GapPlace{Conversation: bot.ConversationKey{Platform: "slack", Workspace: g.Conversation.Workspace, Channel: "D" + g.Asker},
			Scope: p.scope[""], Audience: bot.AudiencePrivate}, nil
	}
	return bot.GapPlace{Conversation: g.Conversation, Scope: p.scope[g.Conversation.Channel], Audience: bot.AudienceChannel, Public: true}, nil
}

func (p *placePoster) PostGapFollowUp(_ context.Context, place bot.GapPlace, _ bot.OpenGap, out bot.Outgoing) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.posted = append(p.posted, place)
	p.texts = append(p.texts, out.Text)
	return nil
}

// After a sync adds the document that answers a public gap, the thread gets the answer once; a
// place whose readers may not read the new document gets nothing; a private question nobody
// shared is never asked again; a shared one goes to its asker alone.
func TestGapFollowThroughAnswersOnceWhereEveryoneMayRead(t *testing.T) {
	t.Parallel()
	g := newGapEnv(t)
	g.scope = rag.MustScope("everyone", "facilities")
	ctx := context.Background()
	g.ask("U1", "Is there parking for employees at the office?", inPublic)
	g.ask("U2", "Is there employee parking near the office?", inDM) // not shared
	shared := g.ask("U3", "Where do employees park at the office?", inDM)
	if err := g.env.Bot.ShareGap(ctx, shared.AnswerID, "U3"); err != nil {
		t.Fatal(err)
	}
	// A public question in a channel whose readers, since a guest joined, may read only what
	// everyone reads.
	in := bot.Incoming{Conversation: bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "CGUESTS", Thread: "2.1"},
		UserID: "U4", Text: "Is there a parking space for visitors at the office?", Scope: g.scope,
		Audience: bot.AudienceChannel, Public: true}
	if out := g.h.Handle(ctx, in, nil); out.Kind() == bot.ReplyAnswer {
		t.Fatalf("answered before the document exists: %+v", out)
	}
	if n := g.group(); n != 3 {
		t.Fatalf("grouped %d, want the 2 public questions and the shared one", n)
	}
	poster := &placePoster{scope: map[string]rag.Scope{
		"CPUB": rag.MustScope("everyone", "facilities"), "CGUESTS": rag.MustScope("everyone"), "": rag.MustScope("everyone", "facilities"),
	}}
	follower := bot.NewGapFollower(g.env.Bot, g.env.Pipeline, map[string]bot.GapPoster{"slack": poster}, nil)

	before := time.Now().Add(-time.Second)
	if res, err := follower.Follow(ctx, before); err != nil || res.Resolved != 0 {
		t.Fatalf("follow-through with nothing changed: %+v, %v", res, err)
	}
	since := time.Now().Add(-time.Millisecond)
	g.env.Add(t, bottest.Doc{Path: "parking.md", Title: "Office parking", Groups: []string{"facilities"}, Chunks: []string{
		"Employees can park for free in the garage under the office: ask reception for a parking card. Employee parking spaces are on level -2.",
	}})
	res, err := follower.Follow(ctx, since)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resolved != 2 || res.Unsure != 1 || len(poster.posted) != 2 {
		t.Fatalf("follow-through %+v posted at %+v, want the public thread and the sharer's DM", res, poster.posted)
	}
	var thread, dm bool
	for i, p := range poster.posted {
		switch p.Conversation.Channel {
		case "CPUB":
			thread = p.Conversation.Thread == "1700000000.0001"
		case "DU3":
			dm = true
		default:
			t.Errorf("posted in %+v", p.Conversation)
		}
		if !strings.Contains(poster.texts[i], "garage") {
			t.Errorf("follow-up %q does not answer from the new document", poster.texts[i])
		}
	}
	if !thread || !dm {
		t.Errorf("posted at %+v, want CPUB's thread and U3's DM", poster.posted)
	}
	// Once: another sync pass posts nothing more; the resolved gaps are counted as such.
	if res, err := follower.Follow(ctx, since); err != nil || res.Resolved != 0 || len(poster.posted) != 2 {
		t.Fatalf("second pass: %+v, %v; posted %d", res, err, len(poster.posted))
	}
	rep := g.report(bot.GapQuery{Reader: rag.MustScope("everyone", "facilities")})
	resolved := 0
	for _, tp := range rep {
		resolved += tp.Resolved
	}
	if resolved != 2 {
		t.Errorf("the report counts %d resolved, want 2: %+v", resolved, rep)
	}
	open, resolvedSince, err := g.env.Bot.GapCounts(ctx, since)
	if err != nil || open != 1 || resolvedSince != 2 {
		t.Errorf("GapCounts = %d open, %d resolved, %v; want 1 (the guests' channel) and 2", open, resolvedSince, err)
	}
}
