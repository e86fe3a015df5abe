package rag

import "testing"

func TestStemCacheAnswersAsTheStemmerAndStaysBounded(t *testing.T) {
	c := stemCache{max: 3}
	calls := 0
	stem := func(w string) string { calls++; return w[:2] }
	for _, w := range []string{"vacaciones", "vacaciones", "permiso"} {
		if got := c.of(w, "es", stem); got != w[:2] {
			t.Fatalf("of(%q) = %q", w, got)
		}
	}
	if calls != 2 {
		t.Errorf("stemmed %d times, want 2 (the repeated word is remembered)", calls)
	}
	// English and Spanish stems of one spelling are kept apart.
	c.of("permiso", "en", func(string) string { return "other" })
	if got := c.of("permiso", "es", stem); got != "pe" {
		t.Errorf("Spanish stem after an English one = %q", got)
	}
	for _, w := range []string{"a1", "b2", "c3", "d4", "e5"} {
		c.of(w, "en", stem)
	}
	if n := c.n.Load(); n > c.max {
		t.Errorf("cache holds %d words, max %d", n, c.max)
	}
}
