package leakcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Leak is a code that reached someone who may not read its document.
type Leak struct {
	Path    string // how it got there: "slack mention", "mcp search", "withdrawal after join", …
	Where   string // the conversation or tool
	Reader  string // who saw it
	Code    string
	Kind    string // "canary", "title" or "path"
	Doc     string // the document's path
	Groups  []string
	Excerpt string

	reader *person // for a withdrawal that never came: who read it, and where (the message key)
	key    string
	// owed is when the event that made reader a reader reached cita (zero: no event, or lost):
	// the withdrawal is owed within eventWithdrawWithin of it, sweep or not.
	owed time.Time
}

// Try returns the path of the try the leak belongs to: "slack mention" for "withdrawal after a
// join (slack mention)" and "slack /cita (ephemeral)".
func (l Leak) Try() string {
	p := strings.TrimSuffix(l.Path, " (after its withdrawal)")
	for _, kind := range []string{arrivalJoin, arrivalTrailing, arrivalLost, arrivalTeam} {
		if inner, ok := strings.CutPrefix(p, kind); ok {
			p = strings.TrimSuffix(inner, ")")
		}
	}
	p, _, _ = strings.Cut(p, " (")
	return p
}

func (l Leak) String() string {
	return fmt.Sprintf("%s: %s code %s of %s (groups %s) reached %s in %s: %q", l.Path, l.Kind, l.Code, l.Doc,
		strings.Join(l.Groups, ","), l.Reader, l.Where, l.Excerpt)
}

// shown is a message that stays in a conversation (not ephemeral) in its current version: who
// has been able to read this version so far, and the codes it holds.
type shown struct {
	path    string
	where   string
	readers func() []*person // who can read the conversation now (o.org.mu held)
	codes   []string
	seen    map[*person]bool
	excerpt string
	// askedAt is when the question it answers was asked: who reads the conversation because of
	// a change made later is owed a withdrawal in time (pending), not a leak at once.
	askedAt time.Time
	// withdrawn: an earlier version was the withdrawal notice, shown since noticeAt. cita knew:
	// a later version asked for after noticeAt that shows a reader what they may not read is a
	// leak at once, newcomer or not.
	withdrawn bool
	noticeAt  time.Time
	// overwritten: an earlier version was the notice and this one is not (a write that was
	// issued before the notice and landed after it). Left so at settle time, it is the write
	// check's failure: the leak's path says "(after its withdrawal)".
	overwritten bool
}

// noticeMark is in every withdrawal notice (bot.RedactedNotice in English).
const noticeMark = "withdrew this answer"

// oracle knows who may read every code and checks everything anyone is shown. A message shown
// in a conversation is checked against its readers when it is posted or edited and, while it
// stays, against everyone who can read the conversation later (a join): those must not see it,
// so it must be withdrawn in time (settled).
type oracle struct {
	org    *org
	corpus *corpus

	mu       sync.Mutex
	leaks    []Leak
	messages map[string]*shown          // "platform/channel/ref" -> current version
	arrivals map[string]*arrival        // "channel/slack id" -> what cita was told of it (arrivals.go)
	asked    map[string]map[string]bool // conversation -> codes its question in flight named
	// allowedNow: conversations whose try in flight showed a code every reader may read.
	allowedNow map[string]bool
	askedAt    map[string]time.Time // conversation -> when its question in flight was asked
	// lost: joins whose event was lost, "channel/slack id": only a sweep or a later question
	// there can catch them.
	lost    map[string]bool
	checked int
	shown   int // codes shown to someone who may read them: proof that answers carry codes
	byPath  map[string]int
}

func newOracle(o *org, c *corpus) *oracle {
	return &oracle{org: o, corpus: c, messages: map[string]*shown{}, arrivals: map[string]*arrival{}, asked: map[string]map[string]bool{},
		allowedNow: map[string]bool{}, askedAt: map[string]time.Time{}, lost: map[string]bool{}, byPath: map[string]int{}}
}

// ask records that a question naming codes is asked in conversation now, in view of whoever
// reads it there: those codes came from the asker, not from cita, in the replies to this
// question (texts are the question and, for a follow-up, the thread's earlier questions its
// memory draws on). The exemption lasts until the conversation's next question: a code named
// once is not exempt in the rest of the run, so a later leak of it there is still seen. It also
// starts the conversation's try: took reports whether the try showed an allowed code.
func (or *oracle) ask(conversation string, texts ...string) {
	m := map[string]bool{}
	for _, t := range texts {
		for _, c := range codePattern.FindAllString(t, -1) {
			m[strings.ToUpper(c)] = true
		}
	}
	or.mu.Lock()
	defer or.mu.Unlock()
	or.asked[conversation] = m
	or.askedAt[conversation] = time.Now()
	delete(or.allowedNow, conversation)
}

// took reports whether the try now in conversation (since its ask) showed a code that every
// reader it reached may read: proof that answers there reach people and carry content.
func (or *oracle) took(conversation string) bool {
	or.mu.Lock()
	defer or.mu.Unlock()
	ok := or.allowedNow[conversation]
	delete(or.allowedNow, conversation)
	return ok
}

// codesIn returns the known codes in text that conversation's question in flight did not name.
// or.mu is held.
func (or *oracle) codesIn(conversation, text string) []string {
	var out []string
	for _, c := range codePattern.FindAllString(text, -1) {
		c = strings.ToUpper(c)
		if _, known := or.corpus.codes[c]; known && !or.asked[conversation][c] && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// see checks text shown to readers now and records the leaks. or.mu and or.org.mu are held.
func (or *oracle) see(path, where, text string, codes []string, readers []*person) {
	or.checked++
	allowed := map[string]bool{}
	for _, c := range codes {
		allowed[c] = len(readers) > 0
	}
	for _, p := range readers {
		groups := or.org.groupsOfLocked(p, identityPath(path))
		leakPath := path
		if or.trailingLocked(where, p) {
			leakPath += whileTrailing
		}
		for _, c := range codes {
			info := or.corpus.codes[c]
			if !info.doc.mayRead(groups) {
				allowed[c] = false
				or.leaks = append(or.leaks, Leak{Path: leakPath, Where: where, Reader: p.describe(), Code: c, Kind: info.kind,
					Doc: info.doc.path, Groups: info.doc.groups, Excerpt: excerpt(text, c)})
				continue
			}
			or.shown++
			or.byPath[path]++
		}
	}
	for _, ok := range allowed {
		if ok {
			or.allowedNow[where] = true
		}
	}
}

// private checks text shown to one person only (an ephemeral message, a DM reply, a tool result).
func (or *oracle) private(path, conversation string, p *person, text string) {
	or.mu.Lock()
	defer or.mu.Unlock()
	or.org.mu.Lock()
	defer or.org.mu.Unlock()
	or.see(path, conversation, text, or.codesIn(conversation, text), []*person{p})
}

// stranger checks text shown to someone the organisation does not know: they may read no code.
func (or *oracle) stranger(path, where, text string) {
	or.mu.Lock()
	defer or.mu.Unlock()
	or.checked++
	for _, c := range or.codesIn(where, text) {
		info := or.corpus.codes[c]
		or.leaks = append(or.leaks, Leak{Path: path, Where: where, Reader: "a stranger", Code: c, Kind: info.kind,
			Doc: info.doc.path, Groups: info.doc.groups, Excerpt: excerpt(text, c)})
	}
}

// post checks a message posted or edited in a conversation (key names the message) against
// everyone who can read the conversation now, and remembers it for later readers. A reader who
// came after its question was asked (a join while the answer was in flight) and may not read it
// is owed a withdrawal, checked when the run settles; unless the message was withdrawn before,
// then the version is a leak at once ("after its withdrawal").
func (or *oracle) post(path, conversation, key, text string, readers func() []*person) {
	or.postIssued(path, conversation, key, text, time.Now(), readers)
}

// postIssued is post for a write asked for at issued, applied now. A write asked for before the
// notice was shown and applied after it (a slow write: another replica withdrew the answer while
// it was in flight) could not know: it is not a leak at once, but the newcomers it reaches are
// owed the withdrawal again by settle time (bot.AnswerWrites re-shows the notice after the write).
func (or *oracle) postIssued(path, conversation, key, text string, issued time.Time, readers func() []*person) {
	or.postAsked(path, conversation, key, text, issued, time.Time{}, readers)
}

// postAsked is postIssued for a message whose readers since asked count as its first readers
// (zero: since the conversation's question in flight, or the message's first version).
func (or *oracle) postAsked(path, conversation, key, text string, issued, asked time.Time, readers func() []*person) {
	or.mu.Lock()
	defer or.mu.Unlock()
	or.org.mu.Lock()
	defer or.org.mu.Unlock()
	codes := or.codesIn(conversation, text)
	s := &shown{path: path, where: conversation, readers: readers, codes: codes, seen: map[*person]bool{},
		askedAt: or.askedAt[conversation]}
	if prev := or.messages[key]; prev != nil {
		s.askedAt = prev.askedAt
		s.withdrawn = prev.withdrawn && !issued.Before(prev.noticeAt)
		s.overwritten = (prev.withdrawn || prev.overwritten) && !strings.Contains(text, noticeMark)
	}
	if !asked.IsZero() {
		s.askedAt = asked
	}
	if s.withdrawn {
		path += " (after its withdrawal)"
	}
	var strict, recorded []*person
	for _, p := range readers() {
		switch {
		case s.withdrawn || !or.org.newcomerLocked(p, conversation, s.askedAt) || or.mayReadAllLocked(p, path, codes):
			strict = append(strict, p)
			s.seen[p] = true
		case or.recordedBeforeLocked(conversation, p, issued):
			// cita had recorded this newcomer before the write was asked for: every write
			// checked after that must have spared them, not only a withdrawal later.
			recorded = append(recorded, p)
			s.seen[p] = true
		}
	}
	or.see(path, conversation, text, codes, strict)
	if len(recorded) > 0 {
		or.see(path+afterRecorded, conversation, text, codes, recorded)
	}
	if len(codes) > 0 {
		s.excerpt = excerpt(text, codes[0])
	}
	if strings.Contains(text, noticeMark) {
		s.withdrawn, s.noticeAt = true, time.Now()
	}
	or.messages[key] = s
}

// mayReadAllLocked reports whether p may read every code. or.org.mu is held.
func (or *oracle) mayReadAllLocked(p *person, path string, codes []string) bool {
	groups := or.org.groupsOfLocked(p, identityPath(path))
	for _, c := range codes {
		if !or.corpus.codes[c].doc.mayRead(groups) {
			return false
		}
	}
	return true
}

// gone forgets a deleted message.
func (or *oracle) gone(key string) {
	or.mu.Lock()
	defer or.mu.Unlock()
	delete(or.messages, key)
}

// pending returns, for the messages still shown, the readers who can read them now but were not
// readers of their current version and may not read it: they must be withdrawn. Readers who may
// read them are remembered as having seen them.
func (or *oracle) pending() []Leak {
	or.mu.Lock()
	defer or.mu.Unlock()
	or.org.mu.Lock()
	defer or.org.mu.Unlock()
	var out []Leak
	for key, s := range or.messages {
		if len(s.codes) == 0 {
			continue
		}
		for _, p := range s.readers() {
			if s.seen[p] {
				continue
			}
			groups := or.org.groupsOfLocked(p, identityPath(s.path))
			ok := true
			for _, c := range s.codes {
				info := or.corpus.codes[c]
				if !info.doc.mayRead(groups) {
					ok = false
					kind, owed := arrivalJoin, time.Time{}
					switch a := or.arrivalLocked(s.where, p); {
					case or.lost[s.where+"/"+p.slackID]:
						kind = arrivalLost
					case a != nil && a.workspace:
						kind, owed = arrivalTeam, a.delivered
					case a != nil && a.listedAt.After(a.delivered):
						kind, owed = arrivalTrailing, a.delivered
					case a != nil:
						owed = a.delivered
					}
					suffix := ")"
					if s.overwritten {
						suffix = ") (after its withdrawal)"
					}
					out = append(out, Leak{Path: kind + s.path + suffix, Where: s.where, Reader: p.describe(), reader: p, key: key,
						Code: c, Kind: info.kind, Doc: info.doc.path, Groups: info.doc.groups, Excerpt: s.excerpt, owed: owed})
				}
			}
			if ok {
				s.seen[p] = true
			}
		}
	}
	return out
}

// fail records leaks found outside a message check (a withdrawal that never came). A reader
// who was owed a withdrawal has now read the message: they are not reported again.
func (or *oracle) fail(leaks []Leak) {
	or.mu.Lock()
	defer or.mu.Unlock()
	or.leaks = append(or.leaks, leaks...)
	for _, l := range leaks {
		if s := or.messages[l.key]; s != nil && l.reader != nil {
			s.seen[l.reader] = true
		}
	}
}

// lostJoin records that the event of p's join to channel was lost.
func (or *oracle) lostJoin(channel string, p *person) {
	or.mu.Lock()
	defer or.mu.Unlock()
	or.lost[channel+"/"+p.slackID] = true
	delete(or.arrivals, channel+"/"+p.slackID)
}

func (or *oracle) result() (leaks []Leak, checked, shown int, byPath map[string]int) {
	or.mu.Lock()
	defer or.mu.Unlock()
	return slices.Clone(or.leaks), or.checked, or.shown, maps.Clone(or.byPath)
}

func (p *person) describe() string {
	kind := "member"
	if p.guest {
		kind = "guest"
	}
	return fmt.Sprintf("person %d (%s, slack %s, %s)", p.n, kind, p.slackID, p.email)
}

// excerpt returns up to 80 characters of text around code.
func excerpt(text, code string) string {
	i := strings.Index(strings.ToUpper(text), code)
	if i < 0 {
		return ""
	}
	start, end := max(0, i-40), min(len(text), i+len(code)+40)
	return text[start:end]
}
