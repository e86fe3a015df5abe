package discord

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

const (
	otherGuild = "999" // a guild the bot is in that is not configured
	stranger   = "77"  // a user in no configured guild
)

// TestUnconfiguredGuildIsRefused: an interaction from a guild that is not in GuildIDs gets an
// ephemeral refusal at once, over HTTP and on the gateway; nothing is answered and Discord is
// not read on its behalf.
func TestUnconfiguredGuildIsRefused(t *testing.T) {
	t.Parallel()
	answer := bot.Outgoing{Text: "Vacation is 22 days [1].", Lang: "en", AnswerID: 5}
	tests := []struct {
		name    string
		gateway bool
		in      interaction
		want    string
	}{
		{"/ask over HTTP", false, interaction{ID: "1", Token: "tok-1", Guild: otherGuild, Channel: "6000", User: userPlain, Question: "How many vacation days?"},
			"isn't one of the servers I'm set up for"},
		{"/ask over HTTP, in Spanish", false, interaction{ID: "2", Token: "tok-2", Guild: otherGuild, Channel: "6000", User: userPlain, Question: "¿Cuántos días de vacaciones tengo?"},
			"no es uno de los servidores"},
		{"private /ask over HTTP", false, interaction{ID: "3", Token: "tok-3", Guild: otherGuild, Channel: "6000", User: userPlain, Question: "vacation?", Private: true},
			"isn't one of the servers I'm set up for"},
		{"a button over HTTP", false, interaction{ID: "4", Token: "tok-4", Guild: otherGuild, Channel: "6000", User: userPlain, CustomID: "cita:how:5",
			Message: map[string]any{"id": "8000", "channel_id": "6000", "content": "> vacation?\nanswer", "flags": 0}}, "isn't one of the servers I'm set up for"},
		{"/ask on the gateway", true, interaction{ID: "5", Token: "tok-5", Guild: otherGuild, Channel: "6000", User: userPlain, Question: "How many vacation days?"},
			"isn't one of the servers I'm set up for"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeDiscord(t)
			seedGuild(f)
			h := &recordingHandler{out: answer}
			a := newTestAdapter(t, f, h, func(o *Options) {
				if tt.gateway {
					o.Mode = ModeGateway
				}
			})
			var resp discordgo.InteractionResponse
			if tt.gateway {
				var i discordgo.Interaction
				if err := json.Unmarshal(tt.in.JSON(t), &i); err != nil {
					t.Fatal(err)
				}
				a.onGatewayInteraction(&i)
				wait(a)
				cbs := f.callsTo("POST", "/interactions/"+tt.in.ID+"/"+tt.in.Token+"/callback")
				if len(cbs) != 1 {
					t.Fatalf("%d callbacks, want 1", len(cbs))
				}
				if err := json.Unmarshal(cbs[0].Body, &resp); err != nil {
					t.Fatal(err)
				}
			} else {
				w := post(t, a, tt.in.JSON(t))
				wait(a)
				if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
					t.Fatalf("response %s: %v", w.Body, err)
				}
			}
			if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data == nil ||
				resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(resp.Data.Content, tt.want) {
				t.Errorf("response %+v (data %+v): want an ephemeral refusal containing %q", resp, resp.Data, tt.want)
			}
			if turns := h.handled(); len(turns) != 0 {
				t.Errorf("answered a guild that is not configured, with scope %q", turns[0].Scope.String())
			}
			if edits := f.callsTo("PATCH", "/webhooks/"); len(edits) != 0 {
				t.Errorf("%d edits: the refusal is the only response", len(edits))
			}
			for _, c := range f.calls {
				if strings.Contains(c.Path, "/guilds/") || strings.Contains(c.Path, "/channels/") {
					t.Errorf("read %s on behalf of an unconfigured guild", c.Path)
				}
			}
		})
	}
}

// TestUnconfiguredGuildMessagesAreNotAnswered: a gateway message in a thread the bot opened in
// a guild that is no longer configured is refused, not answered.
func TestUnconfiguredGuildMessagesAreNotAnswered(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	f.addGuild(&discordgo.Guild{ID: otherGuild, Name: "Elsewhere", OwnerID: ownerID, Roles: []*discordgo.Role{
		{ID: otherGuild, Name: "@everyone", Permissions: int64(discordgo.PermissionViewChannel)}}})
	f.addChannel(&discordgo.Channel{ID: "6000", GuildID: otherGuild, Type: discordgo.ChannelTypeGuildText})
	f.addChannel(&discordgo.Channel{ID: "6001", GuildID: otherGuild, ParentID: "6000", OwnerID: f.botID, Type: discordgo.ChannelTypeGuildPublicThread})
	h := &recordingHandler{out: bot.Outgoing{Text: "Vacation is 22 days [1].", Lang: "en", AnswerID: 5}}
	a := newTestAdapter(t, f, h, func(o *Options) { o.Mode = ModeGateway; o.MessageContent = true })
	a.markThread("6001")
	a.onMessage(&discordgo.Message{ID: "9100", ChannelID: "6001", GuildID: otherGuild, Author: &discordgo.User{ID: userPlain}, Content: "How many vacation days?"})
	a.onMessage(&discordgo.Message{ID: "9101", ChannelID: "6000", GuildID: otherGuild, Author: &discordgo.User{ID: userPlain}, Content: "hello all"})
	wait(a)
	if turns := h.handled(); len(turns) != 0 {
		t.Fatalf("answered a message from a guild that is not configured, with scope %q", turns[0].Scope.String())
	}
	replies := f.callsTo("POST", "/channels/6001/messages")
	if len(replies) != 1 || !strings.Contains(textOf(replies[0].JSON(t)), "isn't one of the servers I'm set up for") {
		t.Errorf("replies in the bot's thread %v: want one refusal", replies)
	}
	if n := len(f.callsTo("POST", "/channels/6000/messages")); n != 0 {
		t.Errorf("%d replies to an ordinary message in an unconfigured guild, want none", n)
	}
}

// TestDMNeedsMembershipOfAnAllowedGuild: a DM is answered only for a member of a configured
// guild, with their groups there; a stranger gets a refusal in their language, and a failed
// lookup fails closed with its own reason.
func TestDMNeedsMembershipOfAnAllowedGuild(t *testing.T) {
	t.Parallel()
	group := 2
	tests := []struct {
		name      string
		in        interaction
		broken    bool
		wantScope string // "" means refused
		want      string // in the reply
	}{
		{"member without roles", interaction{User: userPlain}, false, "everyone", "22 days"},
		{"member with HR", interaction{User: userHR}, false, "everyone,hr", "22 days"},
		{"stranger", interaction{User: stranger}, false, "", "couldn't find you"},
		{"stranger, in Spanish", interaction{User: stranger, Question: "¿Cuántos días de vacaciones tengo?"}, false, "", "no te encontré"},
		{"member, but Discord fails the lookup", interaction{User: userPlain}, true, "", "couldn't check with Discord"},
		{"member, in a group DM (user-installed)", interaction{User: userPlain, Context: &group}, false, "", "direct message with me"},
	}
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, gateway := range []bool{false, true} {
				if gateway && tt.in.Context != nil {
					continue // plain messages have no interaction context
				}
				f := newFakeDiscord(t)
				seedGuild(f)
				if tt.broken {
					f.breakMembers(guildID)
				}
				h := &recordingHandler{out: bot.Outgoing{Text: "Vacation is 22 days [1].", Lang: "en", AnswerID: 5}}
				a := newTestAdapter(t, f, h, func(o *Options) { o.MessageContent = true })
				in := tt.in
				in.DM, in.Channel = true, "65"+string(rune('0'+n))
				in.Question = cmpOr(in.Question, "How many vacation days do I get?")
				var reply string
				if gateway {
					a.onMessage(&discordgo.Message{ID: "93" + string(rune('0'+n)), ChannelID: in.Channel, Author: &discordgo.User{ID: in.User}, Content: in.Question})
					wait(a)
					sent := f.callsTo("POST", "/channels/"+in.Channel+"/messages")
					if len(sent) != 1 {
						t.Fatalf("gateway: %d replies, want 1", len(sent))
					}
					reply = textOf(sent[0].JSON(t))
				} else {
					in.ID, in.Token = "3"+string(rune('0'+n)), "tok-3"+string(rune('0'+n))
					w := post(t, a, in.JSON(t))
					wait(a)
					var resp discordgo.InteractionResponse
					if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
						t.Fatal(err)
					}
					edits := f.callsTo("PATCH", "/webhooks/1000/"+in.Token+"/messages/@original")
					switch {
					case resp.Type == discordgo.InteractionResponseChannelMessageWithSource && len(edits) == 0:
						reply = resp.Data.Content // refused at once
					case resp.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource && len(edits) == 1:
						reply = textOf(edits[0].JSON(t))
					default:
						t.Fatalf("response %s and %d edits: want a refusal at once or one edit of a deferral", w.Body, len(edits))
					}
				}
				if !strings.Contains(reply, tt.want) {
					t.Errorf("gateway=%v: reply %q, want it to contain %q", gateway, reply, tt.want)
				}
				turns := h.handled()
				switch {
				case tt.wantScope == "" && len(turns) != 0:
					t.Errorf("gateway=%v: answered with scope %q, want a refusal", gateway, turns[0].Scope.String())
				case tt.wantScope != "" && (len(turns) != 1 || turns[0].Scope.String() != tt.wantScope):
					t.Errorf("gateway=%v: turns %+v, want one with scope %q", gateway, turns, tt.wantScope)
				}
			}
		})
	}
}

// TestDMMembershipIsCachedBriefly: in gateway mode (where member events keep the cache
// current) repeated DMs from one person look them up once per guild, strangers included; a
// failed lookup is not cached. (In http mode every DM looks the asker up: see
// TestDMAskerRolesAreReadForEveryQuestionInHTTPMode.)
func TestDMMembershipIsCachedBriefly(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	h := &recordingHandler{out: bot.Outgoing{Text: "ok", Lang: "en"}}
	a := newTestAdapter(t, f, h, func(o *Options) { o.Mode, o.MessageContent = ModeGateway, true })
	for n, user := range []string{userPlain, userPlain, stranger, stranger, stranger} {
		a.onMessage(&discordgo.Message{ID: "94" + string(rune('0'+n)), ChannelID: "660", Author: &discordgo.User{ID: user}, Content: "vacation days?"})
		wait(a)
	}
	for _, user := range []string{userPlain, stranger} {
		if got := len(f.callsTo("GET", "/guilds/"+guildID+"/members/"+user)); got != 1 {
			t.Errorf("user %s looked up %d times, want once", user, got)
		}
	}
	if got := len(h.handled()); got != 2 {
		t.Errorf("%d turns answered, want the member's 2", got)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestNewRequiresGuilds: without guilds to serve the adapter would refuse everyone; it is a
// configuration error instead.
func TestNewRequiresGuilds(t *testing.T) {
	t.Parallel()
	opts := testOptions("http://127.0.0.1:1", nopHandler{})
	opts.GuildIDs = nil
	if _, err := New(opts); err == nil || !strings.Contains(err.Error(), "GuildIDs") {
		t.Errorf("error %v, want one naming GuildIDs", err)
	}
}
