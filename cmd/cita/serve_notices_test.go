package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/discord"
	"github.com/citahq/cita/bot/pgbot"
	slackbot "github.com/citahq/cita/bot/slack"
	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/testdb"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/syncrun"
)

// postedMessage is one message a chat fake was asked to post.
type postedMessage struct {
	Channel, Thread, Text string
}

// noticeFakes are loopback fakes of the Slack Web API (auth.test, chat.postMessage) and of
// Discord's REST API (channel lookups, message creation), recording what was posted.
type noticeFakes struct {
	slack, discord *httptest.Server

	mu      sync.Mutex
	posted  []postedMessage
	threads map[string]bool // Discord thread channels that exist
}

func newNoticeFakes(t *testing.T) *noticeFakes {
	f := &noticeFakes{threads: map[string]bool{}}
	f.slack = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		switch strings.TrimPrefix(r.URL.Path, "/") {
		case "auth.test":
			io.WriteString(w, `{"ok":true,"user_id":"UBOT","team_id":"T1","user":"cita"}`)
		// C1 is a channel: whoever joins it later reads the notice, so it names no document.
		case "conversations.info":
			io.WriteString(w, `{"ok":true,"channel":{"id":"C1","name":"general","is_channel":true,"is_private":false}}`)
		case "chat.postMessage":
			f.record(postedMessage{Channel: "slack:" + r.Form.Get("channel"), Thread: r.Form.Get("thread_ts"), Text: r.Form.Get("text")})
			io.WriteString(w, `{"ok":true,"channel":"`+r.Form.Get("channel")+`","ts":"1700000999.000100"}`)
		default:
			io.WriteString(w, `{"ok":false,"error":"unknown_method"}`)
		}
	}))
	t.Cleanup(f.slack.Close)
	mux := http.NewServeMux()
	// Guild 111: a member with no role holds @everyone, which maps to the "everyone" group: a
	// notice there names the documents everyone may read.
	mux.HandleFunc("GET /api/v9/guilds/111", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "111", "name": "Acme", "owner_id": "1",
			"roles": []any{map[string]any{"id": "111", "name": "@everyone", "permissions": fmt.Sprint(discordgo.PermissionViewChannel)}}})
	})
	mux.HandleFunc("GET /api/v9/channels/{ch}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		f.mu.Lock()
		exists := f.threads[r.PathValue("ch")]
		f.mu.Unlock()
		if !exists {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"Unknown Channel","code":10003}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": r.PathValue("ch"), "type": 11, "guild_id": "111", "parent_id": "222"})
	})
	mux.HandleFunc("POST /api/v9/channels/{ch}/messages", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Content   string `json:"content"`
			Reference *struct {
				MessageID string `json:"message_id"`
			} `json:"message_reference"`
			AllowedMentions *struct {
				Parse []string `json:"parse"`
			} `json:"allowed_mentions"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		m := postedMessage{Channel: "discord:" + r.PathValue("ch"), Text: body.Content}
		if body.Reference != nil {
			m.Thread = body.Reference.MessageID
		}
		if body.AllowedMentions == nil || len(body.AllowedMentions.Parse) != 0 {
			t.Errorf("a Discord notice may ping someone: allowed_mentions %+v", body.AllowedMentions)
		}
		f.record(m)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "999", "channel_id": r.PathValue("ch"), "content": body.Content})
	})
	f.discord = httptest.NewServer(mux)
	t.Cleanup(f.discord.Close)
	return f
}

func (f *noticeFakes) record(m postedMessage) {
	f.mu.Lock()
	f.posted = append(f.posted, m)
	f.mu.Unlock()
}

// take returns the messages posted since the last call.
func (f *noticeFakes) take() []postedMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.posted
	f.posted = nil
	return out
}

// TestSyncPassPostsSourceNotices answers in a Slack thread, a Discord channel and a Discord
// thread from a folder source, then changes and deletes the cited files: each sync pass posts,
// before it returns, one notice per conversation that names the document and says how it
// changed, and nothing when nothing cited changed.
func TestSyncPassPostsSourceNotices(t *testing.T) {
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	cs, schema := testdb.Schema(t)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	emb := hashembed.New(0)
	index, err := pgstore.New(pool, emb.Info(), logger)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	write := func(name, content string, mtime time.Time) {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	write("travel.md", "# Travel policy\n\nThe per diem in Madrid is 80 euros a day for meals and local transport.\n", t0)
	write("vacation.md", "# Vacation policy\n\nEvery employee gets 22 vacation days per year.\n", t0)
	write("remote.md", "# Remote work policy\n\nEmployees may work remotely up to three days per week.\n", t0)
	src, err := syncrun.OpenSource(ctx, config.SourceConfig{Name: "share", Type: "folder", Folder: config.FolderSource{Path: root},
		Access: config.AccessRules{DefaultGroups: []string{"everyone"}}}, logger)
	if err != nil {
		t.Fatal(err)
	}
	runner := syncrun.New(pool, index, emb, indexer.Options{}, logger)
	if _, err := runner.Run(ctx, src, syncrun.RunOptions{}); err != nil {
		t.Fatal(err)
	}

	store := pgbot.New(pool)
	handler := bot.NewHandler(rag.NewPipeline(rag.NewHybrid(index, emb, rag.DefaultHybridOptions()), rag.Extractive{}, nil, rag.PipelineOptions{}),
		store, bot.HandlerOptions{Logger: logger})
	everyone, _ := rag.NewScope("everyone")
	ask := func(conv bot.ConversationKey, question, wantTitle string) {
		t.Helper()
		out := handler.Handle(ctx, bot.Incoming{Conversation: conv, UserID: "U1", Text: question, Scope: everyone, Audience: bot.AudienceChannel}, nil)
		if out.AnswerID == 0 || len(out.Sources) == 0 || out.Sources[0].Title != wantTitle {
			t.Fatalf("%q: answer %d citing %+v, want %s first", question, out.AnswerID, out.Sources, wantTitle)
		}
	}
	slackThread := bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "C1", Thread: "1700000000.000100"}
	discordChannel := bot.ConversationKey{Platform: "discord", Workspace: "111", Channel: "222", Thread: "333"}
	discordThread := bot.ConversationKey{Platform: "discord", Workspace: "111", Channel: "222", Thread: "444"}
	ask(slackThread, "What is the per diem in Madrid?", "Travel policy")
	ask(discordChannel, "What is the per diem in Madrid?", "Travel policy")
	ask(discordThread, "How many vacation days do I get per year?", "Vacation policy")

	fakes := newNoticeFakes(t)
	fakes.threads["444"] = true // a thread was opened from the second Discord answer
	slack, err := slackbot.New(ctx, slackbot.Options{BotToken: "xoxb-test", APIURL: fakes.slack.URL + "/", Handler: handler, Store: store,
		Access: bot.NewAccessMap(nil, nil, nil, nil, []string{"everyone"}), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	dsc, err := discord.New(discord.Options{Token: "test-token", ApplicationID: "1", GuildIDs: []string{"111"}, Handler: handler,
		Access: bot.NewAccessMap(nil, nil, nil, nil, []string{"everyone"}), APIBaseURL: fakes.discord.URL, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	notifier := sourceNotifier(store, config.SlackConfig{}, slack, config.DiscordConfig{}, dsc, logger)
	passes := &noticeRunner{next: runner, notifier: notifier, logger: logger}
	pass := func() []postedMessage {
		t.Helper()
		if _, err := passes.Run(ctx, src, syncrun.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		return fakes.take()
	}

	if got := pass(); len(got) != 0 {
		t.Fatalf("a pass that changed nothing posted %+v", got)
	}

	t1 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	write("travel.md", "# Travel policy\n\nThe per diem in Madrid is 95 euros a day for meals and local transport.\n", t1)
	write("remote.md", "# Remote work policy\n\nEmployees may work remotely up to two days per week.\n", t1) // cited by no answer
	got := pass()
	want := map[string]postedMessage{
		"slack:C1":    {Channel: "slack:C1", Thread: "1700000000.000100"},
		"discord:222": {Channel: "discord:222", Thread: "333"},
	}
	if len(got) != len(want) {
		t.Fatalf("posted %+v, want one notice in the Slack thread and one under the Discord answer", got)
	}
	for _, m := range got {
		w, ok := want[m.Channel]
		if !ok || m.Thread != w.Thread {
			t.Errorf("notice posted in %s (thread %q), want %+v", m.Channel, m.Thread, want)
		}
		// A Slack channel may let in a guest later, who would read the title: it is not named
		// there. In the Discord guild every member may read the travel policy.
		parts := []string{"Travel policy", "updated on 1 December 2026", "ask again"}
		if m.Channel == "slack:C1" {
			parts = []string{"A document I cited in this thread was updated on 1 December 2026", "ask again"}
		}
		for _, part := range parts {
			if !strings.Contains(m.Text, part) {
				t.Errorf("notice %q lacks %q", m.Text, part)
			}
		}
	}

	if got := pass(); len(got) != 0 {
		t.Fatalf("a second pass over the same files posted %+v", got)
	}

	if err := os.Remove(filepath.Join(root, "vacation.md")); err != nil {
		t.Fatal(err)
	}
	got = pass()
	if len(got) != 1 || got[0].Channel != "discord:444" || got[0].Thread != "" || !strings.Contains(got[0].Text, "Vacation policy") ||
		!strings.Contains(got[0].Text, "deleted on") {
		t.Fatalf("after deleting the cited file, posted %+v; want one notice in Discord thread 444", got)
	}
}

// TestSourceNotifierFollowsConfiguration: notices are on by default and off per platform.
func TestSourceNotifierFollowsConfiguration(t *testing.T) {
	off := false
	if n := sourceNotifier(nil, config.SlackConfig{SourceNotices: &off}, &slackbot.Adapter{}, config.DiscordConfig{}, nil, nil); n != nil {
		t.Error("slack.source_notices: false still built a notifier")
	}
	if n := sourceNotifier(nil, config.SlackConfig{}, &slackbot.Adapter{}, config.DiscordConfig{}, nil, nil); n == nil {
		t.Error("notices are not on by default")
	}
}
