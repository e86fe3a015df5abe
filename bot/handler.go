package bot

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/citahq/cita/internal/keyrate"
	"github.com/citahq/cita/rag"
)

// HandlerOptions tunes a Handler; the zero value works.
type HandlerOptions struct {
	// HistoryTurns is how many earlier turns of the thread reach the pipeline; default 6.
	HistoryTurns int
	// RateLimit is the per-user question rate; zero means DefaultRateLimit.
	RateLimit RateLimit
	// WorkspaceRateLimit is the question rate of a whole workspace (Slack team, Discord guild);
	// zero means no workspace limit.
	WorkspaceRateLimit RateLimit
	// Queue bounds the answers in progress; nil means NewQueue(DefaultWorkers, DefaultQueueSize).
	Queue *Queue
	// Observer, when set, is told the outcome of every turn (metrics).
	Observer Observer
	// AnswerTimeout bounds one answer; default 90 s.
	AnswerTimeout time.Duration
	// IndexEmpty, when set, is asked after a "no_results" abstention so the reply can say that
	// nothing is indexed at all rather than "not found".
	IndexEmpty func(ctx context.Context) (bool, error)
	Logger     *slog.Logger
	Now        func() time.Time
}

// Handler turns an Incoming turn into an Outgoing reply. It is safe for concurrent use and
// shared by every platform adapter.
type Handler struct {
	answerer Answerer
	store    Store
	limiter  *keyrate.Limiter
	teams    *keyrate.Limiter // nil: no workspace limit
	queue    *Queue
	opts     HandlerOptions
	logger   *slog.Logger
}

// NewHandler returns a Handler answering with answerer and remembering in store.
func NewHandler(answerer Answerer, store Store, opts HandlerOptions) *Handler {
	if opts.HistoryTurns <= 0 {
		opts.HistoryTurns = 6
	}
	if opts.AnswerTimeout <= 0 {
		opts.AnswerTimeout = 90 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Queue == nil {
		opts.Queue = NewQueue(DefaultWorkers, DefaultQueueSize)
	}
	h := &Handler{answerer: answerer, store: store, limiter: newUserLimiter(opts.RateLimit), queue: opts.Queue, opts: opts, logger: opts.Logger}
	if opts.WorkspaceRateLimit.PerMinute > 0 {
		h.teams = newUserLimiter(opts.WorkspaceRateLimit)
	}
	return h
}

// Queue returns the handler's answer queue (for metrics and tests).
func (h *Handler) Queue() *Queue { return h.queue }

// Observer is told the outcome of every turn a Handler handles; internal/metrics implements it.
type Observer interface {
	// ObserveTurn receives the reply and the time from the event reaching cita to the reply.
	ObserveTurn(platform string, out Outgoing, took time.Duration)
}

// Store returns the handler's store, for adapters that dedupe events and record feedback.
func (h *Handler) Store() Store { return h.store }

// Handle answers in. It never fails silently: every outcome is an answer, an abstention or a
// reply carrying a Reason; errors are logged here, once. onDelta, when non-nil, receives the
// answer's text as it streams (not the reason texts).
func (h *Handler) Handle(ctx context.Context, in Incoming, onDelta func(string)) Outgoing {
	if in.ReceivedAt.IsZero() {
		in.ReceivedAt = h.opts.Now()
	}
	out := h.recovered(ctx, in, onDelta)
	if h.opts.Observer != nil {
		h.opts.Observer.ObserveTurn(in.Conversation.Platform, out, h.opts.Now().Sub(in.ReceivedAt))
	}
	return out
}

// recovered is handle, turning a panic (a bug in the pipeline or a store) into a logged stack and
// an internal_error reply, so one broken question neither ends the server nor goes unanswered.
// The queue's worker is given back by handle's deferred release while the panic unwinds.
func (h *Handler) recovered(ctx context.Context, in Incoming, onDelta func(string)) (out Outgoing) {
	defer func() {
		if p := recover(); p != nil {
			LogPanic(ctx, h.logger, "panic while answering", p, slog.String("platform", in.Conversation.Platform),
				slog.String("channel_id", in.Conversation.Channel), slog.String("user_id", in.UserID))
			lang := rag.AnswerLang(in.Text)
			out = Outgoing{Text: ReasonText(lang, ReasonInternalError), Lang: lang, Reason: ReasonInternalError}
		}
	}()
	return h.handle(ctx, in, onDelta)
}

func (h *Handler) handle(ctx context.Context, in Incoming, onDelta func(string)) Outgoing {
	start := in.ReceivedAt
	in.Text = rag.CleanQuestion(in.Text) // what is searched is what is stored
	lang := rag.AnswerLang(in.Text)
	attrs := []any{slog.String("platform", in.Conversation.Platform), slog.String("channel_id", in.Conversation.Channel),
		slog.String("thread_id", in.Conversation.Thread), slog.String("user_id", in.UserID)}
	reply := func(r Reason, args ...any) Outgoing {
		h.logger.InfoContext(ctx, "not answered", append(attrs, slog.String("reason", string(r)))...)
		return Outgoing{Text: ReasonText(lang, r, args...), Lang: lang, Reason: r}
	}
	if in.Text == "" {
		return reply(ReasonEmptyQuestion)
	}
	if !h.limiter.Allow(in.Conversation.Platform+":"+in.Conversation.Workspace+":"+in.UserID, h.opts.Now()) {
		return reply(ReasonRateLimited)
	}
	if h.teams != nil && !h.teams.Allow(in.Conversation.Platform+":"+in.Conversation.Workspace, h.opts.Now()) {
		return reply(ReasonWorkspaceRateLimited)
	}
	if in.Scope.Empty() {
		if in.Audience == AudienceChannel {
			return reply(ReasonNoCommonGroup)
		}
		return reply(ReasonNoGroup)
	}
	release, err := h.queue.Acquire(ctx, in.Queued)
	if err != nil {
		var full *QueueFullError
		if errors.As(err, &full) {
			return reply(ReasonBusy, full.Waiting+1)
		}
		return reply(ReasonModelFailure) // the caller gave up while waiting in line
	}
	defer release()
	var history []rag.Turn
	if !in.Ephemeral {
		var err error
		history, err = h.store.RecentTurns(ctx, in.Conversation, in.Scope, h.opts.HistoryTurns)
		if err != nil { // answer without memory rather than not at all
			h.logger.ErrorContext(ctx, "load conversation memory", append(attrs, slog.Any("error", err))...)
		}
	}
	actx, cancel := context.WithTimeout(ctx, h.opts.AnswerTimeout)
	defer cancel()
	// Nothing of the answer is shown before it is recorded with what reached it.
	recorder := &answerRecorder{store: h.store, in: in, lang: lang}
	q := rag.Question{Text: in.Text, History: history, Scope: in.Scope, Consulted: recorder.consult}
	ans, err := h.answerer.Answer(actx, q, recorder.deltas(actx, onDelta))
	reserved, consulted, rerr := recorder.result()
	if rerr != nil {
		h.logger.ErrorContext(ctx, "record answer before showing it", append(attrs, slog.Any("error", rerr))...)
		return reply(ReasonNotRecorded)
	}
	if err != nil {
		if errors.Is(err, rag.ErrNoScope) {
			return reply(ReasonNoGroup)
		}
		h.logger.ErrorContext(ctx, "answer question", append(attrs, slog.Any("error", err))...)
		if actx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return reply(ReasonTimeout, h.opts.AnswerTimeout.Truncate(time.Millisecond))
		}
		return reply(ReasonModelFailure)
	}
	out := Outgoing{Text: ans.Text, Lang: ans.Lang, Sources: ans.Sources, Abstained: ans.Abstained,
		AbstainReason: ans.AbstainReason, Hedged: ans.Hedged, Answer: ans}
	if out.Lang == "" {
		out.Lang = lang
	}
	reason := ReasonNone
	if ans.Abstained && ans.AbstainReason == "no_results" && h.opts.IndexEmpty != nil {
		if empty, err := h.opts.IndexEmpty(ctx); err == nil && empty {
			reason = ReasonEmptyIndex
			out.Text, out.Reason = ReasonText(out.Lang, ReasonEmptyIndex), ReasonEmptyIndex
		}
	}
	rec := newAnswerRecord(in, ans, reason, out.Text, out.Lang, h.opts.Now().Sub(start))
	rec.ID, rec.Consulted = reserved, append(rec.Consulted, consulted...)
	// The reply is owed even when the caller gives up: record it with a context of its own.
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer scancel()
	id, err := h.store.SaveAnswer(sctx, rec)
	if err != nil {
		// Not shown: an answer that is not recorded could never be withdrawn.
		h.logger.ErrorContext(ctx, "record answer", append(attrs, slog.Any("error", err))...)
		return reply(ReasonNotRecorded)
	}
	out.AnswerID = id
	out.ShareGap = reason == ReasonNone && (ans.Abstained || ans.Hedged) && !(in.Public && !in.Ephemeral)
	h.logger.InfoContext(ctx, "answered", append(attrs, slog.Int64("answer_id", id), slog.Bool("abstained", ans.Abstained),
		slog.Int("citations", len(ans.Sources)), slog.Int("history_turns", len(history)), slog.Duration("took", rec.Total))...)
	return out
}
