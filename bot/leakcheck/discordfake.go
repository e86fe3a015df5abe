package leakcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/bwmarrin/discordgo"
)

// discordApp is the fake application's id.
const discordApp = "950000000000000001"

// interactionInfo is what the harness knows of an interaction it sent: who asked, where, and
// who will see its response.
type interactionInfo struct {
	path    string
	asker   *person // nil: a stranger
	channel string  // the channel, or "dm:<user id>"
	private bool    // ephemeral, or a DM
	// done is told of the first edit, then set to nil (under fakeDiscord.mu).
	done chan discordFinal
}

// discordFinal is an interaction's first edited response: its message and answer id.
type discordFinal struct {
	messageID string
	answerID  int64
	question  string // the question it answers, which its "How I answered" view shows
}

// fakeDiscord is a loopback Discord REST API (v9) over the organisation's guild: its roles (one
// per group, and @everyone), its channels (public, or visible to the roles of their groups), and
// its members (everyone but guests) with the roles of the groups they hold now. Interaction
// responses, follow-ups and message edits go to the oracle, checked against who sees them.
type fakeDiscord struct {
	srv    *httptest.Server
	org    *org
	oracle *oracle
	dice   *dice

	mu           sync.Mutex
	interactions map[string]*interactionInfo // by token
	messages     map[string]string           // message id -> channel, for edits
	nextID       int
}

func newFakeDiscord(o *org, or *oracle, d *dice) *fakeDiscord {
	f := &fakeDiscord{org: o, oracle: or, dice: d, interactions: map[string]*interactionInfo{}, messages: map[string]string{}, nextID: 960000}
	const api = "/api/v9"
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+api+"/guilds/{g}", f.failing(f.guild))
	mux.HandleFunc("GET "+api+"/channels/{ch}", f.failing(f.channel))
	mux.HandleFunc("GET "+api+"/guilds/{g}/members/{u}", f.failing(f.member))
	mux.HandleFunc("GET "+api+"/webhooks/{app}/{token}/messages/@original", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, discordgo.Message{ID: originalID(r.PathValue("token"))})
	})
	mux.HandleFunc("PATCH "+api+"/webhooks/{app}/{token}/messages/@original", f.editOriginal)
	mux.HandleFunc("POST "+api+"/webhooks/{app}/{token}", f.followUp)
	mux.HandleFunc("PATCH "+api+"/channels/{ch}/messages/{msg}", f.editMessage)
	mux.HandleFunc("POST "+api+"/channels/{ch}/messages", f.postMessage)
	mux.HandleFunc("DELETE "+api+"/channels/{ch}/messages/{msg}", func(w http.ResponseWriter, r *http.Request) {
		f.oracle.gone("discord/" + r.PathValue("ch") + "/" + r.PathValue("msg"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"404: Not Found","code":0}`)
	})
	f.srv = httptest.NewServer(mux)
	return f
}

func (f *fakeDiscord) close() { f.srv.Close() }

// failing makes a lookup of who sees what answer 500 now and then: cita must not answer wider.
func (f *fakeDiscord) failing(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if f.dice.oneIn("discord lookup/"+r.URL.Path, lookupFailsOneIn) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"message":"Internal Server Error","code":0}`)
			return
		}
		h(w, r)
	}
}

// originalID is the id of an interaction's original response: the token's digits after "tok-".
func originalID(token string) string { return "77" + strings.TrimPrefix(token, "tok-") }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter, code int, what string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"message":"Unknown %s","code":%d}`, what, code)
}

// roleID is the id of the role of group i.
func roleID(i int) string { return fmt.Sprintf("%d", 940000000000000000+i) }

// rolesOfLocked returns the role ids p holds now. o.mu is held.
func (o *org) rolesOfLocked(p *person) []string {
	var out []string
	for i, g := range o.groups {
		if p.groups[g] {
			out = append(out, roleID(i))
		}
	}
	return out
}

func (f *fakeDiscord) guild(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("g") != f.org.guildID {
		notFound(w, discordgo.ErrCodeUnknownGuild, "Guild")
		return
	}
	g := &discordgo.Guild{ID: f.org.guildID, Name: "Leaks", OwnerID: f.org.ownerID,
		Roles: []*discordgo.Role{{ID: f.org.guildID, Name: "@everyone", Permissions: discordgo.PermissionViewChannel | discordgo.PermissionSendMessages}}}
	for i, grp := range f.org.groups {
		g.Roles = append(g.Roles, &discordgo.Role{ID: roleID(i), Name: "role-" + grp, Position: i + 1})
	}
	writeJSON(w, g)
}

func (f *fakeDiscord) channel(w http.ResponseWriter, r *http.Request) {
	f.org.mu.Lock()
	c := f.org.dchanBy[r.PathValue("ch")]
	f.org.mu.Unlock()
	if c == nil {
		notFound(w, discordgo.ErrCodeUnknownChannel, "Channel")
		return
	}
	ch := &discordgo.Channel{ID: c.id, GuildID: f.org.guildID, Type: discordgo.ChannelTypeGuildText, Name: "ch-" + c.id[len(c.id)-2:]}
	if len(c.groups) > 0 {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, &discordgo.PermissionOverwrite{ID: f.org.guildID,
			Type: discordgo.PermissionOverwriteTypeRole, Deny: discordgo.PermissionViewChannel})
		for i, g := range f.org.groups {
			for _, cg := range c.groups {
				if g == cg {
					ch.PermissionOverwrites = append(ch.PermissionOverwrites, &discordgo.PermissionOverwrite{ID: roleID(i),
						Type: discordgo.PermissionOverwriteTypeRole, Allow: discordgo.PermissionViewChannel})
				}
			}
		}
	}
	writeJSON(w, ch)
}

func (f *fakeDiscord) member(w http.ResponseWriter, r *http.Request) {
	f.org.mu.Lock()
	defer f.org.mu.Unlock()
	p := f.org.byDisc[r.PathValue("u")]
	if r.PathValue("g") != f.org.guildID || p == nil || p.guest {
		notFound(w, discordgo.ErrCodeUnknownMember, "Member")
		return
	}
	writeJSON(w, &discordgo.Member{GuildID: f.org.guildID, User: &discordgo.User{ID: p.discordID, Username: fmt.Sprintf("p%d", p.n)},
		Roles: f.org.rolesOfLocked(p)})
}

func (f *fakeDiscord) interaction(token string) *interactionInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.interactions[token]
}

// show checks a message an interaction posted: to its asker alone when private, else to the
// channel's viewers, kept for later viewers under key.
func (f *fakeDiscord) show(info *interactionInfo, key, body string) {
	switch {
	case info.asker == nil:
		f.oracle.stranger(info.path, info.channel, body)
	case info.private:
		f.oracle.private(info.path, info.channel, info.asker, body)
	default:
		channel := info.channel
		f.oracle.post(info.path, channel, key, body, func() []*person { return f.org.discordReadersLocked(channel) })
	}
}

func (f *fakeDiscord) editOriginal(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	body, _ := io.ReadAll(r.Body)
	info := f.interaction(token)
	id := originalID(token)
	if info == nil {
		f.oracle.stranger("discord (unknown interaction)", "discord", string(body))
	} else {
		f.show(info, "discord/"+info.channel+"/"+id, string(body))
		f.mu.Lock()
		f.messages[id] = info.channel
		done := info.done
		info.done = nil
		f.mu.Unlock()
		if done != nil {
			done <- discordFinal{messageID: id, answerID: explainID(body)}
		}
	}
	writeJSON(w, discordgo.Message{ID: id, ChannelID: channelOf(info)})
}

func (f *fakeDiscord) followUp(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	info := f.interaction(r.PathValue("token"))
	f.mu.Lock()
	f.nextID++
	id := fmt.Sprintf("%d", f.nextID)
	f.mu.Unlock()
	if info == nil {
		f.oracle.stranger("discord (unknown interaction)", "discord", string(body))
	} else {
		f.show(info, "discord/"+info.channel+"/"+id, string(body))
	}
	writeJSON(w, discordgo.Message{ID: id, ChannelID: channelOf(info)})
}

// editMessage is an edit of a message in a channel: a withdrawal notice.
func (f *fakeDiscord) editMessage(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ch, msg := r.PathValue("ch"), r.PathValue("msg")
	f.oracle.post("discord withdrawal", ch, "discord/"+ch+"/"+msg, string(body), func() []*person { return f.org.discordReadersLocked(ch) })
	writeJSON(w, discordgo.Message{ID: msg, ChannelID: ch})
}

// postMessage is a message cita posts in a channel of its own accord: a source-change notice.
func (f *fakeDiscord) postMessage(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ch := r.PathValue("ch")
	f.mu.Lock()
	f.nextID++
	id := fmt.Sprintf("%d", f.nextID)
	f.mu.Unlock()
	path := "discord channel message"
	if strings.Contains(string(body), sourceNoticeMark) {
		path = pathDiscordNotice
	}
	conv := ch
	if id, ok := strings.CutPrefix(ch, "dm"); ok {
		conv = "dm:" + id // a DM is posted to as "dm<user id>" (discordSide.dm)
	}
	f.org.mu.Lock()
	known := f.org.dchanBy[conv] != nil || f.org.discordReadersLocked(conv) != nil
	f.org.mu.Unlock()
	if !known {
		f.oracle.stranger(path+" (unknown channel)", conv, string(body))
	} else {
		f.oracle.postNotice(path, conv, "discord/"+ch+"/"+id, string(body), func() []*person { return f.org.discordReadersLocked(conv) })
	}
	writeJSON(w, discordgo.Message{ID: id, ChannelID: ch})
}

func channelOf(info *interactionInfo) string {
	if info == nil {
		return ""
	}
	return strings.TrimPrefix(info.channel, "dm:")
}

// explainID returns the answer id of the "How I answered" button in a message edit's body.
func explainID(body []byte) int64 {
	i := strings.Index(string(body), `"cita:how:`)
	if i < 0 {
		return 0
	}
	var id int64
	fmt.Sscanf(string(body[i+len(`"cita:how:`):]), "%d", &id)
	return id
}
