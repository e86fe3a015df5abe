package rag

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/citahq/cita/rag/lang"
)

// Turn is one earlier message of a conversation.
type Turn struct {
	Role string // "user" or "assistant"
	Text string
	// Abstained marks an assistant turn that said the documentation does not cover the
	// question (or gave a reason instead of an answer): its words (a referral's name, "not
	// found") are not what the conversation is about, so rewriters skip it.
	Abstained bool
}

// Informative returns the turns a follow-up rewriter may draw from: all but abstentions.
func Informative(history []Turn) []Turn {
	out := make([]Turn, 0, len(history))
	for _, t := range history {
		if t.Role == "assistant" && t.Abstained {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Question is one turn to answer: the latest message, the thread's earlier turns and the scope
// of everyone who will see the answer.
type Question struct {
	Text    string
	History []Turn
	Scope   Scope
	// Consulted, when set, is told the passages about to reach the reply, before they do: the
	// sources given to the composer, the top hit whose owner an abstention names, every passage
	// an agent's tools returned (before its text is sent), and a cached answer's passages
	// (before its text is sent). The caller records them (an answer is shown only once what it
	// depends on is recorded); an error stops the answer, and Answer returns it wrapped.
	Consulted func(ctx context.Context, hits []Hit) error
}

// Rewriter turns a follow-up into a standalone query using the earlier turns.
type Rewriter interface {
	Rewrite(ctx context.Context, question string, history []Turn) (string, error)
}

// Rewritten is a standalone query and, when the rewriter wrote it too, the same query in the
// other language (Spanish or English).
type Rewritten struct {
	Query       string
	Translation string
}

// TranslatingRewriter is a Rewriter that can also write the standalone query in the other
// language in the same step (the model rewriter does, in one call). The pipeline searches both
// under the same scope.
type TranslatingRewriter interface {
	RewriteTranslated(ctx context.Context, question string, history []Turn) (Rewritten, error)
}

// PipelineOptions tunes retrieval, context assembly and abstention.
type PipelineOptions struct {
	Retrieve      int // hits retrieved; default 8
	MaxSources    int // sources given to the composer; default 5
	ContextTokens int // token budget for the sources' text; default 2500
	// MaxQuestionChars is the longest question searched; a longer one gets a reason that names
	// the limit. Default DefaultMaxQuestionChars.
	MaxQuestionChars int
	MinEvidence      float64 // abstain below this answer-support score (see Support); default DefaultMinEvidence
	// ConfidentEvidence is where the offline answerer's uncertain band ends: between
	// MinEvidence and it, and above it when the passages do not say what the question is
	// about (see replyBand), the reply gives the closest passages as possibly not answering
	// (Answer.Hedged). Default DefaultConfidentEvidence, never below MinEvidence.
	ConfidentEvidence float64

	// Cache, when set, answers a repeated standalone query under the same scope from stored
	// answers and stores fresh ones; nil means no cache.
	Cache AnswerCache
	// Reranker, when set, reorders the RerankTopN best fused hits before the relevance guard,
	// keeping the fused order when it fails or takes longer than RerankTimeout; nil means the
	// fused order.
	Reranker      Reranker
	RerankTopN    int           // hits retrieved and reranked; default DefaultRerankTopN
	RerankTimeout time.Duration // default DefaultRerankTimeout
	// Agent, when set, answers by letting the model search and read documents several times
	// (agent mode); when it falls back (see ErrAgentFallback) the question gets the single
	// search below. nil means single-shot.
	Agent Agent
	// ModelTimeout bounds the chat model's silence: composing must produce a word within it (of
	// the start, then of the last word), the follow-up rewrite must finish within it and an
	// agent answer within MaxSteps times it. Past it, FallbackComposer answers from the same
	// sources, labelled (Answer.ModelTimedOut). Zero, or no FallbackComposer, means no bound.
	ModelTimeout     time.Duration
	FallbackComposer Composer
	// AgentSteps is the agent's step budget (chat.max_steps), which bounds an agent answer at
	// AgentSteps+1 times ModelTimeout; default 4.
	AgentSteps int
	// Logger receives cache and rerank failures; nil means slog.Default().
	Logger *slog.Logger
}

func (o PipelineOptions) withDefaults() PipelineOptions {
	if o.Retrieve <= 0 {
		o.Retrieve = 8
	}
	if o.MaxSources <= 0 {
		o.MaxSources = 5
	}
	if o.ContextTokens <= 0 {
		o.ContextTokens = 2500
	}
	if o.MinEvidence == 0 {
		o.MinEvidence = DefaultMinEvidence
	}
	if o.ConfidentEvidence == 0 {
		o.ConfidentEvidence = DefaultConfidentEvidence
	}
	o.ConfidentEvidence = max(o.ConfidentEvidence, o.MinEvidence)
	if o.MaxQuestionChars <= 0 {
		o.MaxQuestionChars = DefaultMaxQuestionChars
	}
	if o.AgentSteps <= 0 {
		o.AgentSteps = 4
	}
	if o.RerankTopN <= 0 {
		o.RerankTopN = DefaultRerankTopN
	}
	if o.RerankTimeout <= 0 {
		o.RerankTimeout = DefaultRerankTimeout
	}
	return o
}

// DefaultMinEvidence is the relevance guard's threshold on Support's score, calibrated with
// `cita eval --answers` on handbook sets: the highest threshold that keeps false refusals at
// about 5% (see docs/answer-quality.md, "Answering quality").
const DefaultMinEvidence = 0.20

// Pipeline answers questions: rewrite -> cache lookup -> hybrid search -> optional rerank ->
// guard -> assemble -> compose -> verify citations -> cache store. It is shared by the CLI and
// the chat adapters.
type Pipeline struct {
	searcher Searcher
	composer Composer
	rewriter Rewriter // nil: questions are searched as they are
	opts     PipelineOptions
	logger   *slog.Logger
}

// NewPipeline returns a pipeline. rewriter may be nil.
func NewPipeline(searcher Searcher, composer Composer, rewriter Rewriter, opts PipelineOptions) *Pipeline {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Pipeline{searcher: searcher, composer: composer, rewriter: rewriter, opts: opts.withDefaults(), logger: logger}
}

// Answer answers q. It returns ErrNoScope for an empty scope; an abstention is an Answer with
// Abstained set, not an error. With a cache, a repeated standalone query under the same scope is
// answered from it (Cached set, its text sent to onDelta once); cache failures are logged, never
// returned.
func (p *Pipeline) Answer(ctx context.Context, q Question, onDelta func(string)) (*Answer, error) {
	if q.Scope.Empty() {
		return nil, ErrNoScope
	}
	q.Text = CleanQuestion(q.Text)
	ans := &Answer{Question: q.Text, StandaloneQuery: q.Text, Lang: AnswerLang(q.Text), Timings: map[string]time.Duration{},
		onConsulted: q.Consulted}
	if reason := notSearchable(q.Text, p.opts.MaxQuestionChars); reason != "" {
		// Not searched, not rewritten from the thread, not cached: a reason, in the thread's
		// language when the message has no words of its own.
		if reason == AbstainNotAQuestion {
			ans.Lang = threadLang(q.History)
		}
		ans.Abstained, ans.AbstainReason = true, reason
		ans.Text = unsearchableText(reason, ans.Lang, p.opts.MaxQuestionChars)
		if onDelta != nil {
			onDelta(ans.Text)
		}
		return ans, nil
	}
	var translation string
	if history := Informative(q.History); p.rewriter != nil && len(history) > 0 {
		start := time.Now()
		rctx, cancel, timedOut := p.boundedModelContext(ctx, 1)
		rw, err := p.rewrite(rctx, q.Text, history)
		cancel()
		ans.Timings["rewrite"] = time.Since(start)
		ans.ModelTimedOut = timedOut()
		if err != nil {
			return nil, fmt.Errorf("rewrite follow-up: %w", err)
		}
		ans.StandaloneQuery, translation = rw.Query, rw.Translation
	}
	// Everything after the rewrite depends only on the standalone query, the scope and the
	// language, so a follow-up is cached under its standalone query.
	key := NewCacheKey(ans.StandaloneQuery, q.Scope, ans.Lang)
	// The period the question names (none: now) decides which documents may be cited; it
	// depends on the standalone query only, which the key holds.
	q.Scope = q.Scope.WithPeriod(QuestionPeriod(ans.StandaloneQuery, time.Now()))
	if hit, err := p.cacheLookup(ctx, key, ans, onDelta); hit != nil || err != nil {
		return hit, err
	}
	if err := p.answerFresh(ctx, q.Scope, ans, translation, onDelta); err != nil {
		return nil, err
	}
	if !ans.ModelTimedOut { // the offline stand-in is not what the model would have cached
		p.cacheStore(ctx, key, ans)
	}
	return ans, nil
}

// rewrite runs the rewriter, asking a TranslatingRewriter for the translation too.
func (p *Pipeline) rewrite(ctx context.Context, question string, history []Turn) (Rewritten, error) {
	if tr, ok := p.rewriter.(TranslatingRewriter); ok {
		return tr.RewriteTranslated(ctx, question, history)
	}
	q, err := p.rewriter.Rewrite(ctx, question, history)
	return Rewritten{Query: q}, err
}

// answerFresh searches, guards, composes and verifies ans.StandaloneQuery under scope, filling
// in ans; translation, when the rewriter wrote one, is searched too. An abstention is a
// filled-in ans, not an error.
func (p *Pipeline) answerFresh(ctx context.Context, scope Scope, ans *Answer, translation string, onDelta func(string)) error {
	if p.opts.Agent != nil && !ans.ModelTimedOut {
		done, err := p.answerAgent(ctx, scope, ans, onDelta)
		if done || err != nil {
			return err
		}
	}
	limit := p.opts.Retrieve
	if p.opts.Reranker != nil {
		limit = max(limit, p.opts.RerankTopN)
	}
	start := time.Now()
	ans.SearchedAt = start
	res, err := p.searcher.Search(ctx, SearchRequest{Query: ans.StandaloneQuery, Translation: translation, Scope: scope, Limit: limit})
	ans.Timings["search"] = time.Since(start)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	p.rerank(ctx, ans.StandaloneQuery, res, ans.Timings)
	ans.Search = res
	if len(res.Hits) == 0 {
		abstain(ans, "no_results", "", onDelta)
		return nil
	}
	sources, dropped := AssembleSources(res.Hits, p.opts.MaxSources, p.opts.ContextTokens)
	// The composer reads every source, and an abstention names the top hit's owner.
	if err := ans.consult(ctx, append(sourceHits(sources), res.Hits[0])); err != nil {
		return err
	}
	ans.Dropped = dropped
	// A question answered by passages in the other language is judged, and quoted, by its
	// translation too.
	req := ComposeRequest{Question: ans.StandaloneQuery, Lang: ans.Lang, Sources: sources,
		Translation: res.Trace.Translated, TranslationLang: res.Trace.TranslatedLang, Bridges: res.Trace.Bridges, Unknown: res.Trace.Unknown}.withReading()
	ans.Expect = req.reading.expect
	support := Support(req)
	ans.Evidence, ans.Missing, ans.MissingShare = support.Score, support.Missing, support.MissingShare
	ans.UnknownNames, ans.Answerability = support.UnknownNames, support.Answerability
	ans.UnknownWords = support.UnknownWords
	// A model reads the passages and judges whether they answer: the lexical guard only skips
	// the hopeless ones then. Offline, it decides.
	modelJudges := judges(p.composer) && !ans.ModelTimedOut
	threshold := p.opts.MinEvidence
	if modelJudges {
		threshold = min(threshold, PreFilterEvidence)
	}
	ans.Threshold = threshold
	if ans.Evidence < threshold {
		abstain(ans, "weak_evidence", res.Hits[0].Owner, onDelta)
		return nil
	}
	if !modelJudges {
		// Offline, the reply's kind is decided from the same reading the composer quotes from.
		ans.ConfidentThreshold = p.opts.ConfidentEvidence
		if why := replyBand(support, p.opts.ConfidentEvidence); why != "" {
			ans.Hedged, ans.HedgeReason = true, why
			onDelta = hedgedDeltas(ans.Lang, onDelta)
			req.keyFirst = why == HedgeKeyNotLocal
		}
	}
	start = time.Now()
	comp, err := p.composeBounded(ctx, req, ans, ans.ModelTimedOut, onDelta)
	ans.Timings["generate"] = time.Since(start)
	if err != nil {
		return fmt.Errorf("compose answer: %w", err)
	}
	text, cited, invalid, done, err := p.checkComposition(ctx, req, ans, comp, modelJudges, onDelta)
	if done || err != nil {
		return err
	}
	if len(invalid) > 0 {
		ans.AbstainReason = fmt.Sprintf("removed citations to unknown sources %v", invalid)
	}
	ans.Text, ans.Sources = text, cited
	if ans.Hedged {
		ans.Text = HedgeText(ans.Lang, text, res.Hits[0].Owner)
	}
	for i, q := range ans.Quotes {
		for _, s := range cited {
			if s.ChunkID == q.ChunkID {
				ans.Quotes[i].N = s.N
			}
		}
	}
	return nil
}

func abstain(ans *Answer, reason, owner string, onDelta func(string)) *Answer {
	ans.Abstained = true
	ans.AbstainReason = reason
	ans.Text = NotFoundText(ans.Lang, owner)
	ans.Sources = nil
	if onDelta != nil {
		onDelta(ans.Text)
	}
	return ans
}

// AnswerLang is the language to answer a question in: Spanish or English, English when unsure.
// A short question is judged by the words it leans on ("and in Bogotá?" is English).
func AnswerLang(question string) string {
	switch lang.Detect(question) {
	case lang.Spanish:
		return "es"
	case lang.English:
		return "en"
	}
	if lang.Lean(question) == lang.Spanish {
		return "es"
	}
	return "en"
}

// threadLang is the language of the thread's latest user turn ("en" when none has words).
func threadLang(history []Turn) string {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == "user" && notSearchable(history[i].Text, DefaultMaxQuestionChars) == "" {
			return AnswerLang(history[i].Text)
		}
	}
	return "en"
}
