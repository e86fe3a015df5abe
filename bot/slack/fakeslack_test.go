package slack_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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
}

// fakeSlack is a loopback Slack: the Web API methods cita calls, speaking Slack's JSON, and a
// Socket Mode websocket. It records every call.
type fakeSlack struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	calls    []call
	users    map[string]fakeUser
	members  map[string][]string // channel -> members
	groups   []map[string]any    // usergroups.list entries
	ts       int
	throttle map[string]int // method -> how many more calls answer 429
	// socket mode
	sockets chan *websocket.Conn
	acks    chan map[string]any
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{t: t, users: map[string]fakeUser{}, members: map[string][]string{}, throttle: map[string]int{},
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

func (f *fakeSlack) throttleNext(method string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.throttle[method] = n
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
	switch method {
	case "auth.test":
		resp = map[string]any{"ok": true, "url": "https://example.slack.com/", "team": "Example", "user": "cita", "team_id": "T1", "user_id": "UBOT", "bot_id": "B1"}
	case "apps.connections.open":
		resp = map[string]any{"ok": true, "url": "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/ws"}
	case "chat.postMessage":
		f.ts++
		resp = map[string]any{"ok": true, "channel": form["channel"], "ts": fmt.Sprintf("1700000100.%06d", f.ts),
			"message": map[string]any{"text": form["text"]}}
	case "chat.update":
		resp = map[string]any{"ok": true, "channel": form["channel"], "ts": form["ts"], "text": form["text"]}
	case "chat.postEphemeral":
		f.ts++
		resp = map[string]any{"ok": true, "message_ts": fmt.Sprintf("1700000100.%06d", f.ts)}
	case "reactions.add":
		resp = map[string]any{"ok": true}
	case "users.info":
		u, ok := f.users[form["user"]]
		if !ok {
			resp = map[string]any{"ok": false, "error": "user_not_found"}
			break
		}
		resp = map[string]any{"ok": true, "user": map[string]any{"id": u.ID, "team_id": "T1", "name": u.ID, "is_bot": u.Bot,
			"is_restricted": u.Guest, "profile": map[string]any{"email": u.Email}}}
	case "conversations.members":
		resp = map[string]any{"ok": true, "members": f.members[form["channel"]], "response_metadata": map[string]any{"next_cursor": ""}}
	case "usergroups.list":
		resp = map[string]any{"ok": true, "usergroups": f.groups}
	default:
		resp = map[string]any{"ok": false, "error": "unknown_method"}
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
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
