package discord

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

const vacationQ = "How many vacation days do I get per year?"

// isNotice reports whether a message edit turns an answer into the withdrawal notice: the
// notice's words, no sources, no buttons, nothing of the hr document. A Components V2 answer
// becomes a V2 message holding the notice's text display only; any other, a text message with
// embeds and components emptied.
func isNotice(edit map[string]any, words string) bool {
	if !strings.Contains(textOf(edit), words) || hrLeak(edit) {
		return false
	}
	embeds, _ := edit["embeds"].([]any)
	rows, _ := edit["components"].([]any)
	if flags, _ := edit["flags"].(float64); int(flags)&int(discordgo.MessageFlagsIsComponentsV2) != 0 {
		return len(embeds) == 0 && len(rows) == 1 && rows[0].(map[string]any)["type"] == 10.0
	}
	return edit["embeds"] != nil && len(embeds) == 0 && edit["components"] != nil && len(rows) == 0
}

// noticeShown waits until message msg in channel ch was edited into the notice in English.
func (e *e2e) noticeShown(t *testing.T, what, ch, msg string) {
	t.Helper()
	waitFor(t, what+" withdrawn", func() bool {
		for _, edit := range e.fake.messageEdits(t, ch, msg) {
			if isNotice(edit, "direct message") {
				return true
			}
		}
		return false
	})
}

// TestNewViewerWithdrawsEarlierAnswers is finding 3 of issue 12 on Discord: whoever is let into
// a channel reads its history, so answers there (and in its threads) from documents the new
// viewer may not read are edited in place to a notice that offers a DM, and stop feeding
// follow-ups, "How I answered" and feedback. Replica B answered; Discord tells replica A of the
// member overwrite.
func TestNewViewerWithdrawsEarlierAnswers(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	ctx := context.Background()
	a := e.replica(t, true, nil, nil)
	b := e.replica(t, true, nil, func(o *Options) { o.MessageContent = true })
	hrAsk := func(id, question string) interaction {
		return interaction{ID: id, Token: "tok-" + id, Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: question}
	}
	hr := b.interact(t, hrAsk("601", salaryQ))
	vac := b.interact(t, hrAsk("602", vacationQ))
	if !hrLeak(hr) || hrLeak(vac) {
		t.Fatal("setup: want the salary answer from the hr document and the vacation answer without it")
	}
	hrMsg := originalID("601")
	message := map[string]any{"id": hrMsg, "channel_id": chHR, "content": textOf(hr), "flags": 0}
	if reply := b.click(t, interaction{ID: "603", Token: "tok-603", Channel: chHR, User: userHR, Roles: []string{roleHR}, CustomID: customIDs(hr)[3], Message: message}); !strings.Contains(reply, "<#"+hrMsg+">") {
		t.Fatalf("thread button: %q", reply)
	}
	// In the answer's thread: an /ask and a plain follow-up, both from the hr document.
	inThread := hrAsk("604", "Which retention bonus applies to band B7?")
	inThread.Channel = hrMsg
	if edit := b.interact(t, inThread); !hrLeak(edit) {
		t.Fatal("setup: the /ask in the thread did not use the hr document")
	}
	b.gw.dispatch("MESSAGE_CREATE", map[string]any{"id": "9601", "channel_id": hrMsg, "guild_id": guildID,
		"author": map[string]any{"id": userHR, "username": "hr"}, "content": "And the base salary of band B7?"})
	waitFor(t, "the thread follow-up's reply", func() bool { return len(e.fake.postedIn(hrMsg)) == 1 })
	wait(b.a)
	followUp := e.fake.postedIn(hrMsg)[0]
	if !strings.Contains(followUp.Content, "5,440,000") {
		t.Fatalf("setup: the thread follow-up %q did not use the hr document", followUp.Content)
	}

	// userPlain (no HR role) is let into #hr; Discord tells replica A.
	a.gw.dispatch("CHANNEL_UPDATE", e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	}))
	e.noticeShown(t, "the hr answer", chHR, hrMsg)
	e.noticeShown(t, "the /ask answer in the thread", hrMsg, originalID("604"))
	e.noticeShown(t, "the follow-up in the thread", hrMsg, followUp.ID)
	wait(a.a)
	// The vacation answer cites only the vacation policy, but its composer also read the hr
	// salary passage (#hr's scope holds hr): it depends on it, uncited, and goes too.
	e.noticeShown(t, "the vacation answer, drawn from passages that include an hr one,", chHR, originalID("602"))

	// Nothing of the withdrawn answers comes back: not in the conversation's memory for any
	// scope, not in "How I answered", not through a vote.
	conv := conversationKey(guildID, chHR, hrMsg)
	turns, err := e.env.Bot.RecentTurns(ctx, conv, rag.MustScope("everyone", "hr"), 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range turns {
		if strings.Contains(turn.Text, "5,440,000") || strings.Contains(turn.Text, "Condor") {
			t.Fatalf("a withdrawn answer still feeds the conversation: %+v", turns)
		}
	}
	for n, custom := range []string{customIDs(hr)[2], customIDs(hr)[0]} {
		id := []string{"605", "606"}[n]
		reply := a.click(t, interaction{ID: id, Token: "tok-" + id, Channel: chHR, User: userPlain, CustomID: custom, Message: message})
		if reply != textNotVisible {
			t.Errorf("click %s on the withdrawn answer: %q, want %q", custom, reply, textNotVisible)
		}
	}
	act, _ := parseCustomID(customIDs(hr)[0])
	var ratings int
	if err := e.env.Pool.QueryRow(ctx, `SELECT count(*) FROM bot_feedback WHERE answer_id = $1`, act.AnswerID).Scan(&ratings); err != nil || ratings != 0 {
		t.Errorf("%d ratings of the withdrawn answer (%v), want 0", ratings, err)
	}
}

// TestRoleChangeWithdrawsEarlierAnswers: Contractors (no groups) become administrators and so
// see #hr; the answers given there from the hr document are withdrawn, a Spanish one with the
// Spanish notice.
func TestRoleChangeWithdrawsEarlierAnswers(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	addContractors(e.fake)
	a := e.replica(t, true, nil, nil)
	en := a.interact(t, interaction{ID: "611", Token: "tok-611", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ})
	es := a.interact(t, interaction{ID: "612", Token: "tok-612", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: "¿Cuál es el salario base de la banda B7?"})
	if !hrLeak(en) || !hrLeak(es) {
		t.Fatal("setup: the answers in #hr did not use the hr document")
	}
	a.gw.dispatch("GUILD_ROLE_UPDATE", e.fake.editRole(guildID, roleContractors, func(r *discordgo.Role) {
		r.Permissions = int64(discordgo.PermissionAdministrator)
	}))
	e.noticeShown(t, "the English answer", chHR, originalID("611"))
	waitFor(t, "the Spanish answer withdrawn in Spanish", func() bool {
		for _, edit := range e.fake.messageEdits(t, chHR, originalID("612")) {
			if isNotice(edit, "mensaje directo") {
				return true
			}
		}
		return false
	})
}

// TestChangeWithoutAnyEventInHTTPMode: in http mode no gateway event ever arrives; the next
// question, on any replica, sees the new viewer at once: it answers without the hr document
// and withdraws the earlier hr answer.
func TestChangeWithoutAnyEventInHTTPMode(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, false, nil, nil)
	b := e.replica(t, false, nil, nil)
	if edit := a.interact(t, interaction{ID: "621", Token: "tok-621", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(edit) {
		t.Fatal("setup: #hr was not answered from the hr document")
	}
	e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	})
	if edit := b.interact(t, interaction{ID: "622", Token: "tok-622", Channel: chHR, User: userPlain, Question: vacationQ}); hrLeak(edit) {
		t.Fatal("the vacation answer shows the hr document")
	}
	e.noticeShown(t, "the earlier hr answer", chHR, originalID("621"))
	if edit := a.interact(t, interaction{ID: "623", Token: "tok-623", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); hrLeak(edit) {
		t.Error("replica A answered #hr from the hr document after userPlain was let in")
	}
}

// TestLostGatewayEventIsOutlivedByTheTTL: in gateway mode a change whose event never arrives
// counts once the cached audience is older than audienceTTL: the next question then answers
// for the new viewers and withdraws what they may not read.
func TestLostGatewayEventIsOutlivedByTheTTL(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	clock := &fakeClock{now: time.Now()}
	a := e.replica(t, true, nil, func(o *Options) { o.Now = clock.Now })
	if edit := a.interact(t, interaction{ID: "631", Token: "tok-631", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(edit) {
		t.Fatal("setup: #hr was not answered from the hr document")
	}
	e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	})
	clock.advance(audienceTTL + time.Second)
	if edit := a.interact(t, interaction{ID: "632", Token: "tok-632", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); hrLeak(edit) {
		t.Error("a question after the TTL was answered from the hr document")
	}
	e.noticeShown(t, "the earlier hr answer", chHR, originalID("631"))
}

// TestAnswerInFlightWhileViewersChangeIsWithdrawn: replica B is answering in #hr from the hr
// document when userPlain is let in and replica A hears of it (before B saved its answer, so A
// finds nothing to withdraw). B must notice after saving and withdraw its own answer.
func TestAnswerInFlightWhileViewersChangeIsWithdrawn(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, true, nil, nil)
	gate := bottest.NewGated(e.pipeline())
	b := e.replica(t, true, gate, nil)
	in := interaction{ID: "641", Token: "tok-641", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}
	b.gw.dispatch("INTERACTION_CREATE", json.RawMessage(in.JSON(t)))
	select {
	case <-gate.Started:
	case <-time.After(10 * time.Second):
		t.Fatal("replica B never started answering")
	}
	before := e.audienceVersion(t, bot.ChannelSubject(chHR))
	a.gw.dispatch("CHANNEL_UPDATE", e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	}))
	waitUpTo(2*time.Second, func() bool { return e.audienceVersion(t, bot.ChannelSubject(chHR)) > before })
	wait(a.a)
	close(gate.Open)
	waitFor(t, "replica B's answer", func() bool { return len(e.fake.callsTo("PATCH", "/webhooks/1000/tok-641/messages/@original")) > 0 })
	wait(b.a)
	if edit := e.fake.callsTo("PATCH", "/webhooks/1000/tok-641/messages/@original")[0].JSON(t); !hrLeak(edit) {
		t.Fatal("the answer in flight did not use the hr document (the test would prove nothing)")
	}
	e.noticeShown(t, "the answer in flight", chHR, originalID("641"))
}

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestFailedNoticeIsRetriedAtTheNextQuestion: when Discord refuses the edit that withdraws an
// answer, the answer is withdrawn in the database all the same, and the edit is retried at the
// channel's next question.
func TestFailedNoticeIsRetriedAtTheNextQuestion(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, true, nil, nil)
	hr := a.interact(t, interaction{ID: "651", Token: "tok-651", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ})
	if !hrLeak(hr) {
		t.Fatal("setup: #hr was not answered from the hr document")
	}
	msg := originalID("651")
	e.fake.failNext("PATCH", "/api/v9/channels/"+chHR+"/messages/"+msg, 1)
	a.gw.dispatch("CHANNEL_UPDATE", e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	}))
	waitFor(t, "the refused edit", func() bool { return len(e.fake.callsTo("PATCH", "/channels/"+chHR+"/messages/"+msg)) == 1 })
	wait(a.a)
	act, _ := parseCustomID(customIDs(hr)[0])
	rec, err := e.env.Bot.LoadAnswer(context.Background(), act.AnswerID)
	if err != nil || rec.RedactedAt.IsZero() {
		t.Fatalf("the answer is not withdrawn in the database after its edit failed: %+v %v", rec, err)
	}
	a.interact(t, interaction{ID: "652", Token: "tok-652", Channel: chHR, User: userPlain, Question: vacationQ})
	e.noticeShown(t, "the hr answer, at the next question", chHR, msg)
}

// longAnswerer pads every answer past Discord's message limit, so it is shown in several
// messages.
type longAnswerer struct{ inner bot.Answerer }

func (l longAnswerer) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	ans, err := l.inner.Answer(ctx, q, onDelta)
	if err == nil {
		ans.Text = strings.Repeat(ans.Text+"\n\n", 4500/(len(ans.Text)+2)+1)
	}
	return ans, err
}

// TestWithdrawnAnswerInSeveralMessagesLeavesNoPartBehind: an answer too long for one message
// continues in follow-up messages; withdrawing it edits the first into the notice and deletes
// the others.
func TestWithdrawnAnswerInSeveralMessagesLeavesNoPartBehind(t *testing.T) {
	t.Parallel()
	e := setupE2E(t)
	a := e.replica(t, true, longAnswerer{inner: e.pipeline()}, nil)
	if hr := a.interact(t, interaction{ID: "661", Token: "tok-661", Channel: chHR, User: userHR, Roles: []string{roleHR}, Question: salaryQ}); !hrLeak(hr) {
		t.Fatal("setup: #hr was not answered from the hr document")
	}
	parts := e.fake.followUpsOf("tok-661")
	if len(parts) == 0 {
		t.Fatal("setup: the long answer was posted in one message")
	}
	a.gw.dispatch("CHANNEL_UPDATE", e.fake.editChannel(chHR, func(ch *discordgo.Channel) {
		ch.PermissionOverwrites = append(ch.PermissionOverwrites, memberOverwrite(userPlain))
	}))
	e.noticeShown(t, "the first part", chHR, originalID("661"))
	wait(a.a)
	for _, id := range parts {
		if n := len(e.fake.callsTo("DELETE", "/channels/"+chHR+"/messages/"+id)); n != 1 {
			t.Errorf("follow-up part %s deleted %d times, want once", id, n)
		}
	}
}
