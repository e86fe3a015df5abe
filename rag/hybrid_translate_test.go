package rag

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeArmStore records what the arms were asked; it is safe for the arms' goroutines.
type fakeArmStore struct {
	mu      sync.Mutex
	fts     []FTSQuery
	vectors [][]float32
}

func (f *fakeArmStore) SearchVector(_ context.Context, vec []float32, _ Scope, _ int) ([]ArmHit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vectors = append(f.vectors, vec)
	return []ArmHit{{ChunkID: 1, Rank: 1, Score: 0.5}}, nil
}

func (f *fakeArmStore) SearchFTS(_ context.Context, q FTSQuery, _ Scope, _ int) ([]ArmHit, []string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fts = append(f.fts, q)
	return []ArmHit{{ChunkID: 1, Rank: 1, Score: 3}}, nil, nil
}

func (f *fakeArmStore) LoadHits(_ context.Context, ids []int64, _ Scope) ([]Hit, error) {
	out := make([]Hit, len(ids))
	for i, id := range ids {
		out[i] = Hit{ChunkID: id}
	}
	return out, nil
}

// ftsPart returns the full-text query of the given part and how many there were of it.
func (f *fakeArmStore) ftsPart(part FTSPart) (FTSQuery, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var got FTSQuery
	n := 0
	for _, q := range f.fts {
		if q.Part == part {
			got, n = q, n+1
		}
	}
	return got, n
}

// recordingEmbedder records what it embeds; a text in axes becomes the unit vector along its
// axis (any other along axis 0), so a blend shows.
type recordingEmbedder struct {
	mu    sync.Mutex
	axes  map[string]int
	texts []string
}

func (e *recordingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, text := range texts {
		e.texts = append(e.texts, text)
		out[i] = make([]float32, 4)
		out[i][e.axes[text]] = 1
	}
	return out, nil
}

type translatorFunc func(ctx context.Context, text, from, to string) (string, error)

func (f translatorFunc) Translate(ctx context.Context, text, from, to string) (string, error) {
	return f(ctx, text, from, to)
}

func TestHybridSearchesTheTranslationInBothArms(t *testing.T) {
	t.Parallel()
	const query, translation = "¿Quién aprueba un despliegue?", "Who approves a deployment?"
	var asked [][3]string
	tr := translatorFunc(func(_ context.Context, text, from, to string) (string, error) {
		asked = append(asked, [3]string{text, from, to})
		return translation, nil
	})
	store, emb := &fakeArmStore{}, &recordingEmbedder{axes: map[string]int{query: 0, translation: 1}}
	opts := DefaultHybridOptions()
	opts.Translator = tr
	opts.Lexicon = nil // the glossary's bridges are tested apart (bridges_test.go)
	res, err := NewHybrid(store, emb, opts).Search(context.Background(), SearchRequest{Query: query, Scope: MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != [3]string{query, "es", "en"} {
		t.Errorf("translator asked %v, want the query once, es to en", asked)
	}
	if res.Trace.Translated != translation || res.Trace.TranslatedLang != "en" || res.Trace.TranslationMissing != "" {
		t.Errorf("trace translated %q (%s), missing %q", res.Trace.Translated, res.Trace.TranslatedLang, res.Trace.TranslationMissing)
	}
	if q, n := store.ftsPart(FTSAsked); n != 1 || !reflect.DeepEqual(q, FTSQuery{Text: query, Part: FTSAsked}) {
		t.Errorf("asked words searched %d times as %+v, want once without the translation", n, q)
	}
	want := FTSQuery{Text: query, Alt: translation, AltWeight: opts.TranslatedWeight, Part: FTSExtra}
	if q, n := store.ftsPart(FTSExtra); n != 1 || !reflect.DeepEqual(q, want) {
		t.Errorf("translation searched %d times as %+v, want once as %+v", n, q, want)
	}
	// The asked and the translated parts of the full-text arm both found chunk 1 with 3: summed.
	if got := res.Trace.Arms[ArmFTS]; len(got) != 1 || got[0].Score != 6 {
		t.Errorf("full-text arm %+v, want chunk 1 with the parts' scores added (6)", got)
	}
	slices.Sort(emb.texts)
	if !slices.Equal(emb.texts, []string{translation, query}) {
		t.Errorf("embedded %q, want the query and its translation, each once", emb.texts)
	}
	if len(store.vectors) != 2 {
		t.Fatalf("vector arm searched %d times, want the query alone, then blended", len(store.vectors))
	}
	blended := store.vectors[0]
	if blended[1] == 0 {
		blended = store.vectors[1]
	}
	if w := opts.TranslatedVectorWeight; blended[0] == 0 || math.Abs(float64(blended[1]/blended[0])-w) > 1e-6 {
		t.Errorf("blended vector %v, want the query's vector plus %.1f times the translation's, normalised", blended, w)
	}
}

func TestHybridUsesTheRequestsTranslationFirst(t *testing.T) {
	t.Parallel()
	tr := translatorFunc(func(context.Context, string, string, string) (string, error) {
		t.Error("translator called although the request carries a translation")
		return "", nil
	})
	store := &fakeArmStore{}
	opts := DefaultHybridOptions()
	opts.Translator = tr
	_, err := NewHybrid(store, &recordingEmbedder{}, opts).Search(context.Background(), SearchRequest{
		Query: "How do I deploy billing-api to staging?", Translation: "¿Cómo despliego billing-api en staging?", Scope: MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := store.ftsPart(FTSExtra); q.Alt != "¿Cómo despliego billing-api en staging?" {
		t.Errorf("full-text alternative %q, want the request's translation", q.Alt)
	}
}

// failureCounter records the reasons a TranslationObserver is told.
type failureCounter struct {
	mu      sync.Mutex
	reasons []string
}

func (c *failureCounter) ObserveTranslationFailure(reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reasons = append(c.reasons, reason)
}

func TestHybridWithoutTranslatorSearchesEveryTermOnce(t *testing.T) {
	t.Parallel()
	store, emb := &fakeArmStore{}, &recordingEmbedder{}
	res, err := NewHybrid(store, emb, DefaultHybridOptions()).Search(context.Background(), SearchRequest{Query: "vacaciones", Scope: MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	if q, n := store.ftsPart(FTSAll); n != 1 || len(store.fts) != 1 || q.Alt != "" {
		t.Errorf("full-text arm asked %+v, want one query of every term", store.fts)
	}
	if len(emb.texts) != 1 || len(store.vectors) != 1 || res.Trace.Translated != "" || res.Trace.TranslationMissing != "" {
		t.Errorf("embedded %q, searched %d vectors, trace %q / missing %q; want the query alone, nothing missing",
			emb.texts, len(store.vectors), res.Trace.Translated, res.Trace.TranslationMissing)
	}
}

func TestHybridWithFailingTranslatorSaysWhyAndStillCorrects(t *testing.T) {
	t.Parallel()
	for name, fail := range map[string]error{
		"error":   errors.New("apertium spa-eng: down since 10:00:00"),
		"timeout": fmt.Errorf("apertium spa-eng: no answer within 1s: %w", context.DeadlineExceeded),
	} {
		store, emb, failures := &fakeArmStore{}, &recordingEmbedder{}, &failureCounter{}
		opts := DefaultHybridOptions()
		opts.Translator = translatorFunc(func(context.Context, string, string, string) (string, error) { return "", fail })
		opts.TranslationFailures = failures
		res, err := NewHybrid(store, emb, opts).Search(context.Background(), SearchRequest{Query: "vacaciones", Scope: MustScope("everyone")})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Trace.Translated != "" || !strings.Contains(res.Trace.TranslationMissing, fail.Error()) {
			t.Errorf("%s: trace translated %q, missing %q; want none, and the translator's error", name, res.Trace.Translated, res.Trace.TranslationMissing)
		}
		// Without a translation the extra part still corrects the asked words' typos.
		if q, n := store.ftsPart(FTSExtra); n != 1 || q.Alt != "" {
			t.Errorf("%s: extra part asked %d times as %+v, want once without a translation", name, n, q)
		}
		if len(emb.texts) != 1 || len(store.vectors) != 1 {
			t.Errorf("%s: embedded %q, %d vector searches; want the query alone", name, emb.texts, len(store.vectors))
		}
		if !slices.Equal(failures.reasons, []string{name}) {
			t.Errorf("observer told %v, want [%s]", failures.reasons, name)
		}
	}
}

func TestHybridTranslatesShortQueriesTheWayThatChangesThem(t *testing.T) {
	t.Parallel()
	// A fake Apertium: it knows "vacaciones" in Spanish and "coffee" in English, and returns
	// words it does not know as they were.
	var asked []string
	tr := translatorFunc(func(_ context.Context, text, from, to string) (string, error) {
		asked = append(asked, from+"-"+to)
		switch {
		case from == "es" && text == "vacaciones":
			return "holidays", nil
		case from == "en" && text == "How much does the Nariño coffee cost?":
			return "Cuánto cuesta el café Nariño?", nil
		}
		return text, nil
	})
	cases := []struct {
		query, wantFrom, wantTranslated string
		wantAsked                       []string
	}{
		{"vacaciones", "es", "holidays", []string{"en-es", "es-en"}},
		// The ñ of a name does not make an English question Spanish.
		{"How much does the Nariño coffee cost?", "en", "Cuánto cuesta el café Nariño?", []string{"en-es"}},
		// Nothing translatable either way: searched as it is.
		{"ERR_4402", "", "", []string{"en-es", "es-en"}},
	}
	for _, c := range cases {
		asked = nil
		opts := DefaultHybridOptions()
		opts.Translator = tr
		res, err := NewHybrid(&fakeArmStore{}, &recordingEmbedder{}, opts).Search(context.Background(), SearchRequest{Query: c.query, Scope: MustScope("everyone")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Trace.Translated != c.wantTranslated || (c.wantFrom != "" && res.Trace.TranslatedLang != OtherLang(c.wantFrom)) || !slices.Equal(asked, c.wantAsked) {
			t.Errorf("%q: translated %q into %q after asking %v; want %q from %s after %v",
				c.query, res.Trace.Translated, res.Trace.TranslatedLang, asked, c.wantTranslated, c.wantFrom, c.wantAsked)
		}
	}
}
