package discord

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/rewrite"
)

// e2e is the real stack: PostgreSQL with the three-document corpus (vacation and remote work
// for "everyone", salaries for "hr"), the hybrid pipeline with the offline rewriter, the bot
// handler and store, and the adapter talking to the fake Discord.
type e2e struct {
	env     *bottest.Env
	fake    *fakeDiscord
	adapter *Adapter
}

func setupE2E(t *testing.T) *e2e {
	t.Helper()
	env := bottest.New(t)
	f := newFakeDiscord(t)
	seedGuild(f)
	e := &e2e{env: env, fake: f}
	e.adapter = e.newAdapter(t)
	return e
}

// newAdapter returns another adapter over the same database and fake, with caches of its own
// (another replica, or this one once its caches expired).
func (e *e2e) newAdapter(t *testing.T) *Adapter {
	t.Helper()
	pipeline := rag.NewPipeline(rag.NewHybrid(e.env.Index, hashembed.New(0), rag.DefaultHybridOptions()), rag.Extractive{}, rewrite.Offline{}, rag.PipelineOptions{})
	return newTestAdapter(t, e.fake, bot.NewHandler(pipeline, e.env.Bot, bot.HandlerOptions{}), nil)
}

// ask posts a signed /ask, checks the deferral and returns the single edit of the original
// response once the work is done.
func (e *e2e) ask(t *testing.T, in interaction) map[string]any {
	t.Helper()
	w := post(t, e.adapter, in.JSON(t))
	var resp discordgo.InteractionResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("/ask answered %d %s (%v), want a deferral", w.Code, w.Body, err)
	}
	ephemeral := resp.Data != nil && resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0
	if ephemeral != in.Private {
		t.Errorf("deferral ephemeral=%v, want %v", ephemeral, in.Private)
	}
	wait(e.adapter)
	edits := e.fake.callsTo("PATCH", "/webhooks/1000/"+in.Token+"/messages/@original")
	if len(edits) != 1 {
		t.Fatalf("%d edits of the original response, want 1", len(edits))
	}
	edit := edits[0].JSON(t)
	t.Logf("reply: %q\nsources: %q", textOf(edit), sourcesOf(edit))
	return edit
}

// click posts a signed button click on message msg and returns the ephemeral reply's text.
func (e *e2e) click(t *testing.T, in interaction) string {
	t.Helper()
	w := post(t, e.adapter, in.JSON(t))
	var resp discordgo.InteractionResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource ||
		resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("click answered %s (%v), want an ephemeral deferral", w.Body, err)
	}
	wait(e.adapter)
	edits := e.fake.callsTo("PATCH", "/webhooks/1000/"+in.Token+"/messages/@original")
	if len(edits) != 1 {
		t.Fatalf("%d edits after the click, want 1", len(edits))
	}
	return textOf(edits[0].JSON(t))
}

// sourcesOf returns the sources' text: the embed's, or a Components V2 message's sources
// section with its link buttons' URLs ("" when there are no sources).
func sourcesOf(edit map[string]any) string {
	embeds, _ := edit["embeds"].([]any)
	var b strings.Builder
	for _, e := range embeds {
		m := e.(map[string]any)
		b.WriteString(m["title"].(string) + "\n" + m["description"].(string))
	}
	inSources := false
	walkComponents(edit["components"], func(c map[string]any) {
		switch {
		case c["type"] == 10.0 && c["content"] == "**Sources**":
			inSources = true
			b.WriteString("Sources")
		case inSources && c["type"] == 10.0:
			b.WriteString("\n" + c["content"].(string))
		case inSources && c["type"] == 2.0 && c["url"] != nil:
			b.WriteString(" " + c["url"].(string))
		}
	})
	return b.String()
}

// customIDs returns the custom ids of the edit's buttons.
func customIDs(edit map[string]any) []string {
	var ids []string
	walkComponents(edit["components"], func(c map[string]any) {
		if id, ok := c["custom_id"].(string); ok {
			ids = append(ids, id)
		}
	})
	return ids
}

func TestAskEndToEnd(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	ctx := context.Background()
	edit := e.ask(t, interaction{ID: "101", Token: "tok-101", Channel: chGeneral, User: userPlain, Question: "How many vacation days do I get per year?"})
	content := textOf(edit)
	if !strings.HasPrefix(content, "> How many vacation days") || !strings.Contains(content, "22") || !strings.Contains(content, "[1]") {
		t.Errorf("answer %q: want the quoted question and a cited answer with 22 days", content)
	}
	if flags, _ := edit["flags"].(float64); int(flags)&int(discordgo.MessageFlagsIsComponentsV2) == 0 || edit["embeds"] != nil {
		t.Errorf("answer edit flags %v, embeds %v: want a Components V2 message", edit["flags"], edit["embeds"])
	}
	if top, _ := edit["components"].([]any); len(top) != 2 || top[0].(map[string]any)["type"] != 17.0 || top[1].(map[string]any)["type"] != 1.0 {
		t.Errorf("answer components %v: want a container, then the row of buttons", edit["components"])
	}
	src := sourcesOf(edit)
	if !strings.Contains(src, "[1] **Vacation policy** · updated 2025-03-04 https://docs.example.com/vacation.md") {
		t.Errorf("sources section %q: want the vacation policy with its date and a link button to it", src)
	}
	ids := customIDs(edit)
	if len(ids) != 4 || !strings.HasPrefix(ids[0], idVoteUp) || !strings.HasPrefix(ids[2], idExplain) || !strings.HasPrefix(ids[3], idThread) {
		t.Fatalf("buttons %v: want 👍, 👎, How I answered, Continue in thread", ids)
	}
	act, ok := parseCustomID(ids[0])
	if !ok {
		t.Fatalf("button id %q does not parse", ids[0])
	}
	rec, err := e.env.Bot.LoadAnswer(ctx, act.AnswerID)
	if err != nil {
		t.Fatalf("the button's answer id %d: %v", act.AnswerID, err)
	}
	answerMsg := originalID("101")
	conv := conversationKey(guildID, chGeneral, answerMsg)
	if rec.Conversation != conv || strings.Join(rec.ScopeGroups, ",") != "everyone" {
		t.Errorf("record conversation %+v scope %v; want %+v and [everyone]", rec.Conversation, rec.ScopeGroups, conv)
	}
	message := map[string]any{"id": answerMsg, "channel_id": chGeneral, "content": content, "flags": 0}

	t.Run("vote is stored", func(t *testing.T) {
		reply := e.click(t, interaction{ID: "102", Token: "tok-102", Channel: chGeneral, User: userPlain, CustomID: ids[1], Message: message})
		if !strings.Contains(reply, "👎") {
			t.Errorf("reply %q", reply)
		}
		var rating int
		if err := e.env.Pool.QueryRow(ctx, `SELECT rating FROM bot_feedback WHERE answer_id = $1 AND user_id = $2`, act.AnswerID, userPlain).Scan(&rating); err != nil || rating != -1 {
			t.Errorf("stored rating %d (%v), want -1", rating, err)
		}
	})
	t.Run("how I answered", func(t *testing.T) {
		reply := e.click(t, interaction{ID: "103", Token: "tok-103", Channel: chGeneral, User: userHR, Roles: []string{roleHR}, CustomID: ids[2], Message: message})
		if !strings.Contains(reply, "How I answered") || !strings.Contains(reply, "everyone") || !strings.Contains(reply, "Vacation policy") {
			t.Errorf("explanation %q", reply)
		}
	})
	t.Run("thread follow-up is answered with the answer's history", func(t *testing.T) {
		reply := e.click(t, interaction{ID: "104", Token: "tok-104", Channel: chGeneral, User: userPlain, CustomID: ids[3], Message: message})
		if !strings.Contains(reply, "<#"+answerMsg+">") {
			t.Fatalf("reply %q: want a link to the new thread", reply)
		}
		threads := e.fake.callsTo("POST", "/channels/"+chGeneral+"/messages/"+answerMsg+"/threads")
		if len(threads) != 1 || !strings.HasPrefix(threads[0].JSON(t)["name"].(string), "How many vacation days") {
			t.Fatalf("thread creations %v", threads)
		}
		// A message in the thread, as the gateway delivers it with the MESSAGE_CONTENT intent.
		e.adapter.onMessage(&discordgo.Message{ID: "990", ChannelID: answerMsg, GuildID: guildID,
			Author: &discordgo.User{ID: userPlain}, Content: "And how many of them carry over?"})
		wait(e.adapter)
		var answer map[string]any
		for _, c := range e.fake.callsTo("POST", "/channels/"+answerMsg+"/messages") {
			if m := c.JSON(t); m["message_reference"] != nil {
				answer = m
			}
		}
		if answer == nil {
			t.Fatal("no reply to the thread message")
		}
		if got := textOf(answer); !strings.Contains(got, "five") && !strings.Contains(got, "carry over") {
			t.Errorf("follow-up answer %q: want the carry-over rule", got)
		}
		if !strings.Contains(sourcesOf(answer), "Vacation policy") {
			t.Errorf("follow-up sources %q", sourcesOf(answer))
		}
		turns, err := e.env.Bot.RecentTurns(ctx, conv, rag.MustScope("everyone"), 10)
		if err != nil || len(turns) != 4 {
			t.Fatalf("conversation has %d turns (%v), want 4: the /ask and the thread follow-up", len(turns), err)
		}
		fid, _ := parseCustomID(customIDs(answer)[0])
		frec, err := e.env.Bot.LoadAnswer(ctx, fid.AnswerID)
		if err != nil || frec.StandaloneQuery == frec.Question {
			t.Errorf("follow-up searched as %q (%v): want it rewritten with the thread's history", frec.StandaloneQuery, err)
		}

		// Without the intent: /ask inside the thread continues the same conversation.
		edit := e.ask(t, interaction{ID: "105", Token: "tok-105", Channel: answerMsg, User: userPlain, Question: "How much notice do the requests need?"})
		if !strings.Contains(textOf(edit), "two weeks") {
			t.Errorf("in-thread /ask answer %q", textOf(edit))
		}
		if turns, _ := e.env.Bot.RecentTurns(ctx, conv, rag.MustScope("everyone"), 10); len(turns) != 6 {
			t.Errorf("conversation has %d turns after /ask in the thread, want 6", len(turns))
		}
	})
}

// TestAskAccessFollowsRoles: a visible answer uses only what everyone who sees the channel may
// read; a private one the asker's roles.
func TestAskAccessFollowsRoles(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	const salaryQ = "What is the base salary of band B7?"
	tests := []struct {
		name       string
		in         interaction
		wantSalary bool
	}{
		{"HR member, visible in #general (everyone sees it)", interaction{Channel: chGeneral, User: userHR, Roles: []string{roleHR}}, false},
		{"HR member, visible in #hr (only HR sees it)", interaction{Channel: chHR, User: userHR, Roles: []string{roleHR}}, true},
		{"HR member, private in #general", interaction{Channel: chGeneral, User: userHR, Roles: []string{roleHR}, Private: true}, true},
		{"member without the HR role, private", interaction{Channel: chGeneral, User: userPlain, Private: true}, false},
		{"member without the HR role, DM", interaction{Channel: "650", User: userPlain, DM: true}, false},
		{"HR member, DM (roles looked up in the guild)", interaction{Channel: "651", User: userHR, DM: true}, true},
	}
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.ID, tt.in.Token, tt.in.Question = "20"+string(rune('0'+n)), "tok-20"+string(rune('0'+n)), salaryQ
			edit := e.ask(t, tt.in)
			cited := strings.Contains(sourcesOf(edit), "Salary bands")
			if cited != tt.wantSalary {
				t.Errorf("salary document cited=%v, want %v; reply %q, sources %q", cited, tt.wantSalary, textOf(edit), sourcesOf(edit))
			}
			if strings.Contains(textOf(edit), "5,440,000") != tt.wantSalary {
				t.Errorf("salary figure shown=%v, want %v: %q", !tt.wantSalary, tt.wantSalary, textOf(edit))
			}
		})
	}
}

// TestThreadReplyNeverReachesANewViewer: an answer from HR documents in #hr continues in a
// thread; once #hr opens to every member, a follow-up in that thread (by anyone) uses only what
// every member may read, and the earlier HR answer no longer feeds the conversation.
func TestThreadReplyNeverReachesANewViewer(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	edit := e.ask(t, interaction{ID: "301", Token: "tok-301", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: "What is the base salary of band B7?"})
	if !strings.Contains(textOf(edit), "5,440,000") {
		t.Fatalf("answer in #hr %q: want the salary (only HR sees #hr)", textOf(edit))
	}
	answerMsg := originalID("301")
	message := map[string]any{"id": answerMsg, "channel_id": chHR, "content": textOf(edit), "flags": 0}
	if reply := e.click(t, interaction{ID: "302", Token: "tok-302", Channel: chHR, User: userHR, Roles: []string{roleHR}, CustomID: customIDs(edit)[3], Message: message}); !strings.Contains(reply, "<#"+answerMsg+">") {
		t.Fatalf("thread button: %q", reply)
	}

	e.fake.mu.Lock()
	e.fake.channels[chHR].PermissionOverwrites = nil // #hr now open to @everyone
	e.fake.mu.Unlock()
	later := e.newAdapter(t)
	for n, q := range []interaction{
		{ID: "303", Token: "tok-303", Channel: answerMsg, User: userPlain, Question: "What is the base salary of band B7?"},
		{ID: "304", Token: "tok-304", Channel: answerMsg, User: userHR, Roles: []string{roleHR}, Question: "And what bonus applies to that band?"},
	} {
		post(t, later, q.JSON(t))
		wait(later)
		edits := e.fake.callsTo("PATCH", "/webhooks/1000/"+q.Token+"/messages/@original")
		if len(edits) != 1 {
			t.Fatalf("follow-up %d: %d edits", n, len(edits))
		}
		got := edits[0].JSON(t)
		t.Logf("follow-up %d: %q", n, textOf(got))
		if text := textOf(got); strings.Contains(text, "5,440,000") || strings.Contains(text, "Condor") ||
			strings.Contains(sourcesOf(got), "Salary bands") {
			t.Errorf("follow-up %d in the thread shows HR documents to everyone: %q, sources %q", n, text, sourcesOf(got))
		}
	}
}

// textOf returns what an edit or message shows as text: its content, or the first text display
// of a Components V2 message (the quoted question and the answer, or a notice).
func textOf(m map[string]any) string {
	if s, _ := m["content"].(string); s != "" {
		return s
	}
	text := ""
	walkComponents(m["components"], func(c map[string]any) {
		if c["type"] == 10.0 && text == "" {
			text = c["content"].(string)
		}
	})
	return text
}

// walkComponents calls fn on every component of a components list, nested ones included.
func walkComponents(list any, fn func(map[string]any)) {
	items, _ := list.([]any)
	for _, it := range items {
		c, ok := it.(map[string]any)
		if !ok {
			continue
		}
		fn(c)
		walkComponents(c["components"], fn)
		if acc, ok := c["accessory"].(map[string]any); ok {
			fn(acc)
		}
	}
}
