package bot_test

import (
	"context"
	"testing"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/rag"
)

// TestRecordNamesOnlyCitedHits: the stored record of an answer keeps the names (title, heading,
// path, ids) of the hits it cited only; the other hits keep their ranks and score (issue 12,
// finding 9: "How I answered" listed top-hit headings beyond the cited ones).
func TestRecordNamesOnlyCitedHits(t *testing.T) {
	t.Parallel()
	env := bottest.New(t)
	h := bot.NewHandler(env.Pipeline, env.Bot, bot.HandlerOptions{})
	ctx := context.Background()
	out := h.Handle(ctx, bot.Incoming{Conversation: conv, UserID: "UHR", Text: "What is the base salary of band B7?",
		Scope: rag.MustScope("everyone", "hr")}, nil)
	if !out.FromPipeline() || len(out.Sources) == 0 {
		t.Fatalf("answer: %+v", out)
	}
	stored, err := env.Bot.LoadAnswer(ctx, out.AnswerID)
	if err != nil {
		t.Fatal(err)
	}
	cited := map[int64]bool{}
	for _, s := range stored.Sources {
		cited[s.ChunkID] = true
	}
	var named, unnamed int
	for _, hit := range stored.TopHits {
		switch {
		case hit.Cited && cited[hit.ChunkID] && hit.Heading != "":
			named++
		case !hit.Cited && hit.ChunkID == 0 && hit.DocumentID == 0 && hit.Title == "" && hit.Heading == "" && hit.Path == "" &&
			(hit.FTSRank > 0 || hit.VectorRank > 0):
			unnamed++
		default:
			t.Errorf("stored hit %+v: a cited hit must be named, an uncited one must keep only its ranks", hit)
		}
	}
	if named == 0 || unnamed == 0 {
		t.Fatalf("%d named and %d unnamed hits in %+v; want both kinds", named, unnamed, stored.TopHits)
	}
}
