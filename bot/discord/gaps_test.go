package discord

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/rewrite"
)

// The gap loop through the real adapter and the loopback Discord (issue 32): /ask declined in a
// channel every member sees is answered there once, one sync after the document is added; a
// private /ask offers "Tell the document owners", and once its asker shares it, the answer goes
// to their DM; an unshared private question appears nowhere.
func TestGapFollowThroughOnDiscord(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	f := newFakeDiscord(t)
	seedGuild(f)
	pipeline := rag.NewPipeline(rag.NewHybrid(env.Index, hashembed.New(0), rag.DefaultHybridOptions()), rag.Extractive{}, rewrite.Offline{}, rag.PipelineOptions{})
	e := &e2e{env: env, fake: f}
	e.adapter = newTestAdapter(t, f, bot.NewHandler(pipeline, env.Bot, bot.HandlerOptions{}), func(o *Options) { o.Gaps = env.Bot })
	ctx := context.Background()

	pub := e.ask(t, interaction{ID: "301", Token: "tok-301", Channel: chGeneral, User: userPlain, Question: "Is there parking for employees at the office?"})
	if !strings.Contains(textOf(pub), "couldn't find") || strings.Contains(strings.Join(customIDs(pub), " "), idShare) {
		t.Fatalf("public decline %q with buttons %v: want no share button (a public question is in the record already)", textOf(pub), customIDs(pub))
	}
	priv := e.ask(t, interaction{ID: "302", Token: "tok-302", Channel: chGeneral, User: userHR, Private: true, Question: "Where can employees park at the office?"})
	var share string
	for _, id := range customIDs(priv) {
		if strings.HasPrefix(id, idShare) {
			share = id
		}
	}
	if share == "" || !strings.Contains(textOf(priv), "document owners") {
		t.Fatalf("private decline %q with buttons %v: want the share button and who will see the question", textOf(priv), customIDs(priv))
	}
	e.ask(t, interaction{ID: "303", Token: "tok-303", Channel: chGeneral, User: userPlain, Private: true, Question: "Is there employee parking DCANARY?"})
	if got := e.click(t, interaction{ID: "304", Token: "tok-304", Channel: chGeneral, User: userPlain, CustomID: share}); !strings.Contains(got, "Only whoever asked") {
		t.Errorf("someone else sharing the question got %q", got)
	}
	if got := e.click(t, interaction{ID: "305", Token: "tok-305", Channel: chGeneral, User: userHR, CustomID: share}); got != bot.ShareGapReply("en", nil) {
		t.Errorf("the asker sharing got %q", got)
	}
	if n, err := env.Bot.AssignGapTopics(ctx, rag.NewTopicReader(nil, nil).Signature, 0); err != nil || n != 2 {
		t.Fatalf("grouped %d, %v; want the public question and the shared one", n, err)
	}
	since := time.Now().Add(-time.Millisecond)
	env.Add(t, bottest.Doc{Path: "parking.md", Title: "Office parking", Groups: []string{"everyone"}, Chunks: []string{
		"Employees can park for free in the garage under the office: ask reception for a parking card. Employee parking spaces are on level -2.",
	}})
	follower := bot.NewGapFollower(env.Bot, pipeline, map[string]bot.GapPoster{"discord": e.adapter}, nil)
	res, err := follower.Follow(ctx, since)
	if err != nil || res.Resolved != 2 {
		t.Fatalf("follow-through %+v, %v: want the channel and the sharer's DM answered", res, err)
	}
	inChannel, inDM := 0, 0
	for _, c := range f.callsTo("POST", "/channels/"+chGeneral+"/messages") {
		m := c.JSON(t)
		if content, _ := m["content"].(string); strings.Contains(content, "now answers") {
			inChannel++
			ref, _ := m["message_reference"].(map[string]any)
			if ref == nil || ref["message_id"] != originalID("301") || !strings.Contains(content, "[1]") {
				t.Errorf("follow-up %v: want a cited answer replying to the declined one", m)
			}
		}
	}
	for _, c := range f.callsTo("POST", "/channels/dm-"+userHR+"/messages") {
		if content, _ := c.JSON(t)["content"].(string); strings.Contains(content, "Our documentation now does") {
			inDM++
		}
	}
	if inChannel != 1 || inDM != 1 {
		t.Errorf("%d follow-ups in the channel and %d in the sharer's DM, want 1 and 1", inChannel, inDM)
	}
	if calls := f.callsTo("POST", "/channels/dm-"+userPlain+"/messages"); len(calls) != 0 {
		t.Errorf("the unshared private question was followed up: %d messages", len(calls))
	}
	if res, err := follower.Follow(ctx, since); err != nil || res.Resolved != 0 {
		t.Errorf("second pass %+v, %v: want nothing more", res, err)
	}
	rep, err := env.Bot.GapReport(ctx, bot.GapQuery{Reader: rag.MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range rep {
		if strings.Contains(strings.Join(tp.Questions, " "), "DCANARY") {
			t.Errorf("the report shows the unshared private question: %+v", tp)
		}
	}
}
