package pgstore

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/citahq/cita/rag"
)

// queryTerm is one lexeme the full-text arm looks for. Variants of one query word (its Spanish,
// English and unstemmed forms) share Word, and a chunk scores the best of them once.
type queryTerm struct {
	Word   int
	Kind   string // "t" stemmed vector, "s" simple vector
	Lexeme string
	DF     int64
	IDF    float64
	Weight float64 // 1 for the word itself, the trigram similarity for a fuzzy expansion
	Fuzzy  bool
}

// queryWords splits a question into words, keeping codes whole ("5.440.000", "ERR_4402",
// "SKU-77812") and dropping surrounding punctuation.
func queryWords(q string) []string {
	fields := strings.FieldsFunc(q, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`¿?¡!,;:"“”«»()[]{}<>|`, r)
	})
	out := fields[:0]
	for _, f := range fields {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// lookupTerms turns query words into lexemes with their document frequencies among what r may
// read (class_stats.go): each word's Spanish, English and unstemmed forms against the stemmed
// vector, its unstemmed form against the simple vector when no stemmed form is known, and the
// nearest vocabulary lexemes (pg_trgm) for words the index has never seen (typos) among those
// fuzzy allows (nil allows all). Every word counts only what r may read, a translated
// alternative's as much as the asked words'. Stopwords in either language are dropped.
func (s *Store) lookupTerms(ctx context.Context, words []string, fuzzy []bool, r readable) (terms []queryTerm, err error) {
	if len(words) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `
		WITH w AS (
			SELECT ord::int, word, cita_unaccent(lower(word)) AS plain FROM unnest($1::text[]) WITH ORDINALITY AS w(word, ord)
		), v AS (
			SELECT ord, plain,
				to_tsvector('spanish', plain) AS es, to_tsvector('english', plain) AS en, to_tsvector('simple', plain) AS si
			FROM w
		), lx AS (
			SELECT DISTINCT ord, 't' AS kind, l AS lexeme FROM v, unnest(tsvector_to_array(es || en || si)) l
			WHERE length(es) > 0 AND length(en) > 0
			UNION
			SELECT ord, 's', l FROM v, unnest(tsvector_to_array(si)) l
			WHERE length(es) > 0 AND length(en) > 0
		)
		SELECT lx.ord, lx.kind, lx.lexeme,
			CASE WHEN lx.kind = 't' THEN
				-- Counted in the readable access classes only (class_stats.go).
				coalesce((SELECT sum(st.df) FROM class_lexeme_stats st WHERE st.lexeme = lx.lexeme AND st.class_id = ANY($2::bigint[])), 0) +
				coalesce((SELECT sum(d.df) FROM class_lexeme_delta d WHERE d.lexeme = lx.lexeme AND d.class_id = ANY($2::bigint[])), 0)
			ELSE -1 -- counted below, only for the words that need the fallback
			END
		FROM lx
		ORDER BY lx.ord, lx.kind, lx.lexeme`, words, r.classes)
	if err != nil {
		return nil, fmt.Errorf("look up query terms: %w", err)
	}
	byWord := map[int][]queryTerm{}
	for rows.Next() {
		var t queryTerm
		if err := rows.Scan(&t.Word, &t.Kind, &t.Lexeme, &t.DF); err != nil {
			return nil, fmt.Errorf("look up query terms: %w", err)
		}
		t.Weight = 1
		byWord[t.Word] = append(byWord[t.Word], t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up query terms: %w", err)
	}
	var unknown []int
	for ord := 1; ord <= len(words); ord++ {
		variants := byWord[ord]
		if len(variants) == 0 {
			continue // a stopword
		}
		known, simple := false, []queryTerm{}
		for _, t := range variants {
			if t.Kind == "t" && t.DF > 0 {
				known = true
				terms = append(terms, t)
			}
		}
		if !known {
			for _, t := range variants {
				if t.Kind != "s" {
					continue
				}
				// A fallback for words the stemmed vocabulary lacks (names in another language):
				// rare by nature, so counting them through the GIN index is cheap.
				if err := s.pool.QueryRow(ctx, simpleDFSQL, tsqueryOr([]string{t.Lexeme}), r.groups).Scan(&t.DF); err != nil {
					return nil, fmt.Errorf("count %q: %w", t.Lexeme, err)
				}
				if t.DF > 0 {
					simple = append(simple, t)
				}
			}
		}
		switch {
		case known:
		case len(simple) > 0:
			terms = append(terms, simple...)
		default:
			unknown = append(unknown, ord)
		}
	}
	for _, ord := range unknown {
		if fuzzy != nil && !fuzzy[ord-1] {
			continue
		}
		w := words[ord-1]
		if len([]rune(w)) < 4 || rag.HasIdentifier(w) {
			continue // short words and codes are not corrected: "ERR_4403" must not become ERR_4402
		}
		near, err := s.nearestLexemes(ctx, w, 2, r)
		if err != nil {
			return nil, err
		}
		for _, f := range near {
			f.Word = ord
			terms = append(terms, f)
		}
	}
	return terms, nil
}

// nearestLexemes returns up to n vocabulary lexemes of the stemmed vector closest to word by
// trigram similarity, weighted by that similarity. Candidates come from the whole vocabulary
// (lexeme_stats), every one above pg_trgm's similarity threshold, and are kept only when what r
// may read holds them, ranked by their similarity and their frequency there: a correction, its
// rank and its frequency must not reveal that a word exists in documents the asker cannot see.
func (s *Store) nearestLexemes(ctx context.Context, word string, n int, r readable) ([]queryTerm, error) {
	rows, err := s.pool.Query(ctx, `
		WITH q AS (SELECT cita_unaccent(lower($1::text)) AS w),
		near AS (
			SELECT st.lexeme, public.similarity(st.lexeme, q.w) AS sim,
				-- Pending deltas count too: a document withheld, moved to other groups or deleted
				-- since the last compaction must stop counting for this scope at once.
				(coalesce((SELECT sum(c.df) FROM class_lexeme_stats c WHERE c.lexeme = st.lexeme AND c.class_id = ANY($3::bigint[])), 0) +
				 coalesce((SELECT sum(d.df) FROM class_lexeme_delta d WHERE d.lexeme = st.lexeme AND d.class_id = ANY($3::bigint[])), 0))::bigint AS df
			FROM lexeme_stats st, q
			WHERE st.lexeme OPERATOR(public.%) q.w
		)
		SELECT lexeme, df, sim FROM near
		WHERE df > 0
		ORDER BY sim DESC, df DESC, lexeme
		LIMIT $2`, word, n, r.classes)
	if err != nil {
		return nil, fmt.Errorf("fuzzy-expand %q: %w", word, err)
	}
	defer rows.Close()
	var out []queryTerm
	for rows.Next() {
		t := queryTerm{Kind: "t", Fuzzy: true}
		if err := rows.Scan(&t.Lexeme, &t.DF, &t.Weight); err != nil {
			return nil, fmt.Errorf("fuzzy-expand %q: %w", word, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// withIDF sets each term's BM25 inverse document frequency from the corpus size of its vector.
func withIDF(terms []queryTerm, n map[string]int64) {
	for i := range terms {
		N := float64(n[terms[i].Kind])
		df := float64(terms[i].DF)
		terms[i].IDF = math.Log(1 + (N-df+0.5)/(df+0.5))
	}
}

// candidateTerms picks the terms that generate candidates: the rarest first, then more while
// their summed document frequency stays within budget; always at least one.
func candidateTerms(terms []queryTerm, budget int64) []queryTerm {
	sorted := append([]queryTerm(nil), terms...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].DF < sorted[j].DF })
	var out []queryTerm
	var sum int64
	for _, t := range sorted {
		if len(out) > 0 && sum+t.DF > budget {
			break
		}
		out = append(out, t)
		sum += t.DF
	}
	return out
}

// tsqueryOr renders lexemes as an OR tsquery, quoting each lexeme.
func tsqueryOr(lexemes []string) string {
	parts := make([]string, 0, len(lexemes))
	for _, l := range lexemes {
		l = strings.NewReplacer(`\`, ``, `'`, `''`).Replace(l)
		if l != "" {
			parts = append(parts, "'"+l+"'")
		}
	}
	return strings.Join(parts, " | ")
}
