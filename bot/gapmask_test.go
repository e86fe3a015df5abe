package bot

import "testing"

// A shared question reaches the document owners without what identifies a person in it; what
// the question is about (amounts, dates, codes, places) stays.
func TestMaskQuestionHidesPeopleNotTheQuestion(t *testing.T) {
	t.Parallel()
	names := func(w string) bool { return w == "okonkwo" || w == "lucía" } // no document uses them
	for _, tc := range []struct{ in, want string }{
		{"can I expense lunch with ana.lopez@example.com?", "can I expense lunch with [email]?"},
		{"my manager Ana said call +34 612 345 678 about it", "my manager [person] said call [phone] about it"},
		{"¿puede <@U024BE7LH> aprobar mi viaje?", "¿puede [someone] aprobar mi viaje?"},
		{"did @pedro.g approve the budget", "did [someone] approve the budget"},
		{"is the bonus paid to Okonkwo in March?", "is the bonus paid to [person] in March?"},
		{"¿me pagan 1.500.000 el 2024-05-01 en Madrid?", "¿me pagan 1.500.000 el 2024-05-01 en Madrid?"},
		{"What does ERR-4402 mean in Valencia?", "What does ERR-4402 mean in Valencia?"},
		{"where is Okonkwo's desk?", "where is [person]'s desk?"},
		{"is there a gym in Okonkwo?", "is there a gym in Okonkwo?"}, // after "in": a place
		{"pregunté a Lucía por el parking", "pregunté a [person] por el parking"},
		{"le pregunté con Lucía por el parking", "le pregunté con [person] por el parking"},
	} {
		if got := MaskQuestion(tc.in, names); got != tc.want {
			t.Errorf("MaskQuestion(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestNameCandidatesAreCapitalisedWordsAfterTheFirst(t *testing.T) {
	t.Parallel()
	got := NameCandidates("Where is Okonkwo's desk in Valencia, per ERR-4402?")
	want := []string{"okonkwo", "valencia"}
	if len(got) != len(want) {
		t.Fatalf("NameCandidates = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("NameCandidates = %v, want %v", got, want)
		}
	}
}
