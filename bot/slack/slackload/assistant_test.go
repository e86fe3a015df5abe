package slackload_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/internal/bottest"
	"github.com/citahq/cita/bot/slack/slackload"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/generate"
	"github.com/citahq/cita/rag/openai"
)

// TestAssistantLoadMeasuresStatusAndFirstWords asks in assistant threads, answered by the fake
// model through the real OpenAI client: every reply shows the status first, and the first
// streamed words are matched with the model request they came from.
func TestAssistantLoadMeasuresStatusAndFirstWords(t *testing.T) {
	env := bottest.New(t)
	model := slackload.NewFakeModel(5 * time.Millisecond)
	defer model.Close()
	chat, err := openai.NewChat(openai.Config{BaseURL: model.URL(), ChatModel: "fake", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	p := rag.NewPipeline(rag.NewHybrid(env.Index, env.Embedder(), rag.DefaultHybridOptions()), generate.NewLLMComposer(chat), nil, rag.PipelineOptions{})
	h := bot.NewHandler(p, env.Bot, bot.HandlerOptions{RateLimit: generous})
	rep, err := slackload.Run(context.Background(), slackload.Config{Handler: h, Store: env.Bot, Concurrency: 4, PerAsker: 2,
		Questions: questions, Timeout: 30 * time.Second, Assistant: true, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replied != 8 || len(rep.Status) != 8 || len(rep.FirstWords) != 8 || len(rep.FirstWordsAfterModel) == 0 {
		t.Fatalf("replied %d, statuses %d, first words %d (%d matched with the model): want every reply measured",
			rep.Replied, len(rep.Status), len(rep.FirstWords), len(rep.FirstWordsAfterModel))
	}
	t.Logf("status %v\nfirst words %v\nafter the model %v\nfinal %v", rep.Status, rep.FirstWords, rep.FirstWordsAfterModel, rep.Final)
	if rep.Calls["chat.startStream"] == 0 || rep.Calls["chat.stopStream"] != rep.Calls["chat.startStream"] {
		t.Fatalf("calls %v: want native streams, each stopped", rep.Calls)
	}
	if rep.Status[0] > rep.FirstWords[len(rep.FirstWords)-1] {
		t.Fatalf("status %v after the first words %v", rep.Status, rep.FirstWords)
	}
}
