package pgstore

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

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
	Bridge bool // a word of a rendering of the question's words (rag.Bridge)
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

// termsSQL turns query words ($1) into lexemes with their document frequencies among the
// access classes the groups $2 may read (class_stats.go): each word's Spanish, English and
// unstemmed forms against the stemmed vector, and its unstemmed form for the simple vector
// (counted later, only for the words that need it). Stopwords in either language yield nothing.
const termsSQL = `
WITH cls AS (
	SELECT coalesce(array_agg(id), '{}') AS ids FROM access_classes WHERE groups && $2::text[]
), w AS (
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
		coalesce((SELECT sum(st.df) FROM class_lexeme_stats st WHERE st.lexeme = lx.lexeme AND st.class_id = ANY((SELECT ids FROM cls)::bigint[])), 0) +
		coalesce((SELECT sum(d.df) FROM class_lexeme_delta d WHERE d.lexeme = lx.lexeme AND d.class_id = ANY((SELECT ids FROM cls)::bigint[])), 0)
	ELSE -1 -- counted below, only for the words that need the fallback
	END
FROM lx
ORDER BY lx.ord, lx.kind, lx.lexeme`

// scanLookup reads termsSQL's rows into each word's variants, by word number (1-based).
func scanLookup(rows pgx.Rows) (map[int][]queryTerm, error) {
	defer rows.Close()
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
	return byWord, nil
}

// resolveTerms turns the looked-up variants of words into the terms to search: the stemmed
// forms the readable part of the index knows; for an asked word it lacks (one of the first
// nAsked), the unstemmed form when the simple vector holds it; else, among the words fuzzy
// allows (nil allows all), the nearest vocabulary lexemes (pg_trgm) of the longest few (typos).
// Every word counts only what r may read, a translated alternative's as much as the asked
// words'. A translated word gets no unstemmed fallback: it is a real word of the other
// language, which the stemmed vocabulary has if any readable chunk does, and counting it
// through the simple vector cost a scan per word.
func (s *Store) resolveTerms(ctx context.Context, words []string, nAsked int, fuzzy []bool, byWord map[int][]queryTerm, r readable) (terms []queryTerm, err error) {
	var unknown []int
	var fallback []queryTerm // simple-vector forms of the words the stemmed vocabulary lacks
	for ord := 1; ord <= len(words); ord++ {
		known := false
		for _, t := range byWord[ord] {
			if t.Kind == "t" && t.DF > 0 {
				known = true
				terms = append(terms, t)
			}
		}
		if known || ord > nAsked {
			continue
		}
		for _, t := range byWord[ord] {
			if t.Kind == "s" {
				fallback = append(fallback, t)
			}
		}
	}
	// A fallback for words the stemmed vocabulary lacks (names in another language): rare by
	// nature, so counting them through the GIN index is cheap; all of them in one round trip.
	counted, err := s.countSimple(ctx, fallback, r)
	if err != nil {
		return nil, err
	}
	found := map[int]bool{}
	for _, t := range counted {
		if t.DF > 0 {
			terms = append(terms, t)
			found[t.Word] = true
		}
	}
	for ord := 1; ord <= len(words); ord++ {
		if len(byWord[ord]) == 0 || found[ord] {
			continue // a stopword, or found by its simple form
		}
		known := false
		for _, t := range byWord[ord] {
			known = known || (t.Kind == "t" && t.DF > 0)
		}
		if !known {
			unknown = append(unknown, ord)
		}
	}
	var correct []int
	for _, ord := range unknown {
		w := words[ord-1]
		if (fuzzy != nil && !fuzzy[ord-1]) || len([]rune(w)) < 4 || rag.HasIdentifier(w) {
			continue // short words and codes are not corrected: "ERR_4403" must not become ERR_4402
		}
		correct = append(correct, ord)
	}
	// A long question names many words a corpus lacks, most of them not typos: correcting every
	// one would cost a vocabulary search each and add noise. The longest few are corrected.
	sort.SliceStable(correct, func(i, j int) bool {
		return len([]rune(words[correct[i]-1])) > len([]rune(words[correct[j]-1]))
	})
	if len(correct) > maxFuzzyWords {
		correct = correct[:maxFuzzyWords]
	}
	sort.Ints(correct)
	near, err := s.nearestLexemes(ctx, words, correct, 2, r)
	if err != nil {
		return nil, err
	}
	return append(terms, near...), nil
}

// maxFuzzyWords is how many unknown words of one question are corrected at most.
const maxFuzzyWords = 3

// fuzzyPool is how many of the closest lexemes to an unknown word that the scope may read are
// ranked for the corrections.
const fuzzyPool = 30

// countSimple sets the document frequency of each simple-vector term among the chunks r may
// read, counting up to 10,000, in one query.
func (s *Store) countSimple(ctx context.Context, terms []queryTerm, r readable) ([]queryTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	queries := make([]string, len(terms))
	for i, t := range terms {
		queries[i] = tsqueryOr([]string{t.Lexeme})
	}
	rows, err := s.pool.Query(ctx, simpleDFSQL, queries, r.groups)
	if err != nil {
		return nil, fmt.Errorf("count unstemmed query terms: %w", err)
	}
	defer rows.Close()
	out := append([]queryTerm(nil), terms...)
	for i := 0; rows.Next(); i++ {
		if err := rows.Scan(&out[i].DF); err != nil {
			return nil, fmt.Errorf("count unstemmed query terms: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count unstemmed query terms: %w", err)
	}
	return out, nil
}

// nearestLexemes returns, for each word of words numbered in ords (1-based), up to n vocabulary
// lexemes of the stemmed vector closest to it by trigram similarity, weighted by that
// similarity, all in one query. Candidates are the lexemes above pg_trgm's similarity threshold
// that what r may read holds (counted in the SQL, before any limit), the fuzzyPool closest of
// them ranked by their similarity and their frequency there: a correction, its rank and its
// frequency must not reveal that a word exists in documents the asker cannot see, nor may such
// words crowd a readable correction out.
func (s *Store) nearestLexemes(ctx context.Context, words []string, ords []int, n int, r readable) ([]queryTerm, error) {
	if len(ords) == 0 {
		return nil, nil
	}
	asked := make([]string, len(ords))
	nums := make([]int32, len(ords))
	for i, ord := range ords {
		asked[i], nums[i] = words[ord-1], int32(ord)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT q.ord, best.lexeme, best.df, best.sim
		FROM unnest($1::text[], $4::int[]) AS q0(word, ord)
		CROSS JOIN LATERAL (SELECT cita_unaccent(lower(q0.word)) AS w, q0.ord) q
		CROSS JOIN LATERAL (
			SELECT near.lexeme, near.df, near.sim FROM (
				-- The closest few of what the scope may read: every lexeme above the threshold
				-- is counted in the scope first, so lexemes only unreadable documents hold
				-- neither fill the pool nor push a readable one out of it.
				SELECT st.lexeme, st.sim, st.df FROM (
					SELECT v.lexeme, public.similarity(v.lexeme, q.w) AS sim,
						-- Pending deltas count too: a document withheld, moved to other groups or
						-- deleted since the last compaction must stop counting for this scope at once.
						(coalesce((SELECT sum(c.df) FROM class_lexeme_stats c WHERE c.lexeme = v.lexeme AND c.class_id = ANY($3::bigint[])), 0) +
						 coalesce((SELECT sum(d.df) FROM class_lexeme_delta d WHERE d.lexeme = v.lexeme AND d.class_id = ANY($3::bigint[])), 0))::bigint AS df
					FROM lexeme_stats v
					WHERE v.lexeme OPERATOR(public.%) q.w
				) st
				WHERE st.df > 0
				ORDER BY st.sim DESC, st.lexeme
				LIMIT $5
			) near
			ORDER BY near.sim DESC, near.df DESC, near.lexeme
			LIMIT $2
		) best
		ORDER BY q.ord, best.sim DESC, best.df DESC, best.lexeme`, asked, n, r.classes, nums, fuzzyPool)
	if err != nil {
		return nil, fmt.Errorf("fuzzy-expand %q: %w", asked, err)
	}
	defer rows.Close()
	var out []queryTerm
	for rows.Next() {
		t := queryTerm{Kind: "t", Fuzzy: true}
		if err := rows.Scan(&t.Word, &t.Lexeme, &t.DF, &t.Weight); err != nil {
			return nil, fmt.Errorf("fuzzy-expand %q: %w", asked, err)
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

// maxScoredWords is how many query words the full-text arm scores at most, so that its cost
// stops growing with the question's length: candidates times terms.
const maxScoredWords = 10

// strongestWords keeps the terms of the max query words that can add the most to a chunk's
// score (MaxScore's upper bound: the best variant's IDF times its weight), dropping the
// commonest words of a long question, whose contribution is the smallest. Terms keep their order.
func strongestWords(terms []queryTerm, max int) []queryTerm {
	bound := map[int]float64{}
	for _, t := range terms {
		bound[t.Word] = math.Max(bound[t.Word], t.IDF*t.Weight)
	}
	if len(bound) <= max {
		return terms
	}
	words := make([]int, 0, len(bound))
	for w := range bound {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if bound[words[i]] != bound[words[j]] {
			return bound[words[i]] > bound[words[j]]
		}
		return words[i] < words[j]
	})
	keep := map[int]bool{}
	for _, w := range words[:max] {
		keep[w] = true
	}
	var out []queryTerm
	for _, t := range terms {
		if keep[t.Word] {
			out = append(out, t)
		}
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
