package bot

import "testing"

// TestReplyKinds: each kind of reply is named once, and the predicates say exactly what they
// test: FromPipeline includes "I couldn't find this", CitesPassages does not.
func TestReplyKinds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		out           Outgoing
		kind          ReplyKind
		fromPipeline  bool
		citesPassages bool
		outcome       string
	}{
		{"answer", Outgoing{Text: "22 days [1]."}, ReplyAnswer, true, true, OutcomeAnswered},
		{"hedged", Outgoing{Text: "closest [1].", Hedged: true}, ReplyHedged, true, true, OutcomeHedged},
		{"not found", Outgoing{Text: "I couldn't find this.", Abstained: true}, ReplyNotFound, true, false, OutcomeAbstained},
		{"not found wins over hedged", Outgoing{Abstained: true, Hedged: true}, ReplyNotFound, true, false, OutcomeAbstained},
		{"nothing indexed", Outgoing{Reason: ReasonEmptyIndex, Abstained: true}, ReplyReason, false, false, OutcomeAbstained},
		{"busy", Outgoing{Reason: ReasonBusy}, ReplyReason, false, false, OutcomeBusy},
		{"not recorded", Outgoing{Reason: ReasonNotRecorded}, ReplyReason, false, false, OutcomeError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.out.Kind(); got != tc.kind {
				t.Errorf("Kind() = %d, want %d", got, tc.kind)
			}
			if got := tc.out.FromPipeline(); got != tc.fromPipeline {
				t.Errorf("FromPipeline() = %v, want %v", got, tc.fromPipeline)
			}
			if got := tc.out.CitesPassages(); got != tc.citesPassages {
				t.Errorf("CitesPassages() = %v, want %v", got, tc.citesPassages)
			}
			if got := tc.out.Outcome(); got != tc.outcome {
				t.Errorf("Outcome() = %q, want %q", got, tc.outcome)
			}
		})
	}
}
