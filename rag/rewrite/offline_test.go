package rewrite

import (
	"context"
	"strings"
	"testing"

	"github.com/citahq/cita/rag"
)

func users(texts ...string) []rag.Turn {
	out := make([]rag.Turn, len(texts))
	for i, t := range texts {
		out[i] = rag.Turn{Role: "user", Text: t}
	}
	return out
}

func TestNeedsContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		question string
		want     bool
	}{
		{"and for staging?", true},
		{"And what about the EU office?", true},
		{"how deadly is it?", true},
		{"what about his brother?", true},
		{"did that sell well?", true},
		{"Any other boxers?", true},
		{"What happened after 1989?", true},
		{"¿y en staging?", true},
		{"Y para los contratistas?", true},
		{"¿qué tan letal es eso?", true},
		{"¿Cuál es su horario?", true},
		{"How many vacation days do I get?", false},
		{"Where was Mary Chapin Carpenter born?", false},
		{"What are some television projects that Orlando Jones have?", false},
		{"What does ERR_4402 mean?", false},
		{"¿Cuántos días de vacaciones tengo al año?", false},
		{"¿Quién aprueba los gastos de viaje?", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			t.Parallel()
			if got := NeedsContext(tt.question); got != tt.want {
				t.Errorf("NeedsContext(%q) = %v, want %v", tt.question, got, tt.want)
			}
		})
	}
}

func TestOfflineRewrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		question string
		history  []rag.Turn
		want     []string // words the rewrite must contain
		wantNot  []string // words it must not contain
		same     bool     // the question must come back unchanged
	}{
		{
			name: "environment follow-up", question: "and for staging?",
			history: users("How do I deploy billing-api to production?"),
			want:    []string{"deploy", "billing-api"},
		},
		{
			name: "anaphora resolves to a name", question: "how deadly is it?",
			history: users("Tell me about the Ebola outbreak", "Where did it start?"),
			want:    []string{"Ebola"}, wantNot: []string{"Tell"},
		},
		{
			name: "person from the opening turn", question: "what about his brother?",
			history: []rag.Turn{
				{Role: "user", Text: "Andrew Carnegie"},
				{Role: "user", Text: "When did he found the steel company?"},
				{Role: "assistant", Text: "He founded it in 1892."},
			},
			want: []string{"Andrew", "Carnegie"},
		},
		{
			name: "code carried", question: "what does it mean?",
			history: users("The payment failed with ERR_4402 this morning"),
			want:    []string{"ERR_4402"},
		},
		{
			name: "spanish follow-up", question: "¿y en staging?",
			history: users("¿Cómo despliego billing-api en producción?"),
			want:    []string{"billing-api", "despliego"},
		},
		{
			name: "terms already in the question are not repeated", question: "and in the Madrid office?",
			history: users("What are the opening hours of the Madrid office?"),
			want:    []string{"opening"}, wantNot: []string{"Madrid office Madrid"},
		},
		{
			name: "standalone question unchanged", question: "How many vacation days do I get?",
			history: users("Who approves travel expenses?"), same: true,
		},
		{
			name: "no history", question: "and for staging?", same: true,
		},
		{
			name: "partial name completed", question: "Did clarkson sell well in the UK?",
			history: users("Kelly Clarkson", "What was her first album?"),
			want:    []string{"Kelly"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Offline{}.Rewrite(context.Background(), tt.question, tt.history)
			if err != nil {
				t.Fatalf("Rewrite: %v", err)
			}
			if tt.same {
				if got != tt.question {
					t.Errorf("Rewrite(%q) = %q, want it unchanged", tt.question, got)
				}
				return
			}
			if !strings.HasPrefix(got, tt.question) {
				t.Errorf("Rewrite(%q) = %q, want the question kept at the start", tt.question, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Rewrite(%q) = %q, want it to contain %q", tt.question, got, w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("Rewrite(%q) = %q, must not contain %q", tt.question, got, w)
				}
			}
			if extra := len(strings.Fields(got)) - len(strings.Fields(tt.question)); extra > DefaultMaxWords {
				t.Errorf("Rewrite(%q) appended %d words, want at most %d", tt.question, extra, DefaultMaxWords)
			}
		})
	}
}

func TestOfflineLimits(t *testing.T) {
	t.Parallel()
	history := users("Alice Johnson met Bob Smith, Carol White and Dan Brown at the ACME-42 offsite in Lisbon")
	got, _ := Offline{MaxTerms: 1, MaxWords: 2}.Rewrite(context.Background(), "what did they decide?", history)
	if extra := strings.Fields(strings.TrimPrefix(got, "what did they decide?")); len(extra) == 0 || len(extra) > 2 {
		t.Errorf("Rewrite with MaxTerms 1, MaxWords 2 = %q, want one term of at most two words", got)
	}
}

func TestOfflineSwapsTheNameOfAnEllipticalFollowUp(t *testing.T) {
	t.Parallel()
	cases := []struct{ prev, followUp, want string }{
		{"What is the per diem in Madrid?", "and in Bogotá?", "What is the per diem in Bogotá?"},
		{"¿Cuántos días de vacaciones hay en Medellín?", "¿Y en Madrid?", "¿Cuántos días de vacaciones hay en Madrid?"},
		{"precio del SKU-77812", "¿y el SKU-77835?", "precio del SKU-77835"},
	}
	for _, c := range cases {
		got, err := Offline{}.Rewrite(context.Background(), c.followUp, []rag.Turn{{Role: "user", Text: c.prev}, {Role: "assistant", Text: "an answer"}})
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%q after %q = %q, want %q", c.followUp, c.prev, got, c.want)
		}
	}
}
