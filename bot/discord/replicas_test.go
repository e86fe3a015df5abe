package discord

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/rewrite"
)

const (
	salaryQ = "What is the base salary of band B7?"
	// roleContractors maps to no group: a member holding it reads what @everyone reads.
	roleContractors = "701"
)

// replica is one cita process: an adapter over the shared database and fake, with caches of
// its own, on the gateway (gw set) or behind the HTTP interactions endpoint.
type replica struct {
	e  *e2e
	a  *Adapter
	gw *gatewaySession
}

// pipeline is the real answering pipeline over the test corpus.
func (e *e2e) pipeline() bot.Answerer {
	return rag.NewPipeline(rag.NewHybrid(e.env.Index, hashembed.New(0), rag.DefaultHybridOptions()), rag.Extractive{}, rewrite.Offline{}, rag.PipelineOptions{})
}

// replica starts another replica answering with answerer (the pipeline when nil); gateway
// connects it to the fake's gateway.
func (e *e2e) replica(t *testing.T, gateway bool, answerer bot.Answerer, edit func(*Options)) *replica {
	t.Helper()
	if answerer == nil {
		answerer = e.pipeline()
	}
	handler := bot.NewHandler(answerer, e.env.Bot, bot.HandlerOptions{RateLimit: bot.RateLimit{PerMinute: 600, Burst: 100}})
	a := newTestAdapter(t, e.fake, handler, func(o *Options) {
		if gateway {
			o.Mode = ModeGateway
		}
		if edit != nil {
			edit(o)
		}
	})
	r := &replica{e: e, a: a}
	if gateway {
		r.gw = e.fake.openGateway(t, a)
	}
	return r
}

// interact delivers in to r (INTERACTION_CREATE on its gateway session, or a signed POST) and
// returns the edit of the interaction's original response once r's work is done.
func (r *replica) interact(t *testing.T, in interaction) map[string]any {
	t.Helper()
	path := "/webhooks/1000/" + in.Token + "/messages/@original"
	if r.gw != nil {
		r.gw.dispatch("INTERACTION_CREATE", json.RawMessage(in.JSON(t)))
		waitFor(t, "the response to interaction "+in.ID, func() bool { return len(r.e.fake.callsTo("PATCH", path)) > 0 })
	} else {
		post(t, r.a, in.JSON(t))
	}
	wait(r.a)
	edits := r.e.fake.callsTo("PATCH", path)
	if len(edits) != 1 {
		t.Fatalf("%d edits of the response to interaction %s, want 1", len(edits), in.ID)
	}
	edit := edits[0].JSON(t)
	t.Logf("interaction %s: %q; sources %q", in.ID, textOf(edit), sourcesOf(edit))
	return edit
}

// click delivers a button click and returns the (ephemeral) reply's text.
func (r *replica) click(t *testing.T, in interaction) string {
	t.Helper()
	return textOf(r.interact(t, in))
}

// hrLeak reports whether a reply shows anything of the hr-only salary document.
func hrLeak(edit map[string]any) bool {
	text := textOf(edit)
	return strings.Contains(text, "5,440,000") || strings.Contains(text, "Condor") || strings.Contains(sourcesOf(edit), "Salary bands")
}

// addContractors gives the fake guild a role that maps to no group and sees nothing special.
func addContractors(f *fakeDiscord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.guilds[guildID]
	g.Roles = append(g.Roles, &discordgo.Role{ID: roleContractors, Name: "Contractors"})
}

// audienceVersion returns the database's version of subject in the fake guild.
func (e *e2e) audienceVersion(t *testing.T, subject string) int64 {
	t.Helper()
	st, err := e.env.Bot.AudienceStates(context.Background(), platform, guildID, subject)
	if err != nil {
		t.Fatal(err)
	}
	return st[0].Version
}

// waitUpTo polls cond for up to d and reports whether it came to hold.
func waitUpTo(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// memberOverwrite lets user see a channel.
func memberOverwrite(user string) *discordgo.PermissionOverwrite {
	return &discordgo.PermissionOverwrite{ID: user, Type: discordgo.PermissionOverwriteTypeMember, Allow: int64(discordgo.PermissionViewChannel)}
}

// TestReplicaThatMissedARoleChangeDoesNotAnswerFromHRDocuments is issue 12's "every replica
// sees every change" on Discord: the Contractors role (no groups) is made administrator, so its
// members now see #hr. Discord delivers GUILD_ROLE_UPDATE to replica A's session only; replica
// B, which answered in #hr before, must not answer from the hr document again.
func TestReplicaThatMissedARoleChangeDoesNotAnswerFromHRDocuments(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	addContractors(e.fake)
	a := e.replica(t, true, nil, nil)
	b := e.replica(t, true, nil, nil)
	for n, r := range []*replica{a, b} {
		id := []string{"501", "502"}[n]
		if edit := r.interact(t, interaction{ID: id, Token: "tok-" + id, Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(edit) {
			t.Fatalf("replica %d did not answer #hr from the hr document (the test would prove nothing)", n)
		}
	}
	before := e.audienceVersion(t, bot.SubjectRoles)
	a.gw.dispatch("GUILD_ROLE_UPDATE", e.fake.editRole(guildID, roleContractors, func(r *discordgo.Role) {
		r.Permissions = int64(discordgo.PermissionAdministrator)
	}))
	waitUpTo(2*time.Second, func() bool { return e.audienceVersion(t, bot.SubjectRoles) > before })
	for n, r := range []*replica{b, a} {
		id := []string{"503", "504"}[n]
		if edit := r.interact(t, interaction{ID: id, Token: "tok-" + id, Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); hrLeak(edit) {
			t.Errorf("replica %s answered #hr from the hr document after Contractors (no hr group) came to see it", []string{"B (missed the event)", "A"}[n])
		}
	}
}

// TestReplicaThatMissedAnOverwriteChangeDoesNotAnswerFromHRDocuments: a member without the HR
// role is let into #hr by a member overwrite; CHANNEL_UPDATE reaches replica A only.
func TestReplicaThatMissedAnOverwriteChangeDoesNotAnswerFromHRDocuments(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, true, nil, nil)
	b := e.replica(t, true, nil, nil)
	if edit := b.interact(t, interaction{ID: "511", Token: "tok-511", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(edit) {
		t.Fatal("replica B did not answer #hr from the hr document (the test would prove nothing)")
	}
	before := e.audienceVersion(t, bot.ChannelSubject(chHR))
	a.gw.dispatch("CHANNEL_UPDATE", e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	}))
	waitUpTo(2*time.Second, func() bool { return e.audienceVersion(t, bot.ChannelSubject(chHR)) > before })
	if edit := b.interact(t, interaction{ID: "512", Token: "tok-512", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); hrLeak(edit) {
		t.Error("replica B answered #hr from the hr document after a member without HR was let in (the event went to replica A)")
	}
}

// TestReplicaThatMissedAMemberRoleChangeDoesNotAnswerFromHRDocuments: a member let into #hr
// by a member overwrite counts with their own roles; when their HR role is taken away (with
// member events on, GUILD_MEMBER_UPDATE reaches replica A only) replica B must not answer from
// the hr document, and the earlier answer there is withdrawn.
func TestReplicaThatMissedAMemberRoleChangeDoesNotAnswerFromHRDocuments(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	const userLetIn = "44"
	e.fake.addMember(guildID, &discordgo.Member{User: &discordgo.User{ID: userLetIn}, Roles: []string{roleHR}})
	e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userLetIn))
	})
	memberEvents := func(o *Options) { o.MemberEvents = true }
	a := e.replica(t, true, nil, memberEvents)
	b := e.replica(t, true, nil, memberEvents)
	for _, r := range []*replica{a, b} {
		if r.gw.intents()&discordgo.IntentsGuildMembers == 0 {
			t.Fatalf("identified with intents %b: want GUILD_MEMBERS with member events on", r.gw.intents())
		}
	}
	if edit := b.interact(t, interaction{ID: "521", Token: "tok-521", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(edit) {
		t.Fatal("replica B did not answer #hr from the hr document (the test would prove nothing)")
	}
	before := e.audienceVersion(t, bot.SubjectRoles)
	a.gw.dispatch("GUILD_MEMBER_UPDATE", e.fake.editMember(guildID, userLetIn, func(m *discordgo.Member) { m.Roles = []string{} }))
	waitUpTo(2*time.Second, func() bool { return e.audienceVersion(t, bot.SubjectRoles) > before })
	if edit := b.interact(t, interaction{ID: "522", Token: "tok-522", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); hrLeak(edit) {
		t.Error("replica B answered #hr from the hr document after a viewer let in alone lost the HR role (the event went to replica A)")
	}
	e.noticeShown(t, "the earlier hr answer", chHR, originalID("521"))
}

// TestChangesMissedDuringADisconnectCountAfterReconnecting: replica A's gateway connection
// drops and cannot resume; meanwhile a member without HR is let into #hr and nobody hears of
// it. The new session's GUILD_CREATE makes every replica read the guild again: B does not
// answer from the hr document, and the earlier hr answer is withdrawn.
func TestChangesMissedDuringADisconnectCountAfterReconnecting(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, true, nil, nil)
	b := e.replica(t, true, nil, nil)
	if edit := b.interact(t, interaction{ID: "531", Token: "tok-531", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(edit) {
		t.Fatal("replica B did not answer #hr from the hr document (the test would prove nothing)")
	}
	before := e.audienceVersion(t, bot.ChannelSubject(chHR))
	sessions := e.fake.sessionCount()
	a.gw.drop()
	e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	})
	a.gw = e.fake.reconnected(t, sessions)
	waitUpTo(2*time.Second, func() bool { return e.audienceVersion(t, bot.ChannelSubject(chHR)) > before })
	if edit := b.interact(t, interaction{ID: "532", Token: "tok-532", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); hrLeak(edit) {
		t.Error("replica B answered #hr from the hr document after a change missed during A's disconnect")
	}
	e.noticeShown(t, "the earlier hr answer", chHR, originalID("531"))
}

// TestDMAskerRolesAreReadForEveryQuestionInHTTPMode: in http mode no event tells of a role
// taken away, so a DM asker's membership is looked up for every question: the hr document stops
// reaching them at once.
func TestDMAskerRolesAreReadForEveryQuestionInHTTPMode(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	r := e.replica(t, false, nil, nil)
	if edit := r.interact(t, interaction{ID: "541", Token: "tok-541", Channel: "651", User: userHR, DM: true, Question: salaryQ}); !hrLeak(edit) {
		t.Fatal("the HR member's DM was not answered from the hr document (the test would prove nothing)")
	}
	e.fake.editMember(guildID, userHR, func(m *discordgo.Member) { m.Roles = []string{} })
	if edit := r.interact(t, interaction{ID: "542", Token: "tok-542", Channel: "651", User: userHR, DM: true, Question: salaryQ}); hrLeak(edit) {
		t.Error("a DM was answered from the hr document after the asker lost the HR role")
	}
}

// TestMemberUpdateWithTheSameRolesBumpsNothing: Discord sends GUILD_MEMBER_UPDATE for every
// nickname or avatar change; when the replica knows the member's roles are unchanged, no
// replica has to read the guild again.
func TestMemberUpdateWithTheSameRolesBumpsNothing(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, true, nil, func(o *Options) { o.MemberEvents = true })
	a.interact(t, interaction{ID: "551", Token: "tok-551", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}) // reads the owner's roles
	before := e.audienceVersion(t, bot.SubjectRoles)
	a.gw.dispatch("GUILD_MEMBER_UPDATE", e.fake.editMember(guildID, ownerID, func(m *discordgo.Member) { m.Nick = "boss" }))
	if waitUpTo(300*time.Millisecond, func() bool { return e.audienceVersion(t, bot.SubjectRoles) != before }) {
		t.Fatal("a nickname change bumped the roles version")
	}
	a.gw.dispatch("GUILD_MEMBER_UPDATE", e.fake.editMember(guildID, ownerID, func(m *discordgo.Member) { m.Roles = []string{} }))
	if !waitUpTo(5*time.Second, func() bool { return e.audienceVersion(t, bot.SubjectRoles) == before+1 }) {
		t.Fatalf("roles version %d after the owner lost a role, want %d", e.audienceVersion(t, bot.SubjectRoles), before+1)
	}
}
