package chunk
import ("testing";"time";"strings")
func TestSlowTmp(t *testing.T) {
	r := newRand(1)
	var b strings.Builder
	for b.Len() < 200000 { b.WriteByte(byte(r.IntN(256))) }
	data := b.String()
	for _, o := range []Options{{}, {TargetTokens: 1, MaxTokens: 1}, {TargetTokens: 5, MaxTokens: 7}, {TargetTokens: 900, MaxTokens: 999}} {
		start := time.Now()
		p := Split(documentFromBytes("t", data), o)
		t.Logf("%+v: %d pieces in %v", o, len(p), time.Since(start))
		start = time.Now()
		p = Split(documentFromBytes("t", strings.Repeat("a ", 100000)), o)
		t.Logf("spaces %+v: %d pieces in %v", o, len(p), time.Since(start))
		start = time.Now()
		p = Split(documentFromBytes("t", "\x03h\n"+strings.Repeat("a\tb\n", 50000)), o)
		t.Logf("table %+v: %d pieces in %v", o, len(p), time.Since(start))
	}
}
