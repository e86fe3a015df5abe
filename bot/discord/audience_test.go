package discord

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// TestChannelAudienceFailsClosed: a visible answer in a channel uses only the groups every
// viewer of the channel has, now or later; whatever cannot be resolved refuses the visible
// answer instead of guessing. Driven by signed /ask interactions against the fake.
func TestChannelAudienceFailsClosed(t *testing.T) {
	t.Parallel()
	const (
		userLetIn = "44" // let into #hr by a member overwrite
		userGone  = "45" // has a member overwrite but left the guild
		chNews    = "602"
		chThread  = "603"
	)
	view := int64(discordgo.PermissionViewChannel)
	letIn := func(id string) *discordgo.PermissionOverwrite {
		return &discordgo.PermissionOverwrite{ID: id, Type: discordgo.PermissionOverwriteTypeMember, Allow: view}
	}
	tests := []struct {
		name      string
		channel   string
		setup     func(f *fakeDiscord, o *Options)
		wantScope string // the scope answered with; "-" means no answer
		wantText  string // in the reply when refused
	}{
		{"@everyone sees the channel: only what every member reads", chGeneral, nil, "everyone", ""},
		{"only HR sees the channel", chHR, nil, "everyone,hr", ""},
		{"a thread uses its parent's viewers", chThread, nil, "everyone,hr", ""},
		{"a pin narrower than the viewers narrows", chHR, func(f *fakeDiscord, o *Options) {
			o.ChannelGroups = map[string][]string{chHR: {"hr"}}
		}, "hr", ""},
		{"a pin wider than the viewers does not widen", chGeneral, func(f *fakeDiscord, o *Options) {
			o.ChannelGroups = map[string][]string{chGeneral: {"hr"}}
		}, "", ""},
		{"a pin on a thread's parent is narrowed the same way", chThread, func(f *fakeDiscord, o *Options) {
			o.ChannelGroups = map[string][]string{chHR: {"hr", "finance"}}
		}, "hr", ""},
		{"guild roles without @everyone: unknown, refused", chGeneral, func(f *fakeDiscord, o *Options) {
			g := f.guilds[guildID]
			f.addGuild(&discordgo.Guild{ID: guildID, Name: g.Name, OwnerID: g.OwnerID, Roles: g.Roles[1:]})
		}, "-", "couldn't check who can see this channel"},
		{"a viewer let in alone is counted with their roles", chHR, func(f *fakeDiscord, o *Options) {
			f.channels[chHR].PermissionOverwrites = append(f.channels[chHR].PermissionOverwrites, letIn(userLetIn))
			f.addMember(guildID, &discordgo.Member{User: &discordgo.User{ID: userLetIn}})
		}, "everyone", ""},
		{"a viewer let in alone who left counts as a member without roles", chHR, func(f *fakeDiscord, o *Options) {
			f.channels[chHR].PermissionOverwrites = append(f.channels[chHR].PermissionOverwrites, letIn(userGone))
		}, "everyone", ""},
		{"a viewer whose roles cannot be read: refused", chHR, func(f *fakeDiscord, o *Options) {
			f.channels[chHR].PermissionOverwrites = append(f.channels[chHR].PermissionOverwrites, letIn(userLetIn))
			f.breakMembers(guildID)
		}, "-", "couldn't check who can see this channel"},
		{"an announcement channel can be published to other servers: refused", chNews, nil, "-", "other servers that follow"},
		{"a pinned announcement channel is refused too", chNews, func(f *fakeDiscord, o *Options) {
			o.ChannelGroups = map[string][]string{chNews: {"everyone"}}
		}, "-", "other servers that follow"},
	}
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeDiscord(t)
			seedGuild(f)
			f.addChannel(&discordgo.Channel{ID: chNews, GuildID: guildID, Type: discordgo.ChannelTypeGuildNews, Name: "news"})
			f.addChannel(&discordgo.Channel{ID: chThread, GuildID: guildID, ParentID: chHR, Type: discordgo.ChannelTypeGuildPublicThread, Name: "q"})
			h := &recordingHandler{out: bot.Outgoing{Text: "Salary band B7 is 5,440,000 [1].", Lang: "en", AnswerID: 3}}
			a := newTestAdapter(t, f, h, func(o *Options) {
				if tt.setup != nil {
					tt.setup(f, o)
				}
			})
			in := interaction{ID: "5" + string(rune('0'+n)), Token: "tok-5" + string(rune('a'+n)), Channel: tt.channel, User: userHR, Roles: []string{roleHR},
				Question: "What is the base salary of band B7?"}
			post(t, a, in.JSON(t))
			wait(a)
			edits := f.callsTo("PATCH", "/webhooks/1000/"+in.Token+"/messages/@original")
			if len(edits) != 1 {
				t.Fatalf("%d edits, want 1", len(edits))
			}
			reply := textOf(edits[0].JSON(t))
			turns := h.handled()
			if tt.wantScope == "-" {
				if len(turns) != 0 {
					t.Fatalf("answered with scope %q, want a refusal", turns[0].Scope.String())
				}
				if !strings.Contains(reply, tt.wantText) {
					t.Errorf("reply %q, want it to contain %q", reply, tt.wantText)
				}
				return
			}
			if len(turns) != 1 || turns[0].Scope.String() != tt.wantScope || turns[0].Audience != bot.AudienceChannel {
				t.Fatalf("turns %+v, want one channel turn with scope %q", turns, tt.wantScope)
			}
		})
	}
}

// TestThreadMessageAudienceFailsClosed: a follow-up written in a bot thread (gateway) is
// refused, not answered, when the viewers of the thread's channel cannot be read.
func TestThreadMessageAudienceFailsClosed(t *testing.T) {
	t.Parallel()
	f := newFakeDiscord(t)
	seedGuild(f)
	f.addChannel(&discordgo.Channel{ID: "603", GuildID: guildID, ParentID: chHR, OwnerID: f.botID, Type: discordgo.ChannelTypeGuildPublicThread})
	f.breakMembers(guildID) // the owner's roles cannot be read
	h := &recordingHandler{out: bot.Outgoing{Text: "Salary band B7 is 5,440,000 [1].", Lang: "en", AnswerID: 3}}
	a := newTestAdapter(t, f, h, func(o *Options) { o.Mode = ModeGateway; o.MessageContent = true })
	a.markThread("603")
	a.onMessage(&discordgo.Message{ID: "9200", ChannelID: "603", GuildID: guildID, Author: &discordgo.User{ID: userHR}, Content: "And band B8?"})
	wait(a)
	if turns := h.handled(); len(turns) != 0 {
		t.Fatalf("answered with scope %q, want a refusal", turns[0].Scope.String())
	}
	sent := f.callsTo("POST", "/channels/603/messages")
	if len(sent) != 1 || !strings.Contains(textOf(sent[0].JSON(t)), "couldn't check who can see this channel") {
		t.Errorf("replies %v: want one refusal", sent)
	}
}
