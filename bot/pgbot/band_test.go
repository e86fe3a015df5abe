package pgbot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// A hedged reply is recorded as such, with why and the thresholds it was judged against, and
// "How I answered" gets them back; it is never suggested to others as a popular question.
func TestHedgedReplyIsRecordedWithItsBand(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	ctx := context.Background()
	vac := docID(t, env, "vacation.md")
	rec := &bot.AnswerRecord{Conversation: thread, AskerID: "U1", Question: "bike to work?", StandaloneQuery: "bike to work?",
		Text: "I'm not sure this answers your question.", ScopeGroups: []string{"everyone"}, Public: true,
		Hedged: true, HedgeReason: rag.HedgeUnknownWord, MinEvidence: 0.2, ConfidentEvidence: 0.35, Evidence: 0.41,
		Sources: []bot.SourceRef{{N: 1, ChunkID: 100, DocumentID: vac, DocVersion: 1, Title: "t", Path: "p"}}}
	rec.Consulted = rec.Sources
	id, err := env.Bot.SaveAnswer(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := env.Bot.LoadTrace(ctx, id, bot.Viewer{Conversation: thread, UserID: "U2", Scope: rag.MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Hedged || got.HedgeReason != rag.HedgeUnknownWord || got.MinEvidence != 0.2 || got.ConfidentEvidence != 0.35 {
		t.Errorf("trace %+v lost the hedge or its thresholds", got)
	}
	if band := bot.BandText(got); !strings.Contains(band, "not found below 0.20, unsure below 0.35") {
		t.Errorf("band text %q", band)
	}
	// Two people asked each question in a public channel; the hedged one is not suggested.
	pub := bot.ConversationKey{Platform: "slack", Workspace: "T1", Channel: "CPUB"}
	for _, asker := range []string{"U1", "U2"} {
		for _, hedged := range []bool{true, false} {
			q := map[bool]string{true: "can I bring my bike to work?", false: "how many vacation days do I get?"}[hedged]
			r := &bot.AnswerRecord{Conversation: pub, AskerID: asker, Question: q, StandaloneQuery: q, Text: "…",
				ScopeGroups: []string{"everyone"}, Public: true, Hedged: hedged,
				Sources: []bot.SourceRef{{N: 1, ChunkID: 100, DocumentID: vac, DocVersion: 1, Title: "t", Path: "p"}}}
			r.Consulted = r.Sources
			if _, err := env.Bot.SaveAnswer(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	popular, err := env.Bot.PopularQuestions(ctx, "slack", "T1", rag.MustScope("everyone"), 10)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(popular, "|")
	if strings.Contains(joined, "bike") || !strings.Contains(joined, "vacation") {
		t.Errorf("suggested %q: want the answered question, not the hedged one", popular)
	}
}
