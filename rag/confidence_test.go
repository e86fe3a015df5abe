package rag_test

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

// The three kinds of reply, offline: a passage that states what is asked is an answer; one
// about the topic that lacks what the question names is the closest passage, said to be
// uncertain, from the first piece of text streamed; nothing related is "not found".
func TestOfflineRepliesAreAnswersHedgedOrNotFound(t *testing.T) {
	t.Parallel()
	hits := []rag.Hit{{ChunkID: 1, DocumentID: 1, Lang: "en", Title: "Benefits", Heading: "Benefits > Health", Owner: "People team",
		Content: "Health insurance covers the employee, their partner and their children."}}
	ask := func(question string, trace rag.SearchTrace) (*rag.Answer, []string) {
		t.Helper()
		p := rag.NewPipeline(tracedSearcher{hits: hits, trace: trace}, rag.Extractive{}, nil, rag.PipelineOptions{})
		var deltas []string
		ans, err := p.Answer(context.Background(), rag.Question{Text: question, Scope: rag.MustScope("everyone")},
			func(s string) { deltas = append(deltas, s) })
		if err != nil {
			t.Fatal(err)
		}
		return ans, deltas
	}
	ans, _ := ask("who does the health insurance cover?", rag.SearchTrace{})
	if ans.Abstained || ans.Hedged || !strings.HasPrefix(ans.Text, "Health insurance covers") {
		t.Errorf("a passage stating it: abstained %v hedged %v, text %q; want an answer", ans.Abstained, ans.Hedged, ans.Text)
	}
	// The searcher found no readable document that says "dentist".
	ans, deltas := ask("does the health insurance cover the dentist?", rag.SearchTrace{Unknown: []string{"dentist"}})
	if ans.Abstained || !ans.Hedged || ans.HedgeReason != rag.HedgeUnknownWord {
		t.Fatalf("abstained %v hedged %v (%s): want the closest passage, hedged for the unknown word", ans.Abstained, ans.Hedged, ans.HedgeReason)
	}
	if !strings.HasPrefix(ans.Text, "I'm not sure this answers your question.") || !strings.Contains(ans.Text, "[1]") ||
		!strings.HasSuffix(ans.Text, "You could ask People team.") || len(ans.Sources) != 1 {
		t.Errorf("hedged text %q (sources %d): want the hedge line, the cited quote and who to ask", ans.Text, len(ans.Sources))
	}
	if len(deltas) == 0 || !strings.HasPrefix(deltas[0], "I'm not sure") {
		t.Errorf("streamed %q: the hedge line must come before any quote", deltas)
	}
	ans, _ = ask("what is the guest wifi password?", rag.SearchTrace{})
	if !ans.Abstained || ans.Hedged {
		t.Errorf("nothing related: abstained %v hedged %v, want not found", ans.Abstained, ans.Hedged)
	}
}

// A model judges answerability itself: its answer is never hedged by the offline band.
func TestAModelsAnswerIsNotHedgedByTheOfflineBand(t *testing.T) {
	t.Parallel()
	hits := []rag.Hit{{ChunkID: 1, DocumentID: 1, Lang: "en", Title: "Benefits", Heading: "Benefits > Health",
		Content: "Health insurance covers the employee, their partner and their children."}}
	p := rag.NewPipeline(tracedSearcher{hits: hits, trace: rag.SearchTrace{Unknown: []string{"dentist"}}},
		judgingComposer{text: "The insurance covers the employee and family [1]."}, nil, rag.PipelineOptions{})
	ans, err := p.Answer(context.Background(), rag.Question{Text: "does the health insurance cover the dentist?", Scope: rag.MustScope("everyone")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Hedged || ans.Abstained || ans.ConfidentThreshold != 0 {
		t.Errorf("hedged %v abstained %v band %.2f: a judging model's answer is its own", ans.Hedged, ans.Abstained, ans.ConfidentThreshold)
	}
}

// judgingComposer stands for a chat model that judges answerability (rag.AnswerabilityJudge).
type judgingComposer struct{ text string }

func (c judgingComposer) Compose(_ context.Context, _ rag.ComposeRequest, onDelta func(string)) (*rag.Composition, error) {
	if onDelta != nil {
		onDelta(c.text)
	}
	return &rag.Composition{Text: c.text, Usage: rag.Usage{Model: "judge"}}, nil
}

func (judgingComposer) JudgesAnswerability() bool { return true }

// A reply hedged because the direct answer lacks the question's key word leads with the passage
// that says it.
func TestHedgedReplyLeadsWithTheKeyWord(t *testing.T) {
	t.Parallel()
	hits := []rag.Hit{
		{ChunkID: 1, DocumentID: 1, Lang: "es", Title: "Política de gastos", Heading: "Política de gastos > Objeto",
			Content: "Esta política establece qué gastos de la empresa se reembolsan, cómo se justifican y en qué plazos se pagan."},
		{ChunkID: 2, DocumentID: 2, Lang: "es", Title: "Oficina de Medellín", Heading: "Oficina de Medellín > Instalaciones",
			Content: "La oficina de Medellín tiene parqueadero para 12 carros y 30 bicicletas."},
	}
	p := rag.NewPipeline(tracedSearcher{hits: hits}, rag.Extractive{}, nil, rag.PipelineOptions{})
	ans, err := p.Answer(context.Background(), rag.Question{Text: "¿La empresa paga el parqueadero?", Scope: rag.MustScope("everyone")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Hedged {
		t.Fatalf("reply %q is not hedged (%s)", ans.Text, ans.HedgeReason)
	}
	_, quotes, _ := strings.Cut(ans.Text, "\n\n")
	if !strings.HasPrefix(quotes, "La oficina de Medellín tiene parqueadero") {
		t.Errorf("hedged reply %q does not lead with the passage about the parking", ans.Text)
	}
}
