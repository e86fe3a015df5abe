package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/glossary"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/generate"
	"github.com/citahq/cita/rag/openai"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/rerank"
	"github.com/citahq/cita/rag/rewrite"
)

// pipeline wires the answering pipeline for the configured models: with a chat endpoint, the
// model writes cited answers and rewrites follow-ups; without one, the extractive composer and
// the offline rewriter answer offline. With chat.agent the model may search and read documents
// up to chat.max_steps times before it answers (falling back to one search when it cannot call
// tools). The reranker and the answer cache are added when the configuration enables them
// (cache.enabled defaults to on).
func (a *app) pipeline(_ context.Context, e *env, adjust ...func(*rag.PipelineOptions)) (*rag.Pipeline, error) {
	chat, err := a.chatModel(e)
	if err != nil {
		return nil, err
	}
	rw := rewriterFor(chat, e)
	var composer rag.Composer = rag.Extractive{}
	// The extractive composer reads every retrieved hit (it spends no tokens); a model gets the
	// strongest five within its token budget.
	opts := rag.PipelineOptions{Logger: e.logger, MaxSources: 8, MinEvidence: a.cfg.Answers.MinEvidence,
		ConfidentEvidence: a.cfg.Answers.ConfidentEvidence, MaxQuestionChars: a.cfg.Answers.MaxQuestionChars}
	if chat != nil {
		composer = generate.NewLLMComposer(chat)
		opts.MaxSources = 0
		// A model silent for chat.timeout: the same sources are answered offline, labelled.
		opts.ModelTimeout, opts.FallbackComposer, opts.AgentSteps = a.cfg.Chat.Timeout, rag.Extractive{}, a.cfg.Chat.MaxSteps
	}
	if chat != nil && a.cfg.Chat.Agent {
		opts.Agent = generate.NewAgent(chat, a.search, a.store, generate.AgentOptions{MaxSteps: a.cfg.Chat.MaxSteps, Logger: e.logger})
	}
	if r := a.cfg.Rerank; r.BaseURL != "" {
		client, err := rerank.New(rerank.Config{BaseURL: r.BaseURL, APIKey: r.APIKey, Model: r.Model, Flavor: r.Flavor,
			Timeout: r.Timeout, Logger: e.logger})
		if err != nil {
			return nil, fmt.Errorf("reranker: %w", err)
		}
		opts.Reranker, opts.RerankTopN, opts.RerankTimeout = client, r.TopN, r.Timeout
	}
	if a.cfg.Cache.On() {
		opts.Cache = pgstore.NewCache(a.pool, pgstore.CacheOptions{TTL: a.cfg.Cache.TTL, AbstainTTL: a.cfg.Cache.AbstainTTL,
			Variant: cacheVariant(a.cfg, a.embedder.Info(), a.translator.name, currentVersions(), a.glossary)}, e.logger)
	}
	for _, f := range adjust {
		f(&opts)
	}
	return rag.NewPipeline(a.search, composer, rw, opts), nil
}

// composerVersions names the versions of what writes an answer: the chat system prompt, the
// agent's instructions and tools, and the extractive composer's behaviour.
type composerVersions struct {
	Prompt, AgentPrompt, Extractive string
}

// currentVersions are this build's composer versions.
func currentVersions() composerVersions {
	return composerVersions{Prompt: generate.PromptVersion, AgentPrompt: generate.AgentPromptVersion, Extractive: rag.ExtractiveVersion}
}

// cacheVariant names everything besides the question, the scope and the documents that changes
// an answer: the composer (the extractive composer's version, or the chat endpoint, model and
// prompt version), the reranker, the thresholds of the three kinds of reply
// (answers.min_evidence and answers.confident_evidence, the defaults when unset), the embedding
// model and dimension, the query translator and the glossaries (an entry changed in the
// configuration takes effect at once). Answers cached under another variant are never served.
// Parts are length-prefixed, so no value can pose as another part. A new setting that changes
// what an answer says belongs here too (see docs/configuration.md); one that only changes how a
// reply is shown does not.
func cacheVariant(cfg *config.Config, emb rag.EmbedderInfo, translator string, v composerVersions, org *glossary.Glossary) string {
	parts := []string{"extractive", v.Extractive}
	if cfg.Chat.BaseURL != "" {
		parts = []string{"chat", cfg.Chat.BaseURL, cfg.Chat.Model, v.Prompt}
		if cfg.Chat.Agent {
			parts = append(parts, "agent", strconv.Itoa(cfg.Chat.MaxSteps), v.AgentPrompt)
		}
	}
	if r := cfg.Rerank; r.BaseURL != "" {
		parts = append(parts, "rerank", r.BaseURL, r.Flavor, r.Model)
	}
	minEvidence := cfg.Answers.MinEvidence
	if minEvidence == 0 {
		minEvidence = rag.DefaultMinEvidence
	}
	confident := cfg.Answers.ConfidentEvidence
	if confident == 0 {
		confident = rag.DefaultConfidentEvidence
	}
	parts = append(parts, "min_evidence", strconv.FormatFloat(minEvidence, 'g', -1, 64),
		"confident_evidence", strconv.FormatFloat(max(confident, minEvidence), 'g', -1, 64))
	parts = append(parts, "embed", emb.Model, strconv.Itoa(emb.Dimension), "translate", translator,
		"glossary", glossary.Fingerprint(glossary.Builtin(), org))
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%d:%s;", len(p), p)
	}
	return b.String()
}

// answerTimeout bounds one whole answer in the bots: 90 s, or more when chat.timeout leaves the
// model longer (the rewrite, the agent's steps and the composing are each bounded by it).
func answerTimeout(cfg *config.Config) time.Duration {
	if cfg.Chat.BaseURL == "" {
		return 0 // the handler's default
	}
	calls := 3
	if cfg.Chat.Agent {
		calls += cfg.Chat.MaxSteps + 1
	}
	return max(90*time.Second, time.Duration(calls)*cfg.Chat.Timeout)
}

// rewriter returns the follow-up rewriter for the configured models (see rewriterFor).
func (a *app) rewriter(_ context.Context, e *env) (rag.Rewriter, error) {
	chat, err := a.chatModel(e)
	if err != nil {
		return nil, err
	}
	return rewriterFor(chat, e), nil
}

// rewriterFor is the model's rewriter when there is a chat model (it falls back to the offline
// one on error), else the offline one.
func rewriterFor(chat *openai.Chat, e *env) rag.Rewriter {
	if chat != nil {
		return rewrite.NewLLM(chat, e.logger)
	}
	return rewrite.Offline{}
}

// chatModel returns the configured OpenAI-compatible chat model, or nil when none is configured.
func (a *app) chatModel(e *env) (*openai.Chat, error) {
	c := a.cfg.Chat
	if c.BaseURL == "" {
		return nil, nil
	}
	chat, err := openai.NewChat(openai.Config{BaseURL: c.BaseURL, APIKey: c.APIKey, ChatModel: c.Model, Logger: e.logger})
	if err != nil {
		return nil, fmt.Errorf("chat model: %w", err)
	}
	return chat, nil
}
