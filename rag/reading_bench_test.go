package rag

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkOfflineReading is the offline answer's reading of its sources, as the pipeline runs
// it for a Spanish question searched with its English translation over eight passages in both
// languages: the shared reading, the relevance guard (Support) and the extractive composer.
// Its allocations show the stemming the guard and the composer repeat (or no longer repeat).
func BenchmarkOfflineReading(b *testing.B) {
	var sources []Source
	for i := range 8 {
		lang, content := "en", strings.Repeat(fmt.Sprintf("Employees at site %d get 22 working days of paid leave a year. Requests need two weeks' notice and the manager's approval. ", i), 6)
		if i%2 == 1 {
			lang, content = "es", strings.Repeat(fmt.Sprintf("En la sede %d cada persona tiene 22 días hábiles de vacaciones al año. Las solicitudes se hacen con dos semanas de antelación. ", i), 6)
		}
		sources = append(sources, Source{N: i + 1, Hit: Hit{ChunkID: int64(i + 1), Lang: lang, Title: fmt.Sprintf("Leave policy %d", i),
			Section: "People > Leave > How many days", Content: content + "\n\n- Carry-over: five days\n- Sick leave: separate"}})
	}
	req := ComposeRequest{Question: "¿Cuántos días de vacaciones tengo al año?", Lang: "es", Sources: sources,
		Translation: "How many vacation days do I have a year?", TranslationLang: "en"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r := req.withReading()
		if Support(r).Score <= 0 {
			b.Fatal("the guard found no support (the benchmark would measure an abstention)")
		}
		if _, err := (Extractive{}).Compose(ctx, r, nil); err != nil {
			b.Fatal(err)
		}
	}
}
