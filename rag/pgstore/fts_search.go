package pgstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/rag"
)

// BM25 parameters. Term frequency counts title (A) occurrences three times and section (B)
// occurrences twice, a BM25F-style field weighting.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// SearchFTS ranks the chunks the scope may read by BM25 over their tsvectors. Query words are
// OR-ed (a natural question never contains every word of its answer), rare terms weigh more than
// common ones, misspelled words are expanded to their nearest vocabulary lexemes, and the access
// filter sits in the WHERE. Every statistic (document frequencies, corpus size and average
// length) and every expansion comes from what the scope may read (class_stats.go), so neither
// the ranking nor the terms it reports depend on documents the scope may not read.
// The query's translation (query.Alt), when given, adds its words as alternatives weighted by
// query.AltWeight, counted under the same scope; a translated word whose lexemes the query
// already has adds nothing.
// It returns the ranking and the terms it used, for the trace.
func (s *Store) SearchFTS(ctx context.Context, query rag.FTSQuery, scope rag.Scope, k int) ([]rag.ArmHit, []string, error) {
	if scope.Empty() {
		return nil, nil, rag.ErrNoScope
	}
	asked := queryWords(query.Text)
	var alt []string
	if query.AltWeight > 0 && query.Part != rag.FTSAsked {
		alt = queryWords(query.Alt)
	}
	fuzzy := fuzzyWords(asked, alt)
	if query.Part == rag.FTSAsked {
		fuzzy = make([]bool, len(asked)) // corrections are FTSExtra's
	}
	alt = novelWords(alt, asked)
	bridged := bridgeWords(query.Bridges, asked, query.Part == rag.FTSExtra)
	words := append(append(asked, alt...), bridged.words...)
	fuzzy = padFalse(fuzzy, len(words)) // bridges are real words: never corrected
	if len(words) == 0 {
		return nil, nil, nil
	}
	// One round trip for what every query needs: the readable classes, the words' lexemes and
	// frequencies, and the readable corpus's size.
	batch := &pgx.Batch{}
	batch.Queue(readableSQL, scope.Groups())
	batch.Queue(termsSQL, words, scope.Groups())
	batch.Queue(scopeCorpusSQL, scope.Groups())
	br := s.pool.SendBatch(ctx, batch)
	r := readable{groups: scope.Groups()}
	if err := br.QueryRow().Scan(&r.classes); err != nil {
		br.Close()
		return nil, nil, fmt.Errorf("full-text search: access classes: %w", err)
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, nil, fmt.Errorf("look up query terms: %w", err)
	}
	byWord, err := scanLookup(rows)
	if err != nil {
		br.Close()
		return nil, nil, err
	}
	n, avg, err := scanCorpus(br)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("full-text search: %w", cerr)
	}
	if err != nil {
		return nil, nil, err
	}
	terms, err := s.resolveTerms(ctx, words, len(asked), fuzzy, byWord, r)
	if err != nil {
		return nil, nil, err
	}
	terms, rendered := bridged.weigh(terms, len(asked)+len(alt))
	terms = weighTranslated(terms, len(asked), len(alt), query.AltWeight)
	notes := wordNotes(query.Part, asked, byWord, terms, bridged, rendered)
	if len(terms) == 0 {
		return nil, notes, nil
	}
	withIDF(terms, n)
	terms = strongestWords(terms, maxScoredWords)
	// The words scored and the candidate terms are chosen as for the whole query; FTSExtra then
	// keeps its own: a translated word weaker than the question's strongest costs nothing, and
	// its candidates are the chunks its rare terms reach (the asked part has the others; a chunk
	// both reach sums both parts' scores).
	cands := candidateTerms(terms, int64(s.FTSCandidateBudget))
	if query.Part == rag.FTSExtra {
		terms, cands = extraTerms(terms, len(asked)), extraTerms(cands, len(asked))
		if len(terms) == 0 || len(cands) == 0 {
			return nil, notes, nil
		}
	}
	labels := notes
	for _, t := range terms {
		label := t.Lexeme
		if t.Kind == "s" {
			label = "=" + label
		}
		if t.Fuzzy {
			label = "~" + label
		}
		switch {
		case t.Bridge:
			label = "≈" + label
		case t.Word > len(asked):
			label = "→" + label
		}
		labels = append(labels, label)
	}

	var candT, candS []string
	for _, t := range cands {
		if t.Kind == "s" {
			candS = append(candS, t.Lexeme)
		} else {
			candT = append(candT, t.Lexeme)
		}
	}
	nums := make([]int32, len(terms))
	kinds := make([]string, len(terms))
	lexemes := make([]string, len(terms))
	idfs := make([]float64, len(terms))
	for i, t := range terms {
		nums[i], kinds[i], lexemes[i], idfs[i] = int32(t.Word), t.Kind, t.Lexeme, t.IDF*t.Weight
	}
	from, until := periodArgs(scope)
	// Planned for this query's own terms every time (an unnamed statement, described first):
	// after five runs of a prepared statement PostgreSQL may settle on a generic plan, which
	// cannot see how rare the candidate terms are and scanned every readable chunk (a 12k-chunk
	// corpus: scoring p50 about 86 ms generic, 24 ms planned per query, on a loaded machine).
	args := []any{nums, kinds, lexemes, idfs,
		scope.Groups(), tsqueryOr(candT), tsqueryOr(candS),
		bm25K1, bm25B, max(avg["t"], 1), max(avg["s"], 1), k, from, until}
	if err := explainFirst(ctx, s.pool, "full-text scoring", ftsSQL, args...); err != nil {
		return nil, nil, err
	}
	rows, err = s.pool.Query(ctx, ftsSQL, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("full-text search: %w", err)
	}
	hits, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (rag.ArmHit, error) {
		var h rag.ArmHit
		return h, row.Scan(&h.ChunkID, &h.Score)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("full-text search: %w", err)
	}
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, labels, nil
}

// scanCorpus reads scopeCorpusSQL's result from the batch: per vector kind, the readable chunks
// and their average length.
func scanCorpus(br pgx.BatchResults) (n map[string]int64, avg map[string]float64, err error) {
	n, avg = map[string]int64{}, map[string]float64{}
	rows, err := br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("full-text search: corpus stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var chunks, total int64
		if err := rows.Scan(&kind, &chunks, &total); err != nil {
			return nil, nil, fmt.Errorf("full-text search: corpus stats: %w", err)
		}
		n[kind] = chunks
		avg[kind] = float64(total) / float64(max(chunks, 1))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("full-text search: corpus stats: %w", err)
	}
	return n, avg, nil
}

// fuzzyWords says which words may be corrected when the index lacks them: without a
// translation, all of them (typos); with one, only the asked words the translation repeats as
// they were, which the translator did not know either (typos, names), never the translation's.
// A word it did translate is a real word of the question's language, found through its
// translation; "correcting" it into the other language's vocabulary ("sacks" into "sac") only
// adds noise.
func fuzzyWords(asked, alt []string) []bool {
	out := make([]bool, len(asked)+len(alt))
	if len(alt) == 0 {
		for i := range out {
			out[i] = true
		}
		return out
	}
	repeated := map[string]bool{}
	for _, w := range alt {
		repeated[strings.ToLower(w)] = true
	}
	for i, w := range asked {
		out[i] = repeated[strings.ToLower(w)]
	}
	return out
}

// novelWords returns the words of alt that are not words of asked (letter case aside): the
// names, codes and numbers a translation repeats would only be looked up to be dropped
// (weighTranslated).
func novelWords(alt, asked []string) []string {
	if len(alt) == 0 {
		return alt
	}
	own := make(map[string]bool, len(asked))
	for _, w := range asked {
		own[strings.ToLower(w)] = true
	}
	var out []string
	for _, w := range alt {
		if !own[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	return out
}

// weighTranslated scales the weight of the terms of translated words (nQuery < Word <=
// nQuery+nAlt) and drops a translated word whose every lexeme the query's own words already
// have (names and numbers pass through translation unchanged and must not count twice).
func weighTranslated(terms []queryTerm, nQuery, nAlt int, weight float64) []queryTerm {
	translated := func(t queryTerm) bool { return !t.Bridge && t.Word > nQuery && t.Word <= nQuery+nAlt }
	own := map[string]bool{}
	for _, t := range terms {
		if t.Word <= nQuery && !t.Bridge {
			own[t.Kind+t.Lexeme] = true
		}
	}
	novel := map[int]bool{}
	for _, t := range terms {
		if translated(t) && !own[t.Kind+t.Lexeme] {
			novel[t.Word] = true
		}
	}
	out := terms[:0]
	for _, t := range terms {
		if translated(t) {
			if !novel[t.Word] {
				continue
			}
			t.Weight *= weight
		}
		out = append(out, t)
	}
	return out
}

// extraTerms keeps what a translation adds to the asked words (FTSExtra): the terms of the
// translated words (Word > nAsked), the bridges and the corrections of asked words.
func extraTerms(terms []queryTerm, nAsked int) []queryTerm {
	out := terms[:0]
	for _, t := range terms {
		if t.Word > nAsked || t.Fuzzy || t.Bridge {
			out = append(out, t)
		}
	}
	return out
}

// ftsSQL scores candidates with BM25. Candidates come from the rare terms' GIN lookups under the
// access filter. Term frequency is read from the tsvector's weights rather than by unnesting it
// (unnest costs ~80 µs per chunk, which dominates at thousands of candidates): a term counts 1 in
// the body, +2 in the title (A) and +1 in a section heading (B), a BM25F-style field weighting.
// Every query term then contributes idf * tf*(k1+1) / (tf + k1*(1-b+b*dl/avgdl)), and the
// variants of one query word count once (their best).
const ftsSQL = `
WITH terms AS MATERIALIZED ( -- parse each term's tsqueries once
	SELECT t.word, t.kind, t.idf,
		quote_literal(t.lexeme)::tsquery AS q,
		(quote_literal(t.lexeme) || ':A')::tsquery AS qa,
		(quote_literal(t.lexeme) || ':B')::tsquery AS qb
	FROM unnest($1::int[], $2::text[], $3::text[], $4::float8[]) AS t(word, kind, lexeme, idf)
), cand AS MATERIALIZED (
	-- "|| ''" detoasts and decompresses each vector once, not once per term test.
	SELECT c.id, c.tsv || ''::tsvector AS tsv,
		CASE WHEN 's' = ANY($2::text[]) THEN c.tsv_simple || ''::tsvector END AS tsv_simple
	FROM chunks c
	WHERE c.groups && $5::text[] AND cita_citable(c.valid, $13, $14)
	  AND (($6 <> '' AND c.tsv @@ $6::tsquery) OR ($7 <> '' AND c.tsv_simple @@ $7::tsquery))
), tf AS MATERIALIZED (
	SELECT cand.id, t.word, t.idf,
		CASE WHEN t.kind = 't' THEN
			CASE WHEN cand.tsv @@ t.q THEN 1 + 2 * (cand.tsv @@ t.qa)::int + (cand.tsv @@ t.qb)::int ELSE 0 END
		ELSE (cand.tsv_simple @@ t.q)::int END AS tf,
		CASE WHEN t.kind = 't' THEN length(cand.tsv)::float8 / $10 ELSE length(cand.tsv_simple)::float8 / $11 END AS rel_len
	FROM cand CROSS JOIN terms t
), per_word AS (
	SELECT id, word, max(idf * tf * ($8 + 1) / (tf + $8 * (1 - $9 + $9 * rel_len))) AS score
	FROM tf WHERE tf > 0
	GROUP BY id, word
)
SELECT id, sum(score) AS score FROM per_word GROUP BY id ORDER BY score DESC, id LIMIT $12`

// padFalse returns b cut or extended with false to n entries.
func padFalse(b []bool, n int) []bool {
	if len(b) >= n {
		return b[:n]
	}
	return append(b, make([]bool, n-len(b))...)
}
