package discord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// fakeDiscord is a loopback fake of the parts of Discord's REST API (v9) the adapter uses,
// speaking its wire format. It records every request and can answer 429 once per path.
type fakeDiscord struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	calls    []fakeCall
	channels map[string]*discordgo.Channel
	guilds   map[string]*discordgo.Guild
	members  map[string]*discordgo.Member // "guild/user"
	broken   map[string]bool              // guild ids whose member lookups answer 500
	commands map[string][]json.RawMessage // application commands by guild id ("" = global)
	throttle map[string]float64           // "METHOD path" -> retry_after seconds, answered once
	failures map[string]int               // "METHOD path" -> how many requests answer 500
	slow     map[string]time.Duration     // "METHOD path" -> how long the next request takes, once
	slowSeen map[string]chan struct{}     // "METHOD path" -> closed when that slow request arrives
	blocked  map[string][2]chan struct{}  // "METHOD path" -> the next request closes [0] and waits for [1] to close, once
	shown    map[string]json.RawMessage   // message id -> the body of the edit applied last
	sessions []*gatewaySession            // gateway sessions, in the order they connected
	byID     map[string]*gatewaySession   // the live connection of each gateway session id
	missed   map[string][]queuedEvent     // events queued for a session until it resumes
	gateway  gatewayOptions
	posted   []*discordgo.Message // messages created in channels, as answered
	nextID   int64
	botID    string
}

type fakeCall struct {
	Method, Path, Query string
	Body                []byte
	At                  time.Time
	Status              int
}

// JSON decodes the call's body.
func (c fakeCall) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Body, &m); err != nil {
		t.Fatalf("%s %s: body %q: %v", c.Method, c.Path, c.Body, err)
	}
	return m
}

func newFakeDiscord(t *testing.T) *fakeDiscord {
	f := &fakeDiscord{t: t, channels: map[string]*discordgo.Channel{}, guilds: map[string]*discordgo.Guild{},
		members: map[string]*discordgo.Member{}, broken: map[string]bool{}, commands: map[string][]json.RawMessage{}, throttle: map[string]float64{}, failures: map[string]int{}, slow: map[string]time.Duration{}, slowSeen: map[string]chan struct{}{}, blocked: map[string][2]chan struct{}{}, shown: map[string]json.RawMessage{}, nextID: 880000, botID: "1000",
		byID: map[string]*gatewaySession{}, missed: map[string][]queuedEvent{}}
	mux := http.NewServeMux()
	const api = "/api/v9"
	mux.HandleFunc("GET "+api+"/gateway", func(w http.ResponseWriter, r *http.Request) {
		f.writeJSON(w, map[string]string{"url": "ws://" + r.Host + strings.TrimSuffix(gatewayPath, "/")})
	})
	// Editing and deleting a message the bot posted (an interaction response included).
	mux.HandleFunc("PATCH "+api+"/channels/{ch}/messages/{msg}", func(w http.ResponseWriter, r *http.Request) {
		var m discordgo.Message
		_ = json.Unmarshal(readBody(r), &m)
		m.ID, m.ChannelID = r.PathValue("msg"), r.PathValue("ch")
		f.writeJSON(w, m)
	})
	mux.HandleFunc("DELETE "+api+"/channels/{ch}/messages/{msg}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST "+api+"/interactions/{id}/{token}/callback", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET "+api+"/webhooks/{app}/{token}/messages/@original", func(w http.ResponseWriter, r *http.Request) {
		f.writeJSON(w, discordgo.Message{ID: originalID(r.PathValue("token"))})
	})
	mux.HandleFunc("PATCH "+api+"/webhooks/{app}/{token}/messages/@original", func(w http.ResponseWriter, r *http.Request) {
		var m discordgo.Message
		_ = json.Unmarshal(readBody(r), &m)
		m.ID = originalID(r.PathValue("token"))
		f.writeJSON(w, m)
	})
	mux.HandleFunc("POST "+api+"/webhooks/{app}/{token}", func(w http.ResponseWriter, r *http.Request) {
		m := &discordgo.Message{ID: f.newID(), WebhookID: r.PathValue("token")} // an interaction follow-up
		f.mu.Lock()
		f.posted = append(f.posted, m)
		f.mu.Unlock()
		f.writeJSON(w, m)
	})
	mux.HandleFunc("POST "+api+"/channels/{ch}/messages/{msg}/threads", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(readBody(r), &body)
		parent := f.channel(r.PathValue("ch"))
		if parent == nil {
			http.Error(w, `{"message":"Unknown Channel","code":10003}`, http.StatusNotFound)
			return
		}
		th := &discordgo.Channel{ID: r.PathValue("msg"), Type: discordgo.ChannelTypeGuildPublicThread, GuildID: parent.GuildID,
			ParentID: parent.ID, OwnerID: f.botID, Name: body.Name}
		f.mu.Lock()
		if _, dup := f.channels[th.ID]; dup {
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"message":"A thread has already been created for this message","code":160004}`)
			return
		}
		f.channels[th.ID] = th
		f.mu.Unlock()
		f.writeJSON(w, th)
	})
	mux.HandleFunc("POST "+api+"/channels/{ch}/messages", func(w http.ResponseWriter, r *http.Request) {
		var m discordgo.Message
		_ = json.Unmarshal(readBody(r), &m)
		m.ID, m.ChannelID = f.newID(), r.PathValue("ch")
		f.mu.Lock()
		f.posted = append(f.posted, &m)
		f.mu.Unlock()
		f.writeJSON(w, m)
	})
	// Opening (or finding) the DM channel with a user.
	mux.HandleFunc("POST "+api+"/users/@me/channels", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			RecipientID string `json:"recipient_id"`
		}
		_ = json.Unmarshal(readBody(r), &body)
		id := "dm-" + body.RecipientID
		f.mu.Lock()
		if f.channels[id] == nil {
			f.channels[id] = &discordgo.Channel{ID: id, Type: discordgo.ChannelTypeDM, Recipients: []*discordgo.User{{ID: body.RecipientID}}}
		}
		ch := f.channels[id]
		f.mu.Unlock()
		f.writeJSON(w, ch)
	})
	mux.HandleFunc("POST "+api+"/channels/{ch}/typing", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET "+api+"/channels/{ch}", func(w http.ResponseWriter, r *http.Request) {
		if ch := f.channel(r.PathValue("ch")); ch != nil {
			f.writeJSON(w, ch)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Unknown Channel","code":10003}`)
	})
	mux.HandleFunc("GET "+api+"/guilds/{g}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		g := f.guilds[r.PathValue("g")]
		f.mu.Unlock()
		if g == nil {
			http.Error(w, `{"message":"Unknown Guild","code":10004}`, http.StatusNotFound)
			return
		}
		f.writeJSON(w, g)
	})
	mux.HandleFunc("GET "+api+"/guilds/{g}/members/{u}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		m, broken := f.members[r.PathValue("g")+"/"+r.PathValue("u")], f.broken[r.PathValue("g")]
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case broken:
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"message":"Internal Server Error","code":0}`)
		case m == nil:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"message":"Unknown Member","code":10007}`)
		default:
			f.writeJSON(w, m)
		}
	})
	// The bot's guilds, by ascending id from "after", at most "limit" (default 200).
	mux.HandleFunc("GET "+api+"/users/@me/guilds", func(w http.ResponseWriter, r *http.Request) {
		limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
		if err != nil || limit <= 0 {
			limit = 200
		}
		after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
		f.mu.Lock()
		var ids []int64
		for id := range f.guilds {
			if n, _ := strconv.ParseInt(id, 10, 64); n > after {
				ids = append(ids, n)
			}
		}
		slices.Sort(ids)
		out := []*discordgo.UserGuild{}
		for _, n := range ids[:min(limit, len(ids))] {
			g := f.guilds[strconv.FormatInt(n, 10)]
			out = append(out, &discordgo.UserGuild{ID: g.ID, Name: g.Name})
		}
		f.mu.Unlock()
		f.writeJSON(w, out)
	})
	putCommands := func(w http.ResponseWriter, r *http.Request) {
		var cmds []json.RawMessage
		if err := json.Unmarshal(readBody(r), &cmds); err != nil {
			http.Error(w, `{"message":"Invalid Form Body","code":50035}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.commands[r.PathValue("g")] = cmds
		f.mu.Unlock()
		f.writeJSON(w, cmds)
	}
	getCommands := func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		cmds := f.commands[r.PathValue("g")]
		f.mu.Unlock()
		if cmds == nil {
			cmds = []json.RawMessage{}
		}
		f.writeJSON(w, cmds)
	}
	mux.HandleFunc("PUT "+api+"/applications/{app}/commands", putCommands)
	mux.HandleFunc("PUT "+api+"/applications/{app}/guilds/{g}/commands", putCommands)
	mux.HandleFunc("GET "+api+"/applications/{app}/commands", getCommands)
	mux.HandleFunc("GET "+api+"/applications/{app}/guilds/{g}/commands", getCommands)

	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == gatewayPath {
			f.serveGateway(w, r) // the websocket carries the token in IDENTIFY
			return
		}
		body, _ := io.ReadAll(r.Body)
		if got := r.Header.Get("Authorization"); got != "Bot test-token" {
			t.Errorf("%s %s: authorization %q, want the bot token", r.Method, r.URL.Path, got)
		}
		key := r.Method + " " + r.URL.Path
		f.mu.Lock()
		delay := f.slow[key]
		delete(f.slow, key)
		if seen, ok := f.slowSeen[key]; ok && delay > 0 {
			close(seen)
			delete(f.slowSeen, key)
		}
		block, blocked := f.blocked[key]
		delete(f.blocked, key)
		f.mu.Unlock()
		time.Sleep(delay) // the request is applied when it completes, after any quicker one
		if blocked {
			close(block[0])
			<-block[1]
		}
		f.mu.Lock()
		retry, throttled := f.throttle[key]
		delete(f.throttle, key)
		failed := f.failures[key] > 0
		if failed {
			f.failures[key]--
		}
		status := http.StatusOK
		switch {
		case throttled:
			status = http.StatusTooManyRequests
		case failed:
			status = http.StatusInternalServerError
		}
		f.calls = append(f.calls, fakeCall{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body, At: time.Now(), Status: status})
		f.mu.Unlock()
		if throttled {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintf(w, `{"message":"You are being rate limited.","retry_after":%g,"global":false}`, retry)
			return
		}
		if failed {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"message":"Internal Server Error","code":0}`)
			return
		}
		if r.Method == http.MethodPatch {
			f.apply(r.URL.Path, body)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// apply records an edit of a message (an interaction's original response or a channel
// message) as what the message shows now.
func (f *fakeDiscord) apply(path string, body []byte) {
	parts := strings.Split(path, "/")
	n := len(parts)
	var id string
	switch {
	case n >= 2 && parts[n-1] == "@original":
		id = originalID(parts[n-3])
	case n >= 2 && parts[n-2] == "messages":
		id = parts[n-1]
	default:
		return
	}
	f.mu.Lock()
	f.shown[id] = append(json.RawMessage(nil), body...)
	f.mu.Unlock()
}

// slowNext makes the next request of method to path take d before Discord applies it. The
// channel it returns is closed when that request arrives (it is then in flight for d).
func (f *fakeDiscord) slowNext(method, path string, d time.Duration) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slow[method+" "+path] = d
	seen := make(chan struct{})
	f.slowSeen[method+" "+path] = seen
	return seen
}

// blockNext makes the next request of method to path wait until release is closed; reached is
// closed when that request arrives.
func (f *fakeDiscord) blockNext(method, path string) (reached, release chan struct{}) {
	reached, release = make(chan struct{}), make(chan struct{})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.blocked[method+" "+path] = [2]chan struct{}{reached, release}
	return reached, release
}

// shownIn returns the body of the edit message id shows now (nil when never edited).
func (f *fakeDiscord) shownIn(t *testing.T, id string) map[string]any {
	t.Helper()
	f.mu.Lock()
	raw := f.shown[id]
	f.mu.Unlock()
	if raw == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// originalID is the id of an interaction's original response message in the fake: the token's
// digits, so tests can predict it.
func originalID(token string) string { return "77" + strings.TrimPrefix(token, "tok-") }

func (f *fakeDiscord) writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		f.t.Errorf("fake discord: encode: %v", err)
	}
}

func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

func (f *fakeDiscord) newID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	return fmt.Sprint(f.nextID)
}

func (f *fakeDiscord) channel(id string) *discordgo.Channel {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.channels[id]
}

func (f *fakeDiscord) addChannel(ch *discordgo.Channel) {
	f.mu.Lock()
	f.channels[ch.ID] = ch
	f.mu.Unlock()
}

func (f *fakeDiscord) addGuild(g *discordgo.Guild) {
	f.mu.Lock()
	f.guilds[g.ID] = g
	f.mu.Unlock()
}

func (f *fakeDiscord) addMember(guildID string, m *discordgo.Member) {
	f.mu.Lock()
	f.members[guildID+"/"+m.User.ID] = m
	f.mu.Unlock()
}

// throttleOnce makes the next request to method+path answer 429 with retry_after seconds.
func (f *fakeDiscord) throttleOnce(method, path string, retryAfter float64) {
	f.mu.Lock()
	f.throttle[method+" "+path] = retryAfter
	f.mu.Unlock()
}

// callsTo returns the recorded calls with method whose path starts with prefix.
func (f *fakeDiscord) callsTo(method, prefix string) []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeCall
	for _, c := range f.calls {
		if c.Method == method && strings.HasPrefix(c.Path, "/api/v9"+prefix) {
			out = append(out, c)
		}
	}
	return out
}

// breakMembers makes member lookups in guild g answer 500.
func (f *fakeDiscord) breakMembers(g string) {
	f.mu.Lock()
	f.broken[g] = true
	f.mu.Unlock()
}

// setCommands registers application commands (as JSON) in guild g ("" = global).
func (f *fakeDiscord) setCommands(g string, cmds ...string) {
	f.mu.Lock()
	f.commands[g] = nil
	for _, c := range cmds {
		f.commands[g] = append(f.commands[g], json.RawMessage(c))
	}
	f.mu.Unlock()
}

// commandsIn returns the application commands registered in guild g ("" = global).
func (f *fakeDiscord) commandsIn(t *testing.T, g string) []discordgo.ApplicationCommand {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []discordgo.ApplicationCommand
	for _, raw := range f.commands[g] {
		var c discordgo.ApplicationCommand
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("command %s: %v", raw, err)
		}
		out = append(out, c)
	}
	return out
}

// failNext makes the next n requests to method+path answer 500.
func (f *fakeDiscord) failNext(method, path string, n int) {
	f.mu.Lock()
	f.failures[method+" "+path] = n
	f.mu.Unlock()
}

// editChannel changes channel id in place (Discord's side of a CHANNEL_UPDATE) and returns a
// copy of the result, as the event carries it.
func (f *fakeDiscord) editChannel(id string, edit func(ch *discordgo.Channel)) *discordgo.Channel {
	f.mu.Lock()
	defer f.mu.Unlock()
	edit(f.channels[id])
	c := *f.channels[id]
	return &c
}

// editRole changes a role of guild g in place (Discord's side of a GUILD_ROLE_UPDATE) and
// returns the event's payload.
func (f *fakeDiscord) editRole(g, roleID string, edit func(r *discordgo.Role)) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.guilds[g].Roles {
		if r.ID == roleID {
			edit(r)
			c := *r
			return map[string]any{"guild_id": g, "role": &c}
		}
	}
	f.t.Fatalf("fake discord: guild %s has no role %s", g, roleID)
	return nil
}

// editMember changes a member of guild g in place (Discord's side of a GUILD_MEMBER_UPDATE)
// and returns the event's payload.
func (f *fakeDiscord) editMember(g, userID string, edit func(m *discordgo.Member)) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.members[g+"/"+userID]
	edit(m)
	return map[string]any{"guild_id": g, "user": m.User, "roles": m.Roles, "nick": m.Nick}
}

// messageEdits returns the bodies of the edits of message msg in channel ch through the
// channel messages endpoint (not the interaction webhook).
func (f *fakeDiscord) messageEdits(t *testing.T, ch, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, c := range f.callsTo("PATCH", "/channels/"+ch+"/messages/"+msg) {
		if c.Status == http.StatusOK && c.Path == "/api/v9/channels/"+ch+"/messages/"+msg {
			out = append(out, c.JSON(t))
		}
	}
	return out
}

// postedIn returns the messages created in channel ch that reply to another message (answers
// to thread messages), in order.
func (f *fakeDiscord) postedIn(ch string) []*discordgo.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*discordgo.Message
	for _, m := range f.posted {
		if m.ChannelID == ch && m.MessageReference != nil {
			out = append(out, m)
		}
	}
	return out
}

// followUpsOf returns the ids of the follow-up messages sent with interaction token tok.
func (f *fakeDiscord) followUpsOf(tok string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for _, m := range f.posted {
		if m.WebhookID == tok {
			ids = append(ids, m.ID)
		}
	}
	return ids
}
