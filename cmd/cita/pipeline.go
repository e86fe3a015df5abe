package main

import (
	"context"
	"fmt"

	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/generate"
	"github.com/citahq/cita/rag/openai"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/rerank"
	"github.com/citahq/cita/rag/rewrite"
)

// pipeline wires the answering pipeline for the configured models: with a chat endpoint, the
// model writes cited answers and rewrites follow-ups; without one, the extractive composer and
// the offline rewriter answer offline. The reranker and the answer cache are added when the
// configuration enables them (cache.enabled defaults to on).
func (a *app) pipeline(_ context.Context, e *env) (*rag.Pipeline, error) {
	chat, err := a.chatModel(e)
	if err != nil {
		return nil, err
	}
	rw := rewriterFor(chat, e)
	var composer rag.Composer = rag.Extractive{}
	variant := "extractive"
	if chat != nil {
		composer = generate.NewLLMComposer(chat)
		variant = "chat:" + a.cfg.Chat.Model
	}
	opts := rag.PipelineOptions{Logger: e.logger}
	if r := a.cfg.Rerank; r.BaseURL != "" {
		client, err := rerank.New(rerank.Config{BaseURL: r.BaseURL, APIKey: r.APIKey, Model: r.Model, Flavor: r.Flavor,
			Timeout: r.Timeout, Logger: e.logger})
		if err != nil {
			return nil, fmt.Errorf("reranker: %w", err)
		}
		opts.Reranker, opts.RerankTopN, opts.RerankTimeout = client, r.TopN, r.Timeout
		variant += " rerank:" + r.Flavor + "/" + r.Model
	}
	if a.cfg.Cache.On() {
		// The variant keeps answers of another model, embedder, reranker or translator from
		// being served.
		variant += " embed:" + a.embedder.Info().Model + " translate:" + a.translator.name
		opts.Cache = pgstore.NewCache(a.pool, pgstore.CacheOptions{TTL: a.cfg.Cache.TTL, AbstainTTL: a.cfg.Cache.AbstainTTL,
			Variant: variant}, e.logger)
	}
	return rag.NewPipeline(a.search, composer, rw, opts), nil
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
