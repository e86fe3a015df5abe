package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/internal/syncbuf"
)

// TestAskWithAModelThatDoesNotAnswerWell runs `cita ask` against the fake OpenAI-compatible
// server for each way a model's answer can fall short (issue 23): it judges that the passages
// do not answer, it says "I don't know" with a citation, it cites a source that does not exist,
// it fails with HTTP 500. Each gives the stated outcome, never the model's text as an answer.
func TestAskWithAModelThatDoesNotAnswerWell(t *testing.T) {
	clearEnv(t)
	cs := indexedSchema(t,
		testDoc{"travel.md", "Travel policy", "en", []string{"everyone"}, "Domestic trips pay a daily allowance of 38 euros for meals."})
	const notFound = "I couldn't find this in our documentation."
	for _, tc := range []struct {
		name   string
		reply  string
		status int
		want   []string
		not    []string
	}{
		{name: "the model judges the passages do not answer", reply: notFound, want: []string{notFound}, not: []string{"38 euros"}},
		{name: "I don't know, cited", reply: "I don't know [1].", want: []string{notFound}, not: []string{"don't know"}},
		{name: "an invented citation", reply: "The allowance is 50 euros [4].",
			want: []string{"cited sources that don't exist", "38 euros for meals. [1]"}, not: []string{"50 euros"}},
		{name: "HTTP 500", status: 500, want: []string{"HTTP 500", "38 euros for meals. [1]"}, not: []string{"did not reply within"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakeopenai.New(t, fakeopenai.WithChatFunc(func(fakeopenai.Request) (string, *fakeopenai.HTTPError) { return tc.reply, nil }))
			if tc.status != 0 {
				fake.FailNext(100, tc.status, "")
			}
			cfg := writeConfig(t, fmt.Sprintf("database_url: %q\nchat:\n  base_url: %s\n  model: qwen2.5:7b\n  timeout: 5s\ncache:\n  enabled: false\n", cs, fake.URL))
			var stdout, stderr syncbuf.Buffer
			if code := run(context.Background(), []string{"--config", cfg, "ask", "What is the daily allowance for domestic trips?"}, &stdout, &stderr); code != 0 {
				t.Fatalf("ask exited %d: %s", code, stderr.String())
			}
			out := stdout.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("output holds %q:\n%s", w, out)
				}
			}
		})
	}
}
