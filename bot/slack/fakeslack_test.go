package slack_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// call is one Web API request the fake received.
type call struct {
	Method string
	Form   map[string]string
	At     time.Time
}

// fakeUser is a member of the fake workspace.
type fakeUser struct {
	ID, Email string
	Bot       bool
	Guest     bool
	Deleted   bool
	Team      string // "" means the workspace (T1); another team id makes a Slack Connect user
}

// fakeChannel is what conversations.info says of a channel. Channels are private unless marked
// public, so a channel's readers are its members unless a test says otherwise.
type fakeChannel struct {
	Name                 string
	Public, MPIM, Shared bool
	IM                   string // a direct message with the bot: its person
}

// pageSize caps every paginated list, as Slack does (it may return fewer than asked).
const pageSize = 100

// fakeSlack is a loopback Slack: the Web API methods cita calls, speaking Slack's JSON, and a
// Socket Mode websocket. It records every call.
type fakeSlack struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	calls    []call
	users    map[string]fakeUser
	members  map[string][]string // channel -> members
	info     map[string]fakeChannel
	groups   []map[string]any // usergroups.list entries
	ts       int
	throttle map[string]int    // method -> how many more calls answer 429
	fail     map[string]int    // method -> how many more calls answer ok:false
	errCode  map[string]string // method -> the error code ok:false answers carry (default fatal_error)
	// assistant threads ("channel/thread_ts") where assistant.threads.* succeed; noStreaming
	// makes chat.startStream unknown, as on older workspaces and GovSlack
	assistant   map[string]bool
	noStreaming bool
	// hold, when set, is asked of every call before it is served: a delay (the call is applied
	// when it completes), a Retry-After in seconds (the call answers 429), "refuse" (the call
	// answers internal_error and is not applied) or "500" (an HTTP 500, not applied). hold may
	// block: the call waits for it.
	hold func(method string, form map[string]string) (delay time.Duration, retryAfter string)
	// shown is what each message ("channel/ts") shows now: the text and blocks of the post or
	// update applied last.
	shown map[string]string
	// socket mode
	sockets chan *websocket.Conn
	acks    chan map[string]any
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{t: t, users: map[string]fakeUser{}, members: map[string][]string{}, info: map[string]fakeChannel{}, throttle: map[string]int{}, fail: map[string]int{}, errCode: map[string]string{}, assistant: map[string]bool{}, shown: map[string]string{},
		sockets: make(chan *websocket.Conn, 4), acks: make(chan map[string]any, 64)}
	f.user(fakeUser{ID: "UBOT", Bot: true})
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", f.serveSocket)
	mux.HandleFunc("/", f.serveAPI)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// APIURL is the base URL to give slack.OptionAPIURL.
func (f *fakeSlack) APIURL() string { return f.srv.URL + "/" }

func (f *fakeSlack) user(u fakeUser) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.users[u.ID] = u
}

func (f *fakeSlack) channel(id string, members ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.members[id] = members
}

// describe sets what conversations.info and conversations.list say of a channel.
func (f *fakeSlack) describe(id string, c fakeChannel) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.info[id] = c
}

// im makes channel the direct message of user with the bot.
func (f *fakeSlack) im(channel, user string) {
	f.channel(channel, user, "UBOT")
	f.describe(channel, fakeChannel{IM: user})
}

// imOnce makes channel the direct message of user with the bot unless the fake knows it
// already: the first person who writes in a DM is the one it is with.
func (f *fakeSlack) imOnce(channel, user string) {
	f.mu.Lock()
	_, known := f.members[channel]
	f.mu.Unlock()
	if !known {
		f.im(channel, user)
	}
}

// userGroup sets the members of a user group (usergroups.list with include_users).
func (f *fakeSlack) userGroup(id, handle string, users ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	entry := map[string]any{"id": id, "team_id": "T1", "handle": handle, "name": handle, "users": users, "user_count": len(users)}
	for i, g := range f.groups {
		if g["id"] == id {
			f.groups[i] = entry
			return
		}
	}
	f.groups = append(f.groups, entry)
}

// failNext makes the next n calls of method answer {"ok":false,"error":"fatal_error"}.
func (f *fakeSlack) failNext(method string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[method] = n
}

// assistantThread makes channel's thread an assistant thread.
func (f *fakeSlack) assistantThread(channel, thread string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.assistant[channel+"/"+thread] = true
}

// errorNext makes the next n calls of method answer {"ok":false,"error":code}.
func (f *fakeSlack) errorNext(method, code string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[method], f.errCode[method] = n, code
}

func (f *fakeSlack) throttleNext(method string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.throttle[method] = n
}

// shownIn returns what message ts of channel shows now.
func (f *fakeSlack) shownIn(channel, ts string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.shown[channel+"/"+ts]
}

// setHold sets hold (see fakeSlack.hold).
// shownWhere returns the keys ("channel/ts") of the messages of channel whose text and blocks
// now match.
func (f *fakeSlack) shownWhere(channel string, match func(string) bool) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for k, v := range f.shown {
		if strings.HasPrefix(k, channel+"/") && match(v) {
			out = append(out, k)
		}
	}
	return out
}

func (f *fakeSlack) setHold(hold func(method string, form map[string]string) (time.Duration, string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold = hold
}

// callsTo returns the recorded calls of one method.
func (f *fakeSlack) callsTo(method string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// waitFor polls until cond holds or fails the test after timeout.
func (f *fakeSlack) waitFor(what string, timeout time.Duration, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting for %s; calls: %v", what, f.methods())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (f *fakeSlack) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.Method)
	}
	return out
}

func (f *fakeSlack) serveAPI(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	method := strings.TrimPrefix(r.URL.Path, "/")
	form := map[string]string{}
	for k, v := range r.Form {
		form[k] = v[0]
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		// Methods slack-go sends as JSON (views.publish): each top-level field, objects as JSON.
		var body map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&body); err == nil {
			for k, v := range body {
				var s string
				if json.Unmarshal(v, &s) == nil {
					form[k] = s
				} else {
					form[k] = string(v)
				}
			}
		}
	}
	f.mu.Lock()
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		delay, retryAfter := hold(method, form)
		if retryAfter == "500" { // Slack's servers failing: an HTTP 500, nothing applied
			f.mu.Lock()
			f.calls = append(f.calls, call{Method: method, Form: form, At: time.Now()})
			f.mu.Unlock()
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		if retryAfter == "refuse" { // refused outright, as Slack's internal_error
			f.mu.Lock()
			f.calls = append(f.calls, call{Method: method, Form: form, At: time.Now()})
			f.mu.Unlock()
			_, _ = w.Write([]byte(`{"ok":false,"error":"internal_error"}`))
			return
		}
		if retryAfter != "" {
			f.mu.Lock()
			f.calls = append(f.calls, call{Method: method, Form: form, At: time.Now()})
			f.mu.Unlock()
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"ok":false,"error":"ratelimited"}`))
			return
		}
		time.Sleep(delay)
	}
	f.mu.Lock()
	f.calls = append(f.calls, call{Method: method, Form: form, At: time.Now()})
	if f.throttle[method] > 0 {
		f.throttle[method]--
		f.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"ok":false,"error":"ratelimited"}`))
		return
	}
	var resp map[string]any
	code := "fatal_error"
	if f.fail[method] > 0 {
		f.fail[method]--
		if f.errCode[method] != "" {
			code = f.errCode[method]
		}
		method = "failed"
	}
	switch method {
	case "failed":
		resp = map[string]any{"ok": false, "error": code}
	case "auth.test":
		resp = map[string]any{"ok": true, "url": "https://example.slack.com/", "team": "Example", "user": "cita", "team_id": "T1", "user_id": "UBOT", "bot_id": "B1"}
	case "apps.connections.open":
		resp = map[string]any{"ok": true, "url": "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/ws"}
	case "chat.postMessage":
		f.ts++
		resp = map[string]any{"ok": true, "channel": form["channel"], "ts": fmt.Sprintf("1700000100.%06d", f.ts),
			"message": map[string]any{"text": form["text"]}}
		f.shown[form["channel"]+"/"+resp["ts"].(string)] = form["text"] + "\n" + form["blocks"]
	case "chat.update":
		resp = map[string]any{"ok": true, "channel": form["channel"], "ts": form["ts"], "text": form["text"]}
		f.shown[form["channel"]+"/"+form["ts"]] = form["text"] + "\n" + form["blocks"]
	case "conversations.open":
		dm := ""
		for id, c := range f.info {
			if c.IM != "" && c.IM == form["users"] {
				dm = id
			}
		}
		if dm == "" {
			dm = "D" + form["users"]
			f.members[dm] = []string{form["users"], "UBOT"}
			f.info[dm] = fakeChannel{IM: form["users"]}
		}
		resp = map[string]any{"ok": true, "channel": map[string]any{"id": dm, "is_im": true}}
	case "views.publish":
		resp = map[string]any{"ok": true, "view": map[string]any{"id": "V1", "type": "home"}}
	case "chat.delete":
		delete(f.shown, form["channel"]+"/"+form["ts"])
		resp = map[string]any{"ok": true, "channel": form["channel"], "ts": form["ts"]}
	case "chat.postEphemeral":
		f.ts++
		resp = map[string]any{"ok": true, "message_ts": fmt.Sprintf("1700000100.%06d", f.ts)}
	case "reactions.add":
		resp = map[string]any{"ok": true}
	case "assistant.threads.setStatus", "assistant.threads.setTitle", "assistant.threads.setSuggestedPrompts":
		if !f.assistant[form["channel_id"]+"/"+form["thread_ts"]] {
			resp = map[string]any{"ok": false, "error": "invalid_thread_ts"}
			break
		}
		resp = map[string]any{"ok": true}
	case "chat.startStream":
		if f.noStreaming {
			resp = map[string]any{"ok": false, "error": "unknown_method"}
			break
		}
		if form["thread_ts"] == "" || form["recipient_team_id"] == "" || form["recipient_user_id"] == "" {
			resp = map[string]any{"ok": false, "error": "invalid_arguments"}
			break
		}
		f.ts++
		resp = map[string]any{"ok": true, "channel": form["channel"], "ts": fmt.Sprintf("1700000100.%06d", f.ts)}
	case "chat.appendStream", "chat.stopStream":
		if form["ts"] == "" {
			resp = map[string]any{"ok": false, "error": "invalid_arguments"}
			break
		}
		resp = map[string]any{"ok": true, "channel": form["channel"], "ts": form["ts"]}
	case "users.info":
		u, ok := f.users[form["user"]]
		if !ok {
			resp = map[string]any{"ok": false, "error": "user_not_found"}
			break
		}
		resp = map[string]any{"ok": true, "user": u.json()}
	case "users.list":
		var ids []string
		for id, u := range f.users {
			if u.Team == "" { // Slack Connect users are not listed
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		page, next := paginate(ids, form)
		var members []map[string]any
		for _, id := range page {
			members = append(members, f.users[id].json())
		}
		resp = map[string]any{"ok": true, "members": members, "response_metadata": map[string]any{"next_cursor": next}}
	case "conversations.members":
		page, next := paginate(f.members[form["channel"]], form)
		resp = map[string]any{"ok": true, "members": page, "response_metadata": map[string]any{"next_cursor": next}}
	case "conversations.info":
		id := form["channel"]
		if _, ok := f.members[id]; !ok {
			resp = map[string]any{"ok": false, "error": "channel_not_found"}
			break
		}
		resp = map[string]any{"ok": true, "channel": f.info[id].json(id)}
	case "conversations.list":
		var ids []string
		for id := range f.members {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		page, next := paginate(ids, form)
		var channels []map[string]any
		for _, id := range page {
			channels = append(channels, f.info[id].json(id))
		}
		resp = map[string]any{"ok": true, "channels": channels, "response_metadata": map[string]any{"next_cursor": next}}
	case "usergroups.list":
		resp = map[string]any{"ok": true, "usergroups": f.groups}
	default:
		resp = map[string]any{"ok": false, "error": "unknown_method"}
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func (u fakeUser) json() map[string]any {
	team := u.Team
	if team == "" {
		team = "T1"
	}
	return map[string]any{"id": u.ID, "team_id": team, "name": u.ID, "is_bot": u.Bot, "deleted": u.Deleted,
		"is_restricted": u.Guest, "profile": map[string]any{"email": u.Email}}
}

func (c fakeChannel) json(id string) map[string]any {
	name := c.Name
	if name == "" {
		name = strings.ToLower(id)
	}
	if c.IM != "" {
		return map[string]any{"id": id, "is_im": true, "user": c.IM, "is_private": true}
	}
	return map[string]any{"id": id, "name": name, "is_channel": !c.MPIM, "is_mpim": c.MPIM, "is_private": !c.Public,
		"is_ext_shared": c.Shared, "is_shared": c.Shared}
}

// paginate returns the page of items the request's cursor (an offset) and limit ask for, at
// most pageSize, and the next cursor ("" on the last page).
func paginate(items []string, form map[string]string) ([]string, string) {
	start, _ := strconv.Atoi(form["cursor"])
	limit, _ := strconv.Atoi(form["limit"])
	if limit <= 0 || limit > pageSize {
		limit = pageSize
	}
	start = min(start, len(items))
	end := min(start+limit, len(items))
	next := ""
	if end < len(items) {
		next = strconv.Itoa(end)
	}
	return append([]string{}, items[start:end]...), next
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveSocket is the Socket Mode websocket: it says hello, hands the connection to the test for
// sending envelopes, and collects the client's acknowledgements.
func (f *fakeSlack) serveSocket(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		f.t.Errorf("upgrade: %v", err)
		return
	}
	hello := `{"type":"hello","num_connections":1,"debug_info":{"host":"applink-test","build_number":10,"approximate_connection_time":18060},"connection_info":{"app_id":"A01K58AR4RF"}}`
	if err := conn.WriteMessage(websocket.TextMessage, []byte(hello)); err != nil {
		return
	}
	f.sockets <- conn
	for {
		var ack map[string]any
		if err := conn.ReadJSON(&ack); err != nil {
			return
		}
		f.acks <- ack
	}
}
