package leakcheck

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// lookup are the Web API methods that say who reads what; they fail now and then.
var lookup = map[string]bool{"users.list": true, "users.info": true, "conversations.info": true,
	"conversations.members": true, "usergroups.list": true}

// lookupFailsOneIn is how often a lookup of who reads what fails (2%), drawn from the run's dice.
const lookupFailsOneIn = 50

// slackBot is the fake workspace's bot user.
const slackBot = "UBOT"

// fakeSlack is a loopback Slack Web API over the organisation: users.list and users.info from
// its people, usergroups.list from their groups (one user group per access group),
// conversations.info and conversations.members from its channels. Every message cita posts,
// edits or shows ephemerally goes to the oracle, checked against who can read it at that moment.
type fakeSlack struct {
	srv    *httptest.Server
	org    *org
	oracle *oracle
	dice   *dice

	mu      sync.Mutex
	ts      int
	finals  map[string]chan slackFinal // conversation -> what waits for its next final reply
	paths   map[string]string          // conversation -> the path asking there now
	answers map[string]int64           // "channel/ts" -> answer id of the message's explain button now (0: none)
	// digestTexts are the gap digests posted, by channel (gaps.go).
	digestTexts map[string][]string
	threads     map[string]string // "channel/ts" of a reply -> its thread
	failing     map[string]int    // channel -> how many more conversations.members calls fail
	// unlisted is, per "channel/user", when conversations.members starts listing a joiner:
	// Slack's list trails member_joined_channel.
	unlisted map[string]time.Time
	// inThread is, per conversation, the thread its question in flight is answered in ("" at
	// top level); replies the messages posted there since: a withdrawal notice written into one
	// of them is the question's reply (cita answered, then withdrew the answer when someone
	// joined while it was written), not silence.
	inThread map[string]string
	replies  map[string]map[string]bool
	// duringWrite, when set, is called before a final reply is written in a channel: what
	// happens to the write while someone may join (see slackSide.duringWrite).
	duringWrite func(channel, ts, text string) writeFault
}

// slackFinal is a final reply: its message ts and its explain button's answer id (0: none).
type slackFinal struct {
	ts       string
	answerID int64
	text     string // the final reply's text and blocks
}

func newFakeSlack(o *org, or *oracle, d *dice) *fakeSlack {
	f := &fakeSlack{org: o, oracle: or, dice: d, finals: map[string]chan slackFinal{}, paths: map[string]string{},
		answers: map[string]int64{}, threads: map[string]string{}, digestTexts: map[string][]string{}, failing: map[string]int{}, unlisted: map[string]time.Time{},
		inThread: map[string]string{}, replies: map[string]map[string]bool{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

func (f *fakeSlack) apiURL() string { return f.srv.URL + "/" }

func (f *fakeSlack) close() { f.srv.Close() }

// expect registers that path asks in conversation now, answered in thread ("" at top level),
// and returns what reports its final reply.
func (f *fakeSlack) expect(conversation, path, thread string) chan slackFinal {
	ch := make(chan slackFinal, 1)
	f.mu.Lock()
	f.finals[conversation] = ch
	f.paths[conversation] = path
	f.inThread[conversation] = thread
	f.replies[conversation] = map[string]bool{}
	f.mu.Unlock()
	return ch
}

// showsButton reports whether message ts of channel shows "How I answered" now: a withdrawn
// answer's notice does not, so nobody can click it there.
func (f *fakeSlack) showsButton(channel, ts string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.answers[channel+"/"+ts] != 0
}

// replyWithdrawn reports whether a notice written to channel's message ts is the withdrawal of
// the reply to the question in flight there: ts was posted in its thread since it was asked.
func (f *fakeSlack) replyWithdrawn(channel, ts, text string) bool {
	if !strings.Contains(text, noticeMark) {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.replies[channel][ts]
}

// retitle renames the path asking in conversation now, when it is path: what the try turned
// into (a join while its answer was prepared), for its messages and its count.
func (f *fakeSlack) retitle(conversation, path, to string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.paths[conversation] == path {
		f.paths[conversation] = to
	}
}

func (f *fakeSlack) pathIn(conversation string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.paths[conversation]; p != "" {
		return p
	}
	return "slack (no question in flight)"
}

func (f *fakeSlack) final(conversation string, fin slackFinal) {
	f.mu.Lock()
	ch := f.finals[conversation]
	delete(f.finals, conversation)
	f.mu.Unlock()
	if ch != nil {
		ch <- fin
	}
}

func (f *fakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	issued := time.Now()
	method := strings.TrimPrefix(r.URL.Path, "/")
	form := func(k string) string { return r.Form.Get(k) }
	var resp map[string]any
	if lookup[method] && f.dice.oneIn("slack lookup/"+method+"/"+form("channel")+form("user"), lookupFailsOneIn) {
		method = "failed" // who reads what cannot be known now: cita must not answer wider
	}
	switch method {
	case "failed":
		resp = map[string]any{"ok": false, "error": "fatal_error"}
	case "auth.test":
		resp = map[string]any{"ok": true, "url": "https://leaks.slack.example/", "team": "Leaks", "user": "cita",
			"team_id": "T1", "user_id": slackBot, "bot_id": "B1"}
	case "chat.postMessage", "chat.update":
		channel := form("channel")
		if f.duringWrite != nil && finalWrite(r) && strings.HasPrefix(channel, "C") &&
			applyWriteFault(w, f.duringWrite(channel, form("ts"), form("text")+"\n"+form("blocks"))) {
			return
		}
		resp = f.message(method, r, issued)
	case "chat.delete":
		f.oracle.gone("slack/" + form("channel") + "/" + form("ts"))
		f.mu.Lock()
		delete(f.answers, form("channel")+"/"+form("ts"))
		f.mu.Unlock()
		resp = map[string]any{"ok": true, "channel": form("channel"), "ts": form("ts")}
	case "chat.postEphemeral":
		resp = f.ephemeral(r)
	case "reactions.add":
		resp = map[string]any{"ok": true}
	case "users.info":
		resp = f.userInfo(form("user"))
	case "users.list":
		resp = f.usersList(form("cursor"))
	case "conversations.info":
		resp = f.conversationInfo(form("channel"))
	case "conversations.members":
		resp = f.conversationMembers(form("channel"))
	case "usergroups.list":
		resp = f.userGroups()
	default:
		resp = map[string]any{"ok": false, "error": "unknown_method"}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func (f *fakeSlack) userJSON(p *person) map[string]any {
	return map[string]any{"id": p.slackID, "team_id": "T1", "name": strings.ToLower(p.slackID), "is_restricted": p.guest,
		"deleted": p.deleted, "profile": map[string]any{"email": p.email}}
}

func (f *fakeSlack) userInfo(id string) map[string]any {
	if id == slackBot {
		return map[string]any{"ok": true, "user": map[string]any{"id": slackBot, "team_id": "T1", "name": "cita", "is_bot": true}}
	}
	f.org.mu.Lock()
	defer f.org.mu.Unlock()
	p := f.org.bySlack[id]
	if p == nil {
		return map[string]any{"ok": false, "error": "user_not_found"}
	}
	return map[string]any{"ok": true, "user": f.userJSON(p)}
}

// usersList pages the workspace 50 people at a time (the cursor is an offset).
func (f *fakeSlack) usersList(cursor string) map[string]any {
	const page = 50
	start, _ := strconv.Atoi(cursor)
	f.org.mu.Lock()
	defer f.org.mu.Unlock()
	members := []any{}
	if start == 0 {
		members = append(members, map[string]any{"id": slackBot, "team_id": "T1", "name": "cita", "is_bot": true})
	}
	everyone := append(slices.Clone(f.org.people), f.org.newcomers...)
	end := min(start+page, len(everyone))
	for _, p := range everyone[min(start, end):end] {
		members = append(members, f.userJSON(p))
	}
	next := ""
	if end < len(everyone) {
		next = strconv.Itoa(end)
	}
	return map[string]any{"ok": true, "members": members, "response_metadata": map[string]any{"next_cursor": next}}
}

func (f *fakeSlack) conversationInfo(id string) map[string]any {
	f.org.mu.Lock()
	defer f.org.mu.Unlock()
	c := f.org.slackBy[id]
	if p := f.dmWithLocked(id); p != nil {
		return map[string]any{"ok": true, "channel": map[string]any{"id": id, "is_im": true, "user": p.slackID}}
	}
	if c == nil {
		return map[string]any{"ok": false, "error": "channel_not_found"}
	}
	return map[string]any{"ok": true, "channel": map[string]any{"id": id, "name": strings.ToLower(id), "is_channel": true,
		"is_private": !c.public}}
}

// dmWithLocked returns the person whose direct message with the bot is channel id ("D" and
// their id's digits), nil if none. Slack lists such a channel with is_im and its two members:
// the sweep checks direct messages too. f.org.mu is held.
func (f *fakeSlack) dmWithLocked(id string) *person {
	if !strings.HasPrefix(id, "D") {
		return nil
	}
	return f.org.bySlack["U"+id[1:]]
}

// trail keeps user out of channel's conversations.members until listedAt.
func (f *fakeSlack) trail(channel, user string, listedAt time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unlisted[channel+"/"+user] = listedAt
}

// listed reports whether conversations.members shows user in channel now.
func (f *fakeSlack) listed(channel, user string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.unlisted[channel+"/"+user]
	return !ok || !time.Now().Before(t)
}

// failMembers makes the next n conversations.members calls for channel fail.
func (f *fakeSlack) failMembers(channel string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing[channel] = n
}

func (f *fakeSlack) conversationMembers(id string) map[string]any {
	f.mu.Lock()
	fail := f.failing[id] > 0
	if fail {
		f.failing[id]--
	}
	f.mu.Unlock()
	if fail {
		return map[string]any{"ok": false, "error": "fatal_error"}
	}
	f.org.mu.Lock()
	defer f.org.mu.Unlock()
	if p := f.dmWithLocked(id); p != nil {
		return map[string]any{"ok": true, "members": []string{slackBot, p.slackID}, "response_metadata": map[string]any{"next_cursor": ""}}
	}
	c := f.org.slackBy[id]
	if c == nil {
		return map[string]any{"ok": false, "error": "channel_not_found"}
	}
	members := []string{slackBot}
	for _, p := range f.org.people {
		if c.members[p.slackID] && f.listed(id, p.slackID) {
			members = append(members, p.slackID)
		}
	}
	return map[string]any{"ok": true, "members": members, "response_metadata": map[string]any{"next_cursor": ""}}
}

// userGroups lists one user group per access group, handle "team-<group>", with its holders.
func (f *fakeSlack) userGroups() map[string]any {
	f.org.mu.Lock()
	defer f.org.mu.Unlock()
	groups := []any{}
	for i, g := range f.org.groups {
		users := []string{}
		for _, p := range append(slices.Clone(f.org.people), f.org.newcomers...) {
			if p.groups[g] {
				users = append(users, p.slackID)
			}
		}
		groups = append(groups, map[string]any{"id": fmt.Sprintf("S%04d", i), "team_id": "T1", "handle": "team-" + g,
			"name": g, "users": users, "user_count": len(users)})
	}
	return map[string]any{"ok": true, "usergroups": groups}
}

// message records chat.postMessage and chat.update: the oracle checks the text and blocks
// against the conversation's readers now and keeps them for later readers. A message with
// blocks that is not a withdrawal notice is a final reply.
func (f *fakeSlack) message(method string, r *http.Request, issued time.Time) map[string]any {
	channel, ts := r.Form.Get("channel"), r.Form.Get("ts")
	if method == "chat.postMessage" {
		f.mu.Lock()
		f.ts++
		ts = fmt.Sprintf("1800000000.%06d", f.ts)
		thread := r.Form.Get("thread_ts")
		if thread != "" {
			f.threads[channel+"/"+ts] = thread
		}
		if f.finals[channel] != nil && thread == f.inThread[channel] {
			f.replies[channel][ts] = true
		}
		f.mu.Unlock()
	}
	text, blocks := r.Form.Get("text"), r.Form.Get("blocks")
	f.mu.Lock()
	f.answers[channel+"/"+ts] = explainAnswerID(blocks) // a notice or a placeholder shows no button
	if strings.HasPrefix(text, "Knowledge gaps since") {
		f.digestTexts[channel] = append(f.digestTexts[channel], text)
	}
	f.mu.Unlock()
	readers := func() []*person { return f.org.slackReadersLocked(channel) }
	if blocks == "" && strings.Contains(text, sourceNoticeMark) {
		f.oracle.postNotice(pathSlackNotice, channel, "slack/"+channel+"/"+ts, text, readers)
		return map[string]any{"ok": true, "channel": channel, "ts": ts, "text": text}
	}
	f.oracle.postIssued(f.pathIn(channel), channel, "slack/"+channel+"/"+ts, text+"\n"+blocks, issued, readers)
	if finalWrite(r) {
		f.final(channel, slackFinal{ts: ts, answerID: explainAnswerID(blocks), text: text + "\n" + blocks})
	} else if f.replyWithdrawn(channel, ts, text) {
		f.final(channel, slackFinal{ts: ts})
	}
	return map[string]any{"ok": true, "channel": channel, "ts": ts, "text": text}
}

// finalWrite reports whether a chat write is a final reply: it has blocks and is not a
// withdrawal notice.
func finalWrite(r *http.Request) bool {
	return r.Form.Get("blocks") != "" && !strings.Contains(r.Form.Get("text"), noticeMark)
}

// ephemeral records chat.postEphemeral: shown to its user alone.
func (f *fakeSlack) ephemeral(r *http.Request) map[string]any {
	channel, user := r.Form.Get("channel"), r.Form.Get("user")
	text := r.Form.Get("text") + "\n" + r.Form.Get("blocks")
	f.org.mu.Lock()
	p := f.org.bySlack[user]
	f.org.mu.Unlock()
	if p == nil {
		f.oracle.stranger(f.pathIn(channel)+" (ephemeral)", channel, text)
	} else {
		f.oracle.private(f.pathIn(channel)+" (ephemeral)", channel, p, text)
	}
	f.final(channel, slackFinal{text: text})
	f.mu.Lock()
	f.ts++
	ts := fmt.Sprintf("1800000000.%06d", f.ts)
	f.mu.Unlock()
	return map[string]any{"ok": true, "message_ts": ts}
}

// explainAnswerID returns the answer id carried by the "how I answered" button of blocks.
func explainAnswerID(blocks string) int64 {
	var bs []struct {
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	if json.Unmarshal([]byte(blocks), &bs) != nil {
		return 0
	}
	for _, b := range bs {
		for _, e := range b.Elements {
			if e.ActionID == "cita_explain" {
				id, _ := strconv.ParseInt(e.Value, 10, 64)
				return id
			}
		}
	}
	return 0
}
