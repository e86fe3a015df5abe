package rag

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// fakeArmStore records what the arms were asked.
type fakeArmStore struct {
	fts     []FTSQuery
	vectors [][]float32
}

func (f *fakeArmStore) SearchVector(_ context.Context, vec []float32, _ Scope, _ int) ([]ArmHit, error) {
	f.vectors = append(f.vectors, vec)
	return []ArmHit{{ChunkID: 1, Rank: 1, Score: 0.5}}, nil
}

func (f *fakeArmStore) SearchFTS(_ context.Context, q FTSQuery, _ Scope, _ int) ([]ArmHit, []string, error) {
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

// recordingEmbedder records what it embeds; text i becomes the unit vector e_i, so a mean shows.
type recordingEmbedder struct{ texts [][]string }

func (e *recordingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.texts = append(e.texts, texts)
	out := make([][]float32, len(texts))
	for i := range texts {
		v := make([]float32, 4)
		v[i%4] = 1
		out[i] = v
	}
	return out, nil
}

type translatorFunc func(ctx context.Context, text, from, to string) (string, error)

func (f translatorFunc) Translate(ctx context.Context, text, from, to string) (string, error) {
	return f(ctx, text, from, to)
}

func TestHybridSearchesTheTranslationInBothArms(t *testing.T) {
	t.Parallel()
	var asked [][3]string
	tr := translatorFunc(func(_ context.Context, text, from, to string) (string, error) {
		asked = append(asked, [3]string{text, from, to})
		return "Who approves a deployment?", nil
	})
	store, emb := &fakeArmStore{}, &recordingEmbedder{}
	opts := DefaultHybridOptions()
	opts.Translator = tr
	res, err := NewHybrid(store, emb, opts).Search(context.Background(), SearchRequest{Query: "¿Quién aprueba un despliegue?", Scope: MustScope("everyone")})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != [3]string{"¿Quién aprueba un despliegue?", "es", "en"} {
		t.Errorf("translator asked %v, want the query once, es to en", asked)
	}
	if res.Trace.Translated != "Who approves a deployment?" || res.Trace.TranslatedLang != "en" {
		t.Errorf("trace translated %q (%s)", res.Trace.Translated, res.Trace.TranslatedLang)
	}
	want := FTSQuery{Text: "¿Quién aprueba un despliegue?", Alt: "Who approves a deployment?", AltWeight: opts.TranslatedWeight}
	if len(store.fts) != 1 || store.fts[0] != want {
		t.Errorf("full-text arm asked %+v, want %+v", store.fts, want)
	}
	if len(emb.texts) != 1 || !slices.Equal(emb.texts[0], []string{"¿Quién aprueba un despliegue?", "Who approves a deployment?"}) {
		t.Errorf("embedded %q, want the query and its translation", emb.texts)
	}
	if v, w := store.vectors[0], opts.TranslatedVectorWeight; v[0] == 0 || math.Abs(float64(v[1]/v[0])-w) > 1e-6 {
		t.Errorf("vector arm searched %v, want the query's vector plus %.1f times the translation's, normalised", v, w)
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
	if store.fts[0].Alt != "¿Cómo despliego billing-api en staging?" {
		t.Errorf("full-text alternative %q, want the request's translation", store.fts[0].Alt)
	}
}

func TestHybridWithoutWorkingTranslatorIsMonolingual(t *testing.T) {
	t.Parallel()
	for name, tr := range map[string]Translator{
		"none":    nil,
		"failing": translatorFunc(func(context.Context, string, string, string) (string, error) { return "", errors.New("down") }),
	} {
		store, emb := &fakeArmStore{}, &recordingEmbedder{}
		opts := DefaultHybridOptions()
		opts.Translator = tr
		res, err := NewHybrid(store, emb, opts).Search(context.Background(), SearchRequest{Query: "vacaciones", Scope: MustScope("everyone")})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if store.fts[0].Alt != "" || len(emb.texts[0]) != 1 || res.Trace.Translated != "" || res.Trace.TranslatedLang != "" {
			t.Errorf("%s: searched a translation (fts %+v, embedded %q, trace %q)", name, store.fts[0], emb.texts[0], res.Trace.Translated)
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
