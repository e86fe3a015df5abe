// Package slackload drives many concurrent questions through the real Slack adapter (its
// Events API endpoint, signature checks, access resolution, placeholder, streaming and final
// reply) against a loopback fake of the Slack Web API, and measures what an asker sees: when the
// first visible response (the placeholder) and the final answer arrive. `cita bench --load` and
// the leak test use it.
package slackload

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// botUserID is the fake workspace's bot user.
const botUserID = "UBOT"

// reply is what the fake saw of one question's reply in a channel.
type reply struct {
	placeholder chan time.Time // first chat.postMessage in the channel
	final       chan string    // first message with blocks (the final reply's text)
	status      chan time.Time // first assistant.threads.setStatus
	firstWords  chan words     // first words of the answer: chat.startStream, or a placeholder or update with text
}

// words is text seen on Slack, and when.
type words struct {
	at   time.Time
	text string
}

// FakeSlack is a loopback Slack Web API with the methods the adapter calls. Its workspace has
// one human per channel: private channel C<x> holds user U<x> and the bot; every human is a full
// member with an e-mail at example.com, found with users.info (users.list lists only the bot).
type FakeSlack struct {
	srv *httptest.Server

	mu      sync.Mutex
	replies map[string]*reply // channel -> the reply awaited there
	calls   map[string]int
	finals  map[string]string // channel -> the text of the last message with blocks
	blocks  map[string]string // channel -> the blocks (JSON) of that message
	ts      int
	// public channels (PublicChannel) and their members; every other channel C<x> is private
	// and holds U<x> and the bot.
	public map[string][]string
	// posted are the messages with blocks posted or written, in order (Messages); threads
	// maps every posted message ("channel/ts") to its thread.
	posted  []Message
	threads map[string]string
}

// Message is a message with blocks as the fake last saw it.
type Message struct {
	Channel, TS, ThreadTS, Text string
}

// PublicChannel makes channel a public channel with members (and the bot).
func (f *FakeSlack) PublicChannel(channel string, members ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.public[channel] = append(append([]string{}, members...), botUserID)
}

// Messages returns the messages with blocks written in channel (a final reply, a follow-up), in
// the order they were first posted, each with its latest text.
func (f *FakeSlack) Messages(channel string) []Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Message
	for _, m := range f.posted {
		if m.Channel == channel {
			out = append(out, m)
		}
	}
	return out
}

// NewFakeSlack starts the fake on a loopback port; Close stops it.
func NewFakeSlack() *FakeSlack {
	f := &FakeSlack{replies: map[string]*reply{}, calls: map[string]int{}, finals: map[string]string{}, blocks: map[string]string{},
		public: map[string][]string{}, threads: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// APIURL is the base URL for the adapter's APIURL option (it ends with "/").
func (f *FakeSlack) APIURL() string { return f.srv.URL + "/" }

// Close stops the fake and closes its connections.
func (f *FakeSlack) Close() { f.srv.Close() }

// Calls returns how many times each Web API method was called.
func (f *FakeSlack) Calls() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.calls)
}

// FinalText returns the text of the last message with blocks (a final reply) written in
// channel, "" when none.
func (f *FakeSlack) FinalText(channel string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finals[channel]
}

// FinalBlocks returns the blocks (as JSON) of the last message with blocks written in channel,
// "" when none.
func (f *FakeSlack) FinalBlocks(channel string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.blocks[channel]
}

// logMessage records m, or updates the message of the same channel and ts. f.mu is held.
func (f *FakeSlack) logMessage(m Message) {
	m.ThreadTS = f.threads[m.Channel+"/"+m.TS]
	for i, old := range f.posted {
		if old.Channel == m.Channel && old.TS == m.TS {
			f.posted[i] = m
			return
		}
	}
	f.posted = append(f.posted, m)
}

// expect registers the next reply in channel and returns what will report it.
func (f *FakeSlack) expect(channel string) *reply {
	r := &reply{placeholder: make(chan time.Time, 1), final: make(chan string, 1), status: make(chan time.Time, 1), firstWords: make(chan words, 1)}
	f.mu.Lock()
	f.replies[channel] = r
	f.mu.Unlock()
	return r
}

func (f *FakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	method := strings.TrimPrefix(r.URL.Path, "/")
	channel := r.Form.Get("channel")
	if channel == "" {
		channel = r.Form.Get("channel_id") // assistant.threads.*
	}
	f.mu.Lock()
	f.calls[method]++
	pending := f.replies[channel]
	var resp map[string]any
	switch method {
	case "auth.test":
		resp = map[string]any{"ok": true, "url": "https://load.slack.example/", "team": "Load", "user": "cita", "team_id": "T1", "user_id": botUserID, "bot_id": "B1"}
	case "chat.postMessage":
		f.ts++
		resp = map[string]any{"ok": true, "channel": channel, "ts": fmt.Sprintf("1800000000.%06d", f.ts)}
		f.threads[channel+"/"+resp["ts"].(string)] = r.Form.Get("thread_ts")
		if pending != nil && r.Form.Get("blocks") == "" {
			select {
			case pending.placeholder <- now:
			default:
			}
		}
	case "chat.update":
		resp = map[string]any{"ok": true, "channel": channel, "ts": r.Form.Get("ts"), "text": r.Form.Get("text")}
	case "reactions.add", "assistant.threads.setTitle", "assistant.threads.setSuggestedPrompts":
		resp = map[string]any{"ok": true}
	case "assistant.threads.setStatus":
		resp = map[string]any{"ok": true}
		if pending != nil {
			select {
			case pending.status <- now:
			default:
			}
		}
	case "chat.startStream":
		f.ts++
		resp = map[string]any{"ok": true, "channel": channel, "ts": fmt.Sprintf("1800000000.%06d", f.ts)}
		if pending != nil {
			select {
			case pending.firstWords <- words{at: now, text: r.Form.Get("markdown_text")}:
			default:
			}
		}
	case "chat.appendStream":
		resp = map[string]any{"ok": true, "channel": channel, "ts": r.Form.Get("ts")}
	case "chat.stopStream":
		resp = map[string]any{"ok": true, "channel": channel, "ts": r.Form.Get("ts")}
		if pending != nil {
			select {
			case pending.final <- r.Form.Get("markdown_text"):
			default:
			}
		}
	case "users.info":
		user := r.Form.Get("user")
		resp = map[string]any{"ok": true, "user": map[string]any{"id": user, "team_id": "T1", "name": strings.ToLower(user),
			"is_bot": user == botUserID, "profile": map[string]any{"email": strings.ToLower(user) + "@example.com"}}}
	case "conversations.info":
		_, public := f.public[channel]
		resp = map[string]any{"ok": true, "channel": map[string]any{"id": channel, "name": strings.ToLower(channel), "is_channel": true, "is_private": !public}}
	case "users.list":
		resp = map[string]any{"ok": true, "members": []any{map[string]any{"id": botUserID, "team_id": "T1", "name": "cita", "is_bot": true}},
			"response_metadata": map[string]any{"next_cursor": ""}}
	case "conversations.members":
		members, public := f.public[channel]
		if !public {
			members = []string{"U" + strings.TrimPrefix(channel, "C"), botUserID}
		}
		resp = map[string]any{"ok": true, "members": members, "response_metadata": map[string]any{"next_cursor": ""}}
	case "usergroups.list":
		resp = map[string]any{"ok": true, "usergroups": []any{}}
	default:
		resp = map[string]any{"ok": false, "error": "unknown_method"}
	}
	if r.Form.Get("blocks") != "" && (method == "chat.update" || method == "chat.postMessage") {
		f.finals[channel], f.blocks[channel] = r.Form.Get("text"), r.Form.Get("blocks")
		ts := r.Form.Get("ts")
		if method == "chat.postMessage" {
			ts, _ = resp["ts"].(string)
		}
		f.logMessage(Message{Channel: channel, TS: ts, Text: r.Form.Get("text")})
	}
	if pending != nil && strings.HasPrefix(channel, "D") && (method == "chat.update" || method == "chat.postMessage") {
		select { // an assistant thread without native streaming: the first message shows words
		case pending.firstWords <- words{at: now, text: r.Form.Get("text")}:
		default:
		}
	}
	if pending != nil && r.Form.Get("blocks") != "" && (method == "chat.update" || method == "chat.postMessage") {
		select {
		case pending.final <- r.Form.Get("text"):
		default:
		}
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}
