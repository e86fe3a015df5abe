package main

import (
	"testing"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
)

func TestCacheVariantChangesWithEverythingThatChangesAnAnswer(t *testing.T) {
	t.Parallel()
	base := func() *config.Config { return &config.Config{} }
	emb := rag.EmbedderInfo{Model: "cita-hash-v1", Dimension: 384}
	variants := map[string]string{"offline": cacheVariant(base(), emb, "apertium")}
	add := func(name string, cfg *config.Config, e rag.EmbedderInfo) {
		v := cacheVariant(cfg, e, "apertium")
		for other, ov := range variants {
			if ov == v {
				t.Errorf("%s has the same cache variant as %s: %q", name, other, v)
			}
		}
		variants[name] = v
	}
	chat := base()
	chat.Chat.BaseURL, chat.Chat.Model = "http://a.example/v1", "m1"
	add("chat", chat, emb)
	otherEndpoint := base()
	otherEndpoint.Chat.BaseURL, otherEndpoint.Chat.Model = "http://b.example/v1", "m1"
	add("another endpoint", otherEndpoint, emb)
	otherModel := base()
	otherModel.Chat.BaseURL, otherModel.Chat.Model = "http://a.example/v1", "m2"
	add("another model", otherModel, emb)
	add("another dimension", base(), rag.EmbedderInfo{Model: "cita-hash-v1", Dimension: 256})
	add("another embedder", base(), rag.EmbedderInfo{Model: "text-embedding-3-small", Dimension: 384})
	rr := base()
	rr.Rerank.BaseURL, rr.Rerank.Model, rr.Rerank.Flavor = "http://r.example", "rr", "cohere"
	add("a reranker", rr, emb)
	agent := base()
	agent.Chat.BaseURL, agent.Chat.Model, agent.Chat.Agent, agent.Chat.MaxSteps = "http://a.example/v1", "m1", true, 4
	add("agent mode", agent, emb)
	agent6 := base()
	agent6.Chat.BaseURL, agent6.Chat.Model, agent6.Chat.Agent, agent6.Chat.MaxSteps = "http://a.example/v1", "m1", true, 6
	add("agent mode with more steps", agent6, emb)
	// A value cannot pose as the boundary of another part.
	tricky := base()
	tricky.Chat.BaseURL, tricky.Chat.Model = "http://a.example/v1|m1", ""
	add("a model name inside the URL", tricky, emb)
}
