package discord

import (
	"cmp"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// gatewayPath is where the fake serves its gateway websocket; GET /gateway points there.
const gatewayPath = "/gateway-ws/"

// gatewaySession is one bot session connected to the fake gateway (one replica). The fake
// speaks the gateway's JSON protocol (v9, uncompressed): HELLO, then READY and a GUILD_CREATE
// per guild after IDENTIFY, heartbeat ACKs, and whatever dispatches a test sends.
type gatewaySession struct {
	t    *testing.T
	conn *websocket.Conn

	mu         sync.Mutex
	id         string // the session id READY gave, kept by a resume
	seq        int64
	identify   map[string]any
	resume     map[string]any // the RESUME payload, when the client resumed
	heartbeats []any          // the sequence number each heartbeat carried
	ready      chan struct{}
}

// gatewayOptions adjusts the fake gateway: the heartbeat interval HELLO gives (default 45 s),
// and whether a RESUME of a known session is accepted (default: refused with INVALID_SESSION,
// as after Discord lost the session).
type gatewayOptions struct {
	heartbeatMS int
	resumable   bool
}

// serveGateway upgrades a connection and runs the session until the client goes away.
func (f *fakeDiscord) serveGateway(w http.ResponseWriter, r *http.Request) {
	conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		f.t.Errorf("fake gateway: upgrade: %v", err)
		return
	}
	s := &gatewaySession{t: f.t, conn: conn, ready: make(chan struct{})}
	f.mu.Lock()
	f.sessions = append(f.sessions, s)
	f.mu.Unlock()
	defer conn.Close()
	f.mu.Lock()
	interval := cmp.Or(f.gateway.heartbeatMS, 45000)
	f.mu.Unlock()
	s.send(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": interval}})
	for {
		_, raw, err := conn.ReadMessage()
		if err != nil {
			return // the client closed the session
		}
		var msg struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if json.Unmarshal(raw, &msg) != nil {
			f.t.Errorf("fake gateway: unreadable frame %s", raw)
			return
		}
		switch msg.Op {
		case 1: // heartbeat
			var seq any
			_ = json.Unmarshal(msg.D, &seq)
			s.mu.Lock()
			s.heartbeats = append(s.heartbeats, seq)
			s.mu.Unlock()
			s.send(map[string]any{"op": 11})
		case 6: // resume
			var r map[string]any
			_ = json.Unmarshal(msg.D, &r)
			s.mu.Lock()
			s.resume = r
			s.mu.Unlock()
			f.resumeSession(s, r)
		case 2: // identify
			var id map[string]any
			_ = json.Unmarshal(msg.D, &id)
			s.mu.Lock()
			s.identify = id
			s.mu.Unlock()
			f.mu.Lock()
			var guilds []*discordgo.Guild
			for _, g := range f.guilds {
				guilds = append(guilds, f.guildCreate(g))
			}
			f.mu.Unlock()
			stubs := []map[string]any{}
			for _, g := range guilds {
				stubs = append(stubs, map[string]any{"id": g.ID, "unavailable": true})
			}
			s.mu.Lock()
			s.id = "session-" + f.newID()
			s.mu.Unlock()
			f.mu.Lock()
			f.byID[s.id] = s
			f.mu.Unlock()
			s.dispatch("READY", map[string]any{"v": 9, "session_id": s.id,
				"user": map[string]any{"id": f.botID, "username": "cita", "bot": true}, "guilds": stubs})
			for _, g := range guilds {
				s.dispatch("GUILD_CREATE", g)
			}
			close(s.ready)
		}
	}
}

// resumeSession answers a RESUME: when resuming is on and the session is known, the new
// connection takes over its id and sequence, gets the events queued while it was away, then
// RESUMED; otherwise INVALID_SESSION (not resumable), and the client identifies anew.
func (f *fakeDiscord) resumeSession(s *gatewaySession, r map[string]any) {
	id, _ := r["session_id"].(string)
	f.mu.Lock()
	old, known := f.byID[id]
	ok := f.gateway.resumable && known
	var missed []queuedEvent
	if ok {
		missed = f.missed[id]
		delete(f.missed, id)
		f.byID[id] = s
	}
	f.mu.Unlock()
	if !ok {
		s.send(map[string]any{"op": 9, "d": false})
		return
	}
	old.mu.Lock()
	seq := old.seq
	old.mu.Unlock()
	s.mu.Lock()
	s.id, s.seq = id, seq
	s.mu.Unlock()
	for _, e := range missed {
		s.dispatch(e.t, e.d)
	}
	s.dispatch("RESUMED", map[string]any{})
	close(s.ready)
}

// queuedEvent is an event sent while its session was away, replayed on resume.
type queuedEvent struct {
	t string
	d any
}

// queueForResume keeps event t for session id until it resumes.
func (f *fakeDiscord) queueForResume(id, t string, d any) {
	f.mu.Lock()
	f.missed[id] = append(f.missed[id], queuedEvent{t, d})
	f.mu.Unlock()
}

// requestReconnect sends op 7 (RECONNECT): Discord asks the client to reconnect and resume.
func (s *gatewaySession) requestReconnect() { s.send(map[string]any{"op": 7, "d": nil}) }

// state returns the session's id, last sequence number, heartbeats and RESUME payload.
func (s *gatewaySession) state() (id string, seq int64, heartbeats []any, resume map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id, s.seq, append([]any(nil), s.heartbeats...), s.resume
}

// guildCreate is g as GUILD_CREATE carries it: with its channels and threads. f.mu is held.
func (f *fakeDiscord) guildCreate(g *discordgo.Guild) *discordgo.Guild {
	out := *g
	out.Channels, out.Threads = nil, nil
	for _, ch := range f.channels {
		if ch.GuildID != g.ID {
			continue
		}
		c := *ch
		if c.IsThread() {
			out.Threads = append(out.Threads, &c)
		} else {
			out.Channels = append(out.Channels, &c)
		}
	}
	return &out
}

func (s *gatewaySession) send(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.conn.WriteJSON(v); err != nil {
		s.t.Logf("fake gateway: write: %v", err)
	}
}

// dispatch sends event t with data d to this session only, as Discord does to one replica.
func (s *gatewaySession) dispatch(t string, d any) {
	s.mu.Lock()
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	s.send(map[string]any{"op": 0, "t": t, "s": seq, "d": d})
}

// drop cuts the connection without a close frame, as a network failure does; the client
// reconnects with a new session.
func (s *gatewaySession) drop() { _ = s.conn.Close() }

// intents returns the intents the session identified with.
func (s *gatewaySession) intents() discordgo.Intent {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, _ := s.identify["intents"].(float64)
	return discordgo.Intent(n)
}

// openGateway connects a (gateway mode) to the fake's gateway and returns its session once the
// guilds were delivered.
func (f *fakeDiscord) openGateway(t *testing.T, a *Adapter) *gatewaySession {
	t.Helper()
	f.mu.Lock()
	before := len(f.sessions)
	f.mu.Unlock()
	if err := a.Open(t.Context()); err != nil {
		t.Fatalf("open gateway: %v", err)
	}
	f.mu.Lock()
	if len(f.sessions) != before+1 {
		f.mu.Unlock()
		t.Fatalf("%d gateway sessions, want %d", len(f.sessions), before+1)
	}
	s := f.sessions[before]
	f.mu.Unlock()
	select {
	case <-s.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway session never became ready")
	}
	return s
}

// sessionCount returns how many gateway sessions connected so far.
func (f *fakeDiscord) sessionCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sessions)
}

// reconnected waits for a session beyond the first n to connect and be ready, and returns it.
func (f *fakeDiscord) reconnected(t *testing.T, n int) *gatewaySession {
	t.Helper()
	var s *gatewaySession
	waitFor(t, "a new gateway session", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.sessions) > n {
			s = f.sessions[len(f.sessions)-1]
			return true
		}
		return false
	})
	select {
	case <-s.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the new gateway session never became ready")
	}
	return s
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
