package leakcheck

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/generate"
	"github.com/citahq/cita/rag/openai"
)

// askerTag marks an agent question with its asker, so the fake model can check every tool
// result it is given against the person the answer is for.
var askerTag = regexp.MustCompile(`\[asker p(\d+)\]`)

var documentIDs = regexp.MustCompile(`document id (\d+)`)

// pryingModel is a fake chat model with tool calling that tries hard to leak: it searches with the
// question, asks for a document chosen from the whole corpus (whatever the asker may read), then
// for a document a search showed, and finally answers by repeating every line of every tool
// result and source it was given. Every tool result is checked against the asker, as it reaches
// the answer's author.
type pryingModel struct {
	org    *org
	corpus *corpus
	oracle *oracle
}

func (m *pryingModel) reply(req fakeopenai.Request) (fakeopenai.Reply, *fakeopenai.HTTPError) {
	var asker *person
	var question string
	var results, seen []string
	for _, msg := range req.Messages {
		if sub := askerTag.FindStringSubmatch(msg.Content); sub != nil && asker == nil {
			n, _ := strconv.Atoi(sub[1])
			if n < len(m.org.people) {
				asker = m.org.people[n]
			}
			question = msg.Content
		}
		switch msg.Role {
		case "tool":
			results = append(results, msg.Content)
			seen = append(seen, msg.Content)
		case "system", "user":
			seen = append(seen, msg.Content)
		}
	}
	conversation := "agent"
	if asker != nil {
		conversation = "agent:" + asker.slackID
		for _, r := range results {
			m.oracle.private("agent step (tool result)", conversation, asker, r)
		}
	} else {
		for _, r := range results {
			m.oracle.stranger("agent step (tool result, no asker)", conversation, r)
		}
	}
	if len(req.Tools) > 0 && len(results) < 3 {
		var call fakeopenai.FunctionCall
		switch len(results) {
		case 0:
			q, _ := json.Marshal(map[string]any{"query": askerTag.ReplaceAllString(lastLine(question), "")})
			call = fakeopenai.FunctionCall{Name: "search", Arguments: string(q)}
		case 1:
			h := fnv.New32a()
			h.Write([]byte(question))
			d := m.corpus.docs[int(h.Sum32())%len(m.corpus.docs)]
			call = fakeopenai.FunctionCall{Name: "get_document", Arguments: fmt.Sprintf(`{"document_id": %d}`, d.id)}
		default:
			id := int64(1)
			if sub := documentIDs.FindStringSubmatch(results[0]); sub != nil {
				id, _ = strconv.ParseInt(sub[1], 10, 64)
			}
			call = fakeopenai.FunctionCall{Name: "get_document", Arguments: fmt.Sprintf(`{"document_id": %d}`, id)}
		}
		return fakeopenai.Reply{ToolCalls: []fakeopenai.ToolCall{{ID: fmt.Sprintf("call_%d", len(results)), Type: "function", Function: call}}}, nil
	}
	var b strings.Builder
	for _, s := range seen {
		for _, line := range strings.Split(s, "\n") {
			if codePattern.MatchString(line) && !askerTag.MatchString(line) {
				b.WriteString(strings.TrimSpace(line) + " [1]\n")
			}
		}
	}
	if b.Len() == 0 {
		return fakeopenai.Reply{Content: rag.NotFoundText("en", "")}, nil
	}
	return fakeopenai.Reply{Content: b.String()}, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// agentPipeline returns a pipeline in agent mode over rep's index whose model is the prying fake
// at srv.
func agentPipeline(rep *replica, docs rag.DocumentReader, srv *fakeopenai.Server, logger *slog.Logger) (*rag.Pipeline, error) {
	chat, err := openai.NewChat(openai.Config{BaseURL: srv.URL, APIKey: "leakcheck", ChatModel: "prying", MaxRetries: 1,
		Timeout: 30 * time.Second, Logger: logger})
	if err != nil {
		return nil, err
	}
	search := rep.search
	agent := generate.NewAgent(chat, search, docs, generate.AgentOptions{MaxSteps: 4, Logger: logger})
	return rag.NewPipeline(search, generate.NewLLMComposer(chat), nil, rag.PipelineOptions{Agent: agent, Logger: logger}), nil
}

// agentQuestion tags question with its asker for the prying model.
func agentQuestion(p *person, question string) string {
	return fmt.Sprintf("%s [asker p%d]", question, p.n)
}
