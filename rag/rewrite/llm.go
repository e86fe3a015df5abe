package rewrite

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/citahq/cita/rag"
)

// Defaults of LLM.
const (
	DefaultMaxTurns = 6
	// maxTurnRunes cuts each earlier turn in the prompt: a long answer's first lines are enough to
	// resolve a pronoun.
	maxTurnRunes = 600
	// rewriteMaxTokens bounds the reply: one question.
	rewriteMaxTokens = 120
)

// LLM rewrites follow-ups with a chat model. It skips the model when the question already stands
// alone (NeedsContext is false) and falls back to Fallback when the model fails or its reply is
// empty or too long to be one question.
type LLM struct {
	model    rag.ChatModel
	logger   *slog.Logger
	Fallback rag.Rewriter // used when the model is skipped or fails; NewLLM sets Offline{}
	MaxTurns int          // earlier turns given to the model; NewLLM sets DefaultMaxTurns
}

var (
	_ rag.Rewriter            = (*LLM)(nil)
	_ rag.TranslatingRewriter = (*LLM)(nil)
)

// NewLLM returns an LLM rewriter over model; logger nil means slog.Default().
func NewLLM(model rag.ChatModel, logger *slog.Logger) *LLM {
	if logger == nil {
		logger = slog.Default()
	}
	return &LLM{model: model, logger: logger, Fallback: Offline{}, MaxTurns: DefaultMaxTurns}
}

// Rewrite implements rag.Rewriter: RewriteTranslated's query.
func (l *LLM) Rewrite(ctx context.Context, question string, history []rag.Turn) (string, error) {
	rw, err := l.RewriteTranslated(ctx, question, history)
	return rw.Query, err
}

// RewriteTranslated implements rag.TranslatingRewriter: in one call the model writes the
// standalone query in the question's language and the same query in the other language (a JSON
// object, asked for as structured output). A reply that is plain text is taken as the query
// alone. It returns the fallback's result, without a translation, when the model is skipped or
// fails; it returns an error only when the fallback does.
func (l *LLM) RewriteTranslated(ctx context.Context, question string, history []rag.Turn) (rag.Rewritten, error) {
	question = strings.TrimSpace(question)
	if len(history) == 0 {
		return rag.Rewritten{Query: question}, nil
	}
	if !NeedsContext(question) {
		q, err := l.Fallback.Rewrite(ctx, question, history)
		return rag.Rewritten{Query: q}, err
	}
	resp, err := l.model.Chat(ctx, rag.ChatRequest{
		Messages:   RewriteMessages(question, history, l.MaxTurns),
		MaxTokens:  rewriteMaxTokens,
		JSONSchema: &rag.JSONSchema{Name: "standalone_query", Schema: rewriteSchema},
	}, nil)
	if err != nil {
		l.logger.WarnContext(ctx, "rewrite with model failed; using the offline rewriter", slog.Any("error", err))
		q, err := l.Fallback.Rewrite(ctx, question, history)
		return rag.Rewritten{Query: q}, err
	}
	rw, ok := parseRewrite(resp.Text, question)
	if !ok {
		l.logger.WarnContext(ctx, "model rewrite unusable; using the offline rewriter",
			slog.Int("reply_runes", utf8.RuneCountInString(resp.Text)))
		q, err := l.Fallback.Rewrite(ctx, question, history)
		return rag.Rewritten{Query: q}, err
	}
	return rw, nil
}

// rewriteSchema is the structured output the rewriter asks for.
var rewriteSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"query":{"type":"string","description":"the standalone question, in the language of the last message"},` +
	`"translation":{"type":"string","description":"the same standalone question in the other language (Spanish or English)"}},` +
	`"required":["query","translation"],"additionalProperties":false}`)

// parseRewrite reads the model's reply: the JSON object of rewriteSchema (possibly in a code
// fence), or else a plain-text question. Each part is cleaned like a plain reply; a translation
// that is unusable is dropped, a query that is unusable makes the reply unusable.
func parseRewrite(reply, question string) (rag.Rewritten, bool) {
	body := strings.TrimSpace(reply)
	body = strings.TrimPrefix(strings.TrimPrefix(body, "```json"), "```")
	body = strings.TrimSpace(strings.TrimSuffix(body, "```"))
	var obj struct {
		Query       string `json:"query"`
		Translation string `json:"translation"`
	}
	if strings.HasPrefix(body, "{") {
		if err := json.Unmarshal([]byte(body), &obj); err != nil {
			return rag.Rewritten{}, false
		}
		q, ok := cleanRewrite(obj.Query, question)
		if !ok {
			return rag.Rewritten{}, false
		}
		t, ok := cleanRewrite(obj.Translation, question)
		if !ok || t == q {
			t = ""
		}
		return rag.Rewritten{Query: q, Translation: t}, true
	}
	q, ok := cleanRewrite(reply, question)
	return rag.Rewritten{Query: q}, ok
}

// rewriteSystemPrompt is the rewriter's instruction; the first %s is the question's language,
// the second the other one.
const rewriteSystemPrompt = `You rewrite the last message of a conversation into a standalone search query.
Replace pronouns and vague references ("it", "that", "and for staging?") with what they refer to in the conversation, and keep every name, code and number the message relies on.
Do not answer the question and do not add facts that are not in the conversation.
Write the rewritten question in %s, the language of the last message, whatever the language of the earlier turns.
Also write the same rewritten question in %s, for searching documents written in that language.
Reply with ONLY a JSON object: {"query": "<the rewritten question in %[1]s>", "translation": "<the same question in %[2]s>"}.`

// RewriteMessages is the chat request the LLM rewriter sends: the instruction, then the last
// maxTurns earlier turns (each cut to 600 characters) and the message to rewrite.
func RewriteMessages(question string, history []rag.Turn, maxTurns int) []rag.ChatMessage {
	if maxTurns > 0 && len(history) > maxTurns {
		history = history[len(history)-maxTurns:]
	}
	var b strings.Builder
	b.WriteString("Conversation so far:\n")
	for _, t := range history {
		role := "User"
		if t.Role == "assistant" {
			role = "Assistant"
		}
		fmt.Fprintf(&b, "%s: %s\n", role, oneLine(truncateRunes(t.Text, maxTurnRunes)))
	}
	fmt.Fprintf(&b, "\nLast message: %s\n\nJSON:", oneLine(question))
	lang := rag.AnswerLang(question)
	return []rag.ChatMessage{
		{Role: "system", Content: fmt.Sprintf(rewriteSystemPrompt, languageName(lang), languageName(rag.OtherLang(lang)))},
		{Role: "user", Content: b.String()},
	}
}

func languageName(lang string) string {
	if lang == "es" {
		return "Spanish"
	}
	return "English"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// replyLabels are prefixes models put before the rewrite despite being told not to.
var replyLabels = []string{
	"standalone question:", "standalone query:", "rewritten question:", "rewritten query:", "rewrite:",
	"question:", "query:", "pregunta reescrita:", "pregunta independiente:", "pregunta:", "consulta:",
}

// cleanRewrite takes the first non-empty line of a reply, strips labels and quotes, and reports
// whether what is left is usable: not empty and not longer than a question plausibly grows.
func cleanRewrite(reply, question string) (string, bool) {
	var line string
	for _, l := range strings.Split(reply, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	for changed := true; changed; {
		changed = false
		for _, p := range replyLabels {
			if len(line) >= len(p) && strings.EqualFold(line[:len(p)], p) {
				line, changed = strings.TrimSpace(line[len(p):]), true
				break
			}
		}
		if t := strings.TrimSpace(strings.Trim(line, "\"'`“”«»*")); t != line {
			line, changed = t, true
		}
	}
	limit := 3*utf8.RuneCountInString(question) + 200
	if line == "" || utf8.RuneCountInString(line) > limit {
		return "", false
	}
	return line, true
}
