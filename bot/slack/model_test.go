package slack_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/generate"
	"github.com/citahq/cita/rag/openai"
)

// TestModelAnswersThatFallShortInSlack: through the Slack adapter, each way a chat model's answer
// can fall short (issue 23) gives its outcome in the thread: the model's judgement that the
// passages do not answer and a cited "I don't know" are abstentions; an invented citation and an
// HTTP 500 answer from the same passages offline, labelled with what happened.
func TestModelAnswersThatFallShortInSlack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply string
		status      int
		want, not   string
	}{
		{name: "judged unanswerable", reply: "I couldn't find this in our documentation.", want: "couldn't find this", not: "[1]"},
		{name: "I don't know, cited", reply: "I don't know [1].", want: "couldn't find this", not: "know [1]"},
		{name: "invented citation", reply: "You get 99 vacation days [7].", want: "cited sources that don't exist", not: "99 vacation"},
		{name: "HTTP 500", status: 500, want: "HTTP 500", not: "did not reply within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			fake := fakeopenai.New(t, fakeopenai.WithChatFunc(func(fakeopenai.Request) (string, *fakeopenai.HTTPError) { return tc.reply, nil }))
			if tc.status != 0 {
				fake.FailNext(100, tc.status, "")
			}
			chat, err := openai.NewChat(openai.Config{BaseURL: fake.URL, ChatModel: "qwen2.5:7b", MaxRetries: -1, Timeout: 5 * time.Second,
				Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			p := rag.NewPipeline(rag.NewHybrid(b.env.Index, b.env.Embedder(), rag.DefaultHybridOptions()), generate.NewLLMComposer(chat), nil,
				rag.PipelineOptions{ModelTimeout: 3 * time.Second, FallbackComposer: rag.Extractive{}})
			m := b.replicaWith(t, p)
			got := m.mention(t, "EvM-"+strings.ReplaceAll(tc.name, " ", "-"), "C1", "U1", "How many vacation days do I get per year?")
			text := got.Form["blocks"] + got.Form["text"]
			if !strings.Contains(text, tc.want) || strings.Contains(text, tc.not) {
				t.Errorf("reply %q: want %q, not %q", text, tc.want, tc.not)
			}
			if len(fake.Requests()) == 0 {
				t.Error("the model was never asked")
			}
		})
	}
}
