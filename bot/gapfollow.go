package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/citahq/cita/rag"
)

// Follow-through (docs/gaps.md): after a sync adds or changes documents, the open gap questions
// whose scopes may read a changed document are asked again. A gap that now gets a confident
// answer is resolved: the answer goes where the question was asked (the public thread) or, for a
// question its asker shared from a private place, to the asker alone; only when everyone who can
// see that place may read every source the answer uses (its scope is that audience's, computed
// by the platform now), and never more than once per question.

// OpenGap is a gap question that may now be answerable.
type OpenGap struct {
	AnswerID     int64
	Conversation ConversationKey // where it was asked
	Asker        string
	Question     string // the standalone question, as searched
	Lang         string
	// Shared: asked in a private place and shared by its asker, whose follow-up goes to the
	// asker alone; false: asked in a public channel, answered in its thread.
	Shared bool
}

// GapPlace is where a follow-up goes and who will see it.
type GapPlace struct {
	Conversation ConversationKey
	Scope        rag.Scope // what everyone who can see the place may read, now
	Audience     Audience
	Public       bool
}

// GapFollowStore finds, claims and records the follow-ups; bot/pgbot implements it.
type GapFollowStore interface {
	// OpenGaps returns the open gaps (eligible under the gap record's privacy rule, not
	// resolved, never followed up) whose scope may read a document changed at or after since,
	// oldest first, at most limit.
	OpenGaps(ctx context.Context, since time.Time, limit int) ([]OpenGap, error)
	// ChangedSince reports whether one of documentIDs changed at or after since: a follow-up
	// must owe its answer to the change (a 👎-rated answer given again is no resolution).
	ChangedSince(ctx context.Context, documentIDs []int64, since time.Time) (bool, error)
	// ClaimGapFollowUp marks a gap followed up; false when it already was (by another replica).
	ClaimGapFollowUp(ctx context.Context, answerID int64) (bool, error)
	// GapFollowUpDone records the follow-up's outcome: resolvedBy is the recorded answer that
	// was posted (0 when posting failed with postErr).
	GapFollowUpDone(ctx context.Context, answerID, resolvedBy int64, postErr error) error
	// SaveAnswer records the follow-up answer like any other (Store.SaveAnswer).
	SaveAnswer(ctx context.Context, rec *AnswerRecord) (int64, error)
}

// GapPoster is a platform's side of the follow-through; the Slack and Discord adapters
// implement it.
type GapPoster interface {
	// GapPlace says where gap's follow-up goes and what everyone there may read now; an error
	// when that cannot be known (nothing is posted, and the gap stays open).
	GapPlace(ctx context.Context, gap OpenGap) (GapPlace, error)
	// PostGapFollowUp posts out, a recorded confident answer, at place, saying it answers
	// the question asked there before.
	PostGapFollowUp(ctx context.Context, place GapPlace, gap OpenGap, out Outgoing) error
}

// GapFollowResult counts one follow-through pass.
type GapFollowResult struct {
	Asked, Resolved, Unsure, Skipped, Failed int
}

// GapFollower runs the follow-through. Construct it with NewGapFollower.
type GapFollower struct {
	store    GapFollowStore
	answerer Answerer
	posters  map[string]GapPoster
	logger   *slog.Logger
	// Limit bounds the gaps one pass asks again (default 200).
	Limit int
}

// NewGapFollower returns a follower asking answerer and posting through posters, keyed by
// platform ("slack", "discord"); a platform without one gets no follow-up.
func NewGapFollower(store GapFollowStore, answerer Answerer, posters map[string]GapPoster, logger *slog.Logger) *GapFollower {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &GapFollower{store: store, answerer: answerer, posters: posters, logger: logger, Limit: 200}
}

// Follow asks again the open gaps a change since then may answer, and posts each confident
// answer once. It returns what it did, and an error when the gaps could not be listed.
func (f *GapFollower) Follow(ctx context.Context, since time.Time) (GapFollowResult, error) {
	var res GapFollowResult
	if len(f.posters) == 0 {
		return res, nil
	}
	gaps, err := f.store.OpenGaps(ctx, since, f.Limit)
	if err != nil {
		return res, err
	}
	for _, g := range gaps {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		switch err := f.followOne(ctx, g, since, &res); {
		case errors.Is(err, errGapUnsure):
			res.Unsure++
		case errors.Is(err, errGapSkipped):
			res.Skipped++
		case err != nil:
			res.Failed++
			f.logger.WarnContext(ctx, "gap follow-up", slog.Int64("answer_id", g.AnswerID), slog.String("error", err.Error()))
		}
	}
	return res, nil
}

var (
	errGapUnsure  = errors.New("still not answered confidently")
	errGapSkipped = errors.New("no platform to post on, or followed up already")
)

func (f *GapFollower) followOne(ctx context.Context, g OpenGap, since time.Time, res *GapFollowResult) error {
	poster := f.posters[g.Conversation.Platform]
	if poster == nil {
		return errGapSkipped
	}
	place, err := poster.GapPlace(ctx, g)
	if err != nil {
		return fmt.Errorf("where to answer: %w", err) // fails closed: stays open
	}
	if place.Scope.Empty() {
		return errGapSkipped
	}
	res.Asked++
	in := Incoming{Conversation: place.Conversation, UserID: g.Asker, Text: g.Question, Scope: place.Scope,
		Audience: place.Audience, Public: place.Public, ReceivedAt: time.Now()}
	start := time.Now()
	ans, err := f.answerer.Answer(ctx, rag.Question{Text: g.Question, Scope: place.Scope}, nil)
	if err != nil {
		return fmt.Errorf("answer again: %w", err)
	}
	if ans.Abstained || ans.Hedged || len(ans.Sources) == 0 {
		return errGapUnsure
	}
	docs := make([]int64, len(ans.Sources))
	for i, s := range ans.Sources {
		docs[i] = s.DocumentID
	}
	if changed, err := f.store.ChangedSince(ctx, docs, since); err != nil {
		return fmt.Errorf("check the sources changed: %w", err)
	} else if !changed {
		return errGapUnsure // the answer does not come from the change
	}
	claimed, err := f.store.ClaimGapFollowUp(ctx, g.AnswerID)
	if err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if !claimed {
		return errGapSkipped
	}
	lang := ans.Lang
	if lang == "" {
		lang = g.Lang
	}
	rec := newAnswerRecord(in, ans, ReasonNone, ans.Text, lang, time.Since(start))
	id, err := f.store.SaveAnswer(ctx, rec)
	if err != nil {
		_ = f.store.GapFollowUpDone(ctx, g.AnswerID, 0, err)
		return fmt.Errorf("record the follow-up: %w", err)
	}
	out := Outgoing{Text: ans.Text, Lang: lang, Sources: ans.Sources, AnswerID: id, Answer: ans}
	postErr := poster.PostGapFollowUp(ctx, place, g, out)
	resolvedBy := id
	if postErr != nil {
		resolvedBy = 0
	}
	if err := f.store.GapFollowUpDone(ctx, g.AnswerID, resolvedBy, postErr); err != nil {
		return fmt.Errorf("record the outcome: %w", err)
	}
	if postErr != nil {
		return fmt.Errorf("post: %w", postErr)
	}
	res.Resolved++
	f.logger.InfoContext(ctx, "gap resolved", slog.Int64("answer_id", g.AnswerID), slog.Int64("follow_up_id", id),
		slog.String("platform", g.Conversation.Platform), slog.Bool("shared", g.Shared))
	return nil
}

// GapFollowUpIntro is the line a follow-up starts with, in lang: in the thread it was asked in,
// it points up; to the asker who shared it, it quotes the question.
func GapFollowUpIntro(lang, question string, shared bool) string {
	switch {
	case shared && lang == "es":
		return fmt.Sprintf("Preguntaste «%s» y no pude responder. Nuestra documentación ya lo responde:", question)
	case shared:
		return fmt.Sprintf("You asked \"%s\" and I couldn't answer. Our documentation now does:", question)
	case lang == "es":
		return "Nuestra documentación ya responde a la pregunta de este hilo:"
	default:
		return "Our documentation now answers the question in this thread:"
	}
}
