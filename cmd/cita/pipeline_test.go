package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/glossary"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/pgstore/pgstoretest"
)

var testEmbedder = rag.EmbedderInfo{Model: "cita-hash-v1", Dimension: 384}

// chatConfig is a configuration with a chat endpoint and model.
func chatConfig(baseURL, model string) *config.Config {
	cfg := &config.Config{}
	cfg.Chat.BaseURL, cfg.Chat.Model = baseURL, model
	return cfg
}

func TestCacheVariantChangesWithEverythingThatChangesAnAnswer(t *testing.T) {
	t.Parallel()
	base := func() *config.Config { return &config.Config{} }
	emb := testEmbedder
	now := currentVersions()
	variants := map[string]string{"offline": cacheVariant(base(), emb, "apertium", now, nil)}
	addGlossary := func(name string, cfg *config.Config, e rag.EmbedderInfo, translator string, v composerVersions, org *glossary.Glossary) {
		got := cacheVariant(cfg, e, translator, v, org)
		for other, ov := range variants {
			if ov == got {
				t.Errorf("%s has the same cache variant as %s: %q", name, other, got)
			}
		}
		variants[name] = got
	}
	addWith := func(name string, cfg *config.Config, e rag.EmbedderInfo, translator string, v composerVersions) {
		addGlossary(name, cfg, e, translator, v, nil)
	}
	add := func(name string, cfg *config.Config, e rag.EmbedderInfo) { addWith(name, cfg, e, "apertium", now) }
	add("chat", chatConfig("http://a.example/v1", "m1"), emb)
	add("another endpoint", chatConfig("http://b.example/v1", "m1"), emb)
	add("another model", chatConfig("http://a.example/v1", "m2"), emb)
	add("another dimension", base(), rag.EmbedderInfo{Model: "cita-hash-v1", Dimension: 256})
	add("another embedder", base(), rag.EmbedderInfo{Model: "text-embedding-3-small", Dimension: 384})
	addWith("another translator", base(), emb, "off", now)
	rr := base()
	rr.Rerank.BaseURL, rr.Rerank.Model, rr.Rerank.Flavor = "http://r.example", "rr", "cohere"
	add("a reranker", rr, emb)
	agent := chatConfig("http://a.example/v1", "m1")
	agent.Chat.Agent, agent.Chat.MaxSteps = true, 4
	add("agent mode", agent, emb)
	agent6 := chatConfig("http://a.example/v1", "m1")
	agent6.Chat.Agent, agent6.Chat.MaxSteps = true, 6
	add("agent mode with more steps", agent6, emb)
	// A new prompt, agent prompt or extractive composer is a new variant where it is in use.
	newPrompt := now
	newPrompt.Prompt += "-next"
	addWith("chat with another prompt version", chatConfig("http://a.example/v1", "m1"), emb, "apertium", newPrompt)
	newAgentPrompt := now
	newAgentPrompt.AgentPrompt += "-next"
	addWith("agent with another prompt version", agent, emb, "apertium", newAgentPrompt)
	newExtractive := now
	newExtractive.Extractive += "-next"
	addWith("offline with another extractive version", base(), emb, "apertium", newExtractive)
	strict := base()
	strict.Answers.MinEvidence = 0.35
	add("another relevance threshold", strict, emb)
	// Unset is the default threshold, not a variant of its own.
	explicitDefault := base()
	explicitDefault.Answers.MinEvidence = rag.DefaultMinEvidence
	if got := cacheVariant(explicitDefault, emb, "apertium", now, nil); got != variants["offline"] {
		t.Errorf("answers.min_evidence at the default has variant %q, unset has %q: want the same", got, variants["offline"])
	}
	// A value cannot pose as the boundary of another part.
	add("a model name inside the URL", chatConfig("http://a.example/v1|m1", ""), emb)
	// The organisation's glossary and the thresholds change answers without a re-index.
	org, err := glossary.Parse(strings.NewReader("en: on-call | es: guardia"), "org")
	if err != nil {
		t.Fatal(err)
	}
	addGlossary("an organisation glossary", base(), emb, "apertium", now, org)
	org2, _ := glossary.Parse(strings.NewReader("en: on-call | es: guardia, retén"), "org")
	addGlossary("another organisation glossary", base(), emb, "apertium", now, org2)
	confident := base()
	confident.Answers.ConfidentEvidence = 0.5
	add("another confident threshold", confident, emb)
	minimum := base()
	minimum.Answers.MinEvidence = 0.25
	add("another guard threshold", minimum, emb)
}

// TestCachedAnswerIsNotServedAfterThePromptOrEndpointChanges stores an answer through the real
// cache under one configuration's variant and looks it up under others.
func TestCachedAnswerIsNotServedAfterThePromptOrEndpointChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := pgstoretest.New(t, testEmbedder)
	cacheFor := func(cfg *config.Config, v composerVersions) *pgstore.Cache {
		return pgstore.NewCache(store.Pool(), pgstore.CacheOptions{Variant: cacheVariant(cfg, testEmbedder, "apertium", v, nil)}, slog.New(slog.DiscardHandler))
	}
	now := currentVersions()
	key := rag.NewCacheKey("how many vacation days do I get", rag.MustScope("hr"), "en")
	if err := cacheFor(chatConfig("http://a.example/v1", "m1"), now).Store(ctx, key, &rag.Answer{Text: "23 days.", Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	newPrompt := now
	newPrompt.Prompt += "-next"
	cases := []struct {
		name string
		cfg  *config.Config
		v    composerVersions
		hit  bool
	}{
		{"same endpoint, model and prompt", chatConfig("http://a.example/v1", "m1"), now, true},
		{"another endpoint", chatConfig("http://b.example/v1", "m1"), now, false},
		{"another prompt version", chatConfig("http://a.example/v1", "m1"), newPrompt, false},
		{"no chat endpoint (extractive)", &config.Config{}, now, false},
	}
	for _, c := range cases {
		got, err := cacheFor(c.cfg, c.v).Lookup(ctx, key)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (got != nil) != c.hit {
			t.Errorf("%s: hit=%v, want %v", c.name, got != nil, c.hit)
		}
	}
}
