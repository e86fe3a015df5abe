package pgbot_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// gapEnv asks questions through the real handler and pipeline and groups the gaps with the
// real topic reader (no glossary, no translator: English words stand for themselves).
type gapEnv struct {
	t     *testing.T
	env   *bottest.Env
	h     *bot.Handler
	scope rag.Scope // the askers'
}

func newGapEnv(t *testing.T) *gapEnv {
	env := bottest.New(t)
	return &gapEnv{t: t, env: env, h: bot.NewHandler(env.Pipeline, env.Bot, bot.HandlerOptions{RateLimit: bot.RateLimit{PerMinute: 600, Burst: 100}}),
		scope: rag.MustScope("everyone")}
}

type where int

const (
	inDM where = iota
	inPrivate
	inPublic
	inEphemeral
)

func (g *gapEnv) ask(user, text string, w where) bot.Outgoing {
	g.t.Helper()
	in := bot.Incoming{Conversation: bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "D" + user},
		UserID: user, Text: text, Scope: g.scope, Audience: bot.AudiencePrivate}
	switch w {
	case inPrivate:
		in.Conversation.Channel, in.Audience = "GPRIV", bot.AudienceChannel
	case inPublic:
		in.Conversation.Channel, in.Conversation.Thread, in.Audience, in.Public = "CPUB", "1700000000.0001", bot.AudienceChannel, true
	case inEphemeral:
		in.Conversation.Channel, in.Ephemeral, in.Public = "CPUB", true, true
	}
	out := g.h.Handle(context.Background(), in, nil)
	if !out.FromPipeline() || out.AnswerID == 0 {
		g.t.Fatalf("%s asking %q: %+v", user, text, out)
	}
	return out
}

func (g *gapEnv) group() int {
	g.t.Helper()
	reader := rag.NewTopicReader(nil, nil)
	n, err := g.env.Bot.AssignGapTopics(context.Background(), reader.Signature, 0)
	if err != nil {
		g.t.Fatal(err)
	}
	return n
}

func (g *gapEnv) report(q bot.GapQuery) []bot.GapTopic {
	g.t.Helper()
	rep, err := g.env.Bot.GapReport(context.Background(), q)
	if err != nil {
		g.t.Fatal(err)
	}
	return rep
}

// reportText is everything a report shows, for looking for what it must not.
func reportText(rep []bot.GapTopic) string {
	var b strings.Builder
	for _, t := range rep {
		b.WriteString(strings.Join(t.Questions, "\n") + "\n" + strings.Join(t.Concepts, " ") + "\n" + t.Owner + " " + t.Source + "\n")
		for _, d := range t.Nearest {
			b.WriteString(d.Title + " " + d.Source + " " + d.Owner + "\n")
		}
	}
	return b.String()
}

// The privacy rule: a question reaches the gap report only when it was asked where its whole
// audience saw it, or its asker shared it. A DM, a private channel and an ephemeral reply give
// neither text nor a count, even when they are the same need as public questions.
func TestGapReportHoldsOnlyPublicOrSharedQuestions(t *testing.T) {
	t.Parallel()
	g := newGapEnv(t)
	ctx := context.Background()
	// The same need, asked everywhere; none of it is in the corpus.
	pub1 := g.ask("U1", "Is there parking for employees at the office?", inPublic)
	if pub1.Kind() == bot.ReplyAnswer {
		t.Fatalf("the corpus answered the parking question: %+v", pub1)
	}
	g.ask("U2", "Where can employees park their car at the office?", inPublic)
	g.ask("U3", "Is there employee parking CANARYDM?", inDM)
	g.ask("U4", "Employee parking at the office CANARYPRIV?", inPrivate)
	g.ask("U5", "Do employees get parking CANARYEPH?", inEphemeral)
	shared := g.ask("U6", "Can Okonkwo park at the office, mail okonkwo@example.com?", inDM)
	if err := g.env.Bot.ShareGap(ctx, shared.AnswerID, "U7"); !errors.Is(err, bot.ErrNotShareable) {
		t.Fatalf("someone else shared U6's question: %v", err)
	}
	if err := g.env.Bot.ShareGap(ctx, shared.AnswerID, "U6"); err != nil {
		t.Fatal(err)
	}
	// An answered public question is no gap, until someone presses 👎.
	ok := g.ask("U8", "How many vacation days do I get per year?", inPublic)
	if ok.Kind() != bot.ReplyAnswer {
		t.Fatalf("the vacation question was not answered: %+v", ok)
	}
	if err := g.env.Bot.ShareGap(ctx, ok.AnswerID, "U8"); !errors.Is(err, bot.ErrNotShareable) {
		t.Fatalf("an answered question was shared: %v", err)
	}
	if n := g.group(); n != 3 {
		t.Fatalf("grouped %d questions, want the 2 public ones and the shared one", n)
	}
	if err := g.env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: ok.AnswerID, Conversation: bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "CPUB", Thread: "1700000000.0001"}, UserID: "U9", Rating: -1}); err != nil {
		t.Fatal(err)
	}
	if n := g.group(); n != 1 {
		t.Fatalf("grouped %d questions after the 👎, want the rated one", n)
	}
	if n := g.group(); n != 0 {
		t.Fatalf("grouped %d questions again", n)
	}
	rep := g.report(bot.GapQuery{Reader: rag.MustScope("everyone")})
	text := reportText(rep)
	for _, canary := range []string{"CANARY", "okonkwo@example.com", "Okonkwo"} {
		if strings.Contains(text, canary) {
			t.Errorf("the report shows %q:\n%s", canary, text)
		}
	}
	asked := 0
	var parking *bot.GapTopic
	for i, tp := range rep {
		asked += tp.Asked
		if slices.ContainsFunc(tp.Questions, func(q string) bool { return strings.Contains(q, "parking for employees") }) {
			parking = &rep[i]
		}
	}
	if asked != 4 {
		t.Errorf("the report counts %d questions, want 4 (2 public, 1 shared, 1 rated down): %+v", asked, rep)
	}
	if parking == nil || parking.Asked < 2 {
		t.Fatalf("the two public parking questions are not one topic: %+v", rep)
	}
	if !strings.Contains(text, "[person]") || !strings.Contains(text, "[email]") {
		t.Errorf("the shared question is not there masked:\n%s", text)
	}
	// Another workspace's reader sees nothing of this one.
	if rep := g.report(bot.GapQuery{Reader: rag.MustScope("everyone"), Platform: "slack", Workspace: "T2"}); len(rep) != 0 {
		t.Errorf("workspace T2's report shows T1's questions: %+v", rep)
	}
	if rep := g.report(bot.GapQuery{Reader: rag.MustScope("everyone"), Since: time.Now().Add(time.Hour)}); len(rep) != 0 {
		t.Errorf("a report from an hour ahead shows %d topics", len(rep))
	}
}

// A report names only documents its reader may read: the nearest document of an hr-only
// question is shown to hr, and to everyone else the question counts with no document named.
func TestGapReportShowsOnlyDocumentsTheReaderMayRead(t *testing.T) {
	t.Parallel()
	g := newGapEnv(t)
	ctx := context.Background()
	in := bot.Incoming{Conversation: bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "CHR", Thread: "1.1"},
		UserID: "UHR", Text: "What is the salary band for a staff engineer in Lisbon?", Scope: rag.MustScope("everyone", "hr"),
		Audience: bot.AudienceChannel, Public: true}
	out := g.h.Handle(ctx, in, nil)
	if out.AnswerID == 0 {
		t.Fatalf("not recorded: %+v", out)
	}
	if err := g.env.Bot.RecordFeedback(ctx, bot.Feedback{AnswerID: out.AnswerID, Conversation: in.Conversation, UserID: "UHR", Rating: -1}); err != nil {
		t.Fatal(err)
	}
	g.group()
	hr := g.report(bot.GapQuery{Reader: rag.MustScope("everyone", "hr")})
	if len(hr) != 1 || len(hr[0].Nearest) == 0 || !strings.Contains(reportText(hr), "alar") {
		t.Fatalf("hr's report: %+v, want the question with the salary document near it", hr)
	}
	everyone := g.report(bot.GapQuery{Reader: rag.MustScope("everyone")})
	if len(everyone) != 1 || everyone[0].Asked != 1 {
		t.Fatalf("everyone's report: %+v, want the question counted", everyone)
	}
	for _, d := range everyone[0].Nearest {
		if slices.ContainsFunc(bottest.Corpus, func(doc bottest.Doc) bool {
			return doc.Title == d.Title && !slices.Contains(doc.Groups, "everyone")
		}) {
			t.Errorf("everyone's report names %q, which only hr may read", d.Title)
		}
	}
	if rep := g.report(bot.GapQuery{Reader: rag.MustScope("everyone", "hr"), Source: "no-such-source"}); len(rep) != 0 {
		t.Errorf("--source no-such-source kept %+v", rep)
	}
}
