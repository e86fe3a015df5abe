package rewrite

import (
	"context"
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

var _ rag.Rewriter = (*LLM)(nil)

// NewLLM returns an LLM rewriter over model; logger nil means slog.Default().
func NewLLM(model rag.ChatModel, logger *slog.Logger) *LLM {
	if logger == nil {
		logger = slog.Default()
	}
	return &LLM{model: model, logger: logger, Fallback: Offline{}, MaxTurns: DefaultMaxTurns}
}

// Rewrite implements rag.Rewriter. It returns the fallback's result (never an error of the
// model) when the model fails; it returns an error only when the fallback does.
func (l *LLM) Rewrite(ctx context.Context, question string, history []rag.Turn) (string, error) {
	question = strings.TrimSpace(question)
	if len(history) == 0 {
		return question, nil
	}
	if !NeedsContext(question) {
		return l.Fallback.Rewrite(ctx, question, history)
	}
	resp, err := l.model.Chat(ctx, rag.ChatRequest{
		Messages:  RewriteMessages(question, history, l.MaxTurns),
		MaxTokens: rewriteMaxTokens,
	}, nil)
	if err != nil {
		l.logger.WarnContext(ctx, "rewrite with model failed; using the offline rewriter", slog.Any("error", err))
		return l.Fallback.Rewrite(ctx, question, history)
	}
	rewritten, ok := cleanRewrite(resp.Text, question)
	if !ok {
		l.logger.WarnContext(ctx, "model rewrite unusable; using the offline rewriter",
			slog.Int("reply_runes", utf8.RuneCountInString(resp.Text)))
		return l.Fallback.Rewrite(ctx, question, history)
	}
	return rewritten, nil
}

// rewriteSystemPrompt is the rewriter's instruction; %s is the question's language.
const rewriteSystemPrompt = `You rewrite the last message of a conversation into a standalone search query.
Replace pronouns and vague references ("it", "that", "and for staging?") with what they refer to in the conversation, and keep every name, code and number the message relies on.
Do not answer the question and do not add facts that are not in the conversation.
Write the rewritten question in %s, the language of the last message, whatever the language of the earlier turns.
Reply with ONLY the rewritten question: no quotes, no label, no explanation.`

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
	fmt.Fprintf(&b, "\nLast message: %s\n\nStandalone question:", oneLine(question))
	return []rag.ChatMessage{
		{Role: "system", Content: fmt.Sprintf(rewriteSystemPrompt, languageName(rag.AnswerLang(question)))},
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
