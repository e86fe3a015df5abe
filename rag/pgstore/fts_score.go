package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/rag"
)

// The full-text arm's scoring: BM25 over the chunks that may still enter the top k.
//
// A chunk's score is the sum, over the query's words, of the best of each word's terms (its
// variants): idf * weight * tf*(k1+1) / (tf + k1*(1-b+b*len/avglen)). That contribution never
// exceeds idf * weight * (k1+1), the word's bound (MaxScore's upper bound, from the document
// frequencies the store keeps per access class). Candidates are read in two rounds:
//
//  1. the chunks holding the words with the highest bounds, while their summed frequencies
//     stay within ftsFirstRound: every one of them is scored on every word, and the k-th best
//     score is a floor for the final top k;
//  2. the words left out are sorted by bound; those whose bounds together stay below the floor
//     cannot lift a chunk holding only them into the top k (non-essential), and only the
//     chunks holding one of the others are read, within what the budget leaves
//     (Store.FTSCandidateBudget). When no word is essential the first round was the whole
//     answer, exactly.
//
// Each round is one statement that reads its candidates once and returns, per candidate, the
// term frequency of every term (an array, in the terms' order) and the vectors' lengths; Go
// sums the scores. (The statement it replaced joined every candidate to every term, then
// aggregated twice in SQL: 8,492 candidate-term rows took 15 ms of a 24 ms search.)

// ftsFirstRound bounds the summed document frequency of the first round's words, as a multiple
// of k.
const ftsFirstRound = 5

// ftsCandidatesSQL returns, for each chunk the scope may read ($4 groups, $5/$6 period) that
// holds one of the generating lexemes ($7 stemmed, $8 simple; ” for none) and is not one of
// $9, its id, the length of its stemmed and simple vectors (when $2: BM25 normalises lengths;
// 0 else), and the frequency of
// each term of ($1 lexemes, $3 kinds 't' or 's') in order: in the stemmed vector a term counts
// 1 in the body, +2 in the title (A) and +1 in a section heading (B), a BM25F-style field
// weighting; in the simple vector, 1. It reads each candidate's vectors once and tests each
// term on them there.
const ftsCandidatesSQL = `
WITH t AS MATERIALIZED ( -- each term's tsqueries, parsed once
	SELECT array_agg(quote_literal(l)::tsquery ORDER BY o) AS q,
		array_agg((quote_literal(l) || ':A')::tsquery ORDER BY o) AS qa,
		array_agg((quote_literal(l) || ':B')::tsquery ORDER BY o) AS qb
	FROM unnest($1::text[]) WITH ORDINALITY AS x(l, o)
)
SELECT c.id, CASE WHEN $2::bool THEN length(c.tsv) ELSE 0 END, CASE WHEN $2::bool AND 's' = ANY($3::text[]) THEN length(c.tsv_simple) ELSE 0 END,
	ARRAY(SELECT CASE WHEN k.kind = 't' THEN
			CASE WHEN c.tsv @@ t.q[k.o] THEN 1 + 2 * (c.tsv @@ t.qa[k.o])::int + (c.tsv @@ t.qb[k.o])::int ELSE 0 END
		ELSE (c.tsv_simple @@ t.q[k.o])::int END
		FROM unnest($3::text[]) WITH ORDINALITY AS k(kind, o) ORDER BY k.o)
FROM chunks c, t
WHERE c.groups && $4::text[] AND cita_citable(c.valid, $5, $6)
  AND (($7::text <> '' AND c.tsv @@ $7::tsquery) OR ($8::text <> '' AND c.tsv_simple @@ $8::tsquery))
  AND c.id <> ALL($9::bigint[])`

// bm25Scorer scores candidates on a query's terms.
type bm25Scorer struct {
	terms []queryTerm
	avgT  float64 // average length of the stemmed vectors the scope reads
	avgS  float64 // and of the simple ones
}

// score returns a candidate's BM25 score from its terms' frequencies (in s.terms' order) and
// its vectors' lengths: each word counts its best term once. The words are summed in the order
// they first appear, so equal chunks score equal to the last bit and ties fall to the id.
func (s bm25Scorer) score(tf []int32, lenT, lenS int32) float64 {
	var words []int
	best := map[int]float64{}
	for i, t := range s.terms {
		f := float64(tf[i])
		if f == 0 {
			continue
		}
		rel := float64(lenT) / s.avgT
		if t.Kind == "s" {
			rel = float64(lenS) / s.avgS
		}
		v := t.IDF * t.Weight * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*rel))
		old, ok := best[t.Word]
		if !ok {
			words = append(words, t.Word)
		}
		if !ok || v > old {
			best[t.Word] = v
		}
	}
	var sum float64
	for _, w := range words {
		sum += best[w]
	}
	return sum
}

// wordBound is one query word's MaxScore bound and the summed document frequency of its
// terms, what generating candidates from it reads.
type wordBound struct {
	word  int
	bound float64
	df    int64
}

// wordBounds returns each word's bound (its best term's idf * weight * (k1+1)) and reading
// cost, highest bound first (then rarest, then in order).
func wordBounds(terms []queryTerm) []wordBound {
	byWord := map[int]*wordBound{}
	var order []int
	for _, t := range terms {
		b := byWord[t.Word]
		if b == nil {
			b = &wordBound{word: t.Word}
			byWord[t.Word] = b
			order = append(order, t.Word)
		}
		b.bound = max(b.bound, t.IDF*t.Weight*(bm25K1+1))
		b.df += t.DF
	}
	out := make([]wordBound, 0, len(order))
	for _, w := range order {
		out = append(out, *byWord[w])
	}
	slices.SortStableFunc(out, func(a, b wordBound) int {
		return cmp.Or(cmp.Compare(b.bound, a.bound), cmp.Compare(a.df, b.df), cmp.Compare(a.word, b.word))
	})
	return out
}

// scoredChunk is a candidate and its score.
type scoredChunk struct {
	id    int64
	score float64
}

// searchBM25 returns the k chunks the scope may read with the highest BM25 scores on terms,
// reading the candidates in the two rounds described above, at most about budget of them. It
// returns the hits ranked from 1 and how many candidates it read. With ties it also returns
// every chunk whose score equals the k-th (up to 2k in all): round 2 leaves unread only chunks
// scoring below the floor, so these are all the chunks tied with the k-th.
func (s *Store) searchBM25(ctx context.Context, terms []queryTerm, scorer bm25Scorer, scope rag.Scope, k int, budget int64, ties bool) ([]rag.ArmHit, int, error) {
	bounds := wordBounds(terms)
	// Round 1: the highest bounds, within ftsFirstRound*k of reading (always one word).
	first := min(int64(ftsFirstRound*k), budget)
	if s.ftsExhaustive {
		first = math.MaxInt64
	}
	var gen []int
	var spent int64
	for _, b := range bounds {
		if len(gen) > 0 && spent+b.df > first {
			break
		}
		gen = append(gen, b.word)
		spent += b.df
	}
	found, err := s.scoreCandidates(ctx, terms, gen, nil, scorer, scope)
	if err != nil {
		return nil, 0, err
	}
	read := len(found)
	// Round 2: the essential words among the rest, by the floor round 1 set.
	rest := bounds[len(gen):]
	if len(rest) > 0 {
		floor := kthScore(found, k)
		byBound := slices.Clone(rest)
		slices.SortStableFunc(byBound, func(a, b wordBound) int { return cmp.Compare(a.bound, b.bound) })
		var sum float64
		skip := 0
		for _, b := range byBound {
			if sum+b.bound >= floor {
				break
			}
			sum += b.bound
			skip++
		}
		essential := byBound[skip:]
		// Highest bounds first, within what the budget leaves.
		slices.SortStableFunc(essential, func(a, b wordBound) int {
			return cmp.Or(cmp.Compare(b.bound, a.bound), cmp.Compare(a.df, b.df))
		})
		var more []int
		for _, b := range essential {
			if spent+b.df > budget {
				break
			}
			more = append(more, b.word)
			spent += b.df
		}
		if len(more) > 0 {
			seen := make([]int64, len(found))
			for i, f := range found {
				seen[i] = f.id
			}
			again, err := s.scoreCandidates(ctx, terms, more, seen, scorer, scope)
			if err != nil {
				return nil, 0, err
			}
			found = append(found, again...)
			read += len(again)
		}
	}
	slices.SortFunc(found, func(a, b scoredChunk) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id))
	})
	keep := min(len(found), k)
	for ties && keep > 0 && keep < len(found) && keep < 2*k && found[keep].score == found[keep-1].score {
		keep++
	}
	found = found[:keep]
	hits := make([]rag.ArmHit, len(found))
	for i, f := range found {
		hits[i] = rag.ArmHit{ChunkID: f.id, Score: f.score, Rank: i + 1}
	}
	return hits, read, nil
}

// kthScore returns the k-th highest score of found, or 0 when there are fewer than k.
func kthScore(found []scoredChunk, k int) float64 {
	if len(found) < k || k <= 0 {
		return 0
	}
	scores := make([]float64, len(found))
	for i, f := range found {
		scores[i] = f.score
	}
	slices.SortFunc(scores, func(a, b float64) int { return cmp.Compare(b, a) })
	return scores[k-1]
}

// scoreCandidates reads the chunks the scope may read that hold a term of the words gen, other
// than those of exclude, and scores each on every term (ftsCandidatesSQL).
func (s *Store) scoreCandidates(ctx context.Context, terms []queryTerm, gen []int, exclude []int64, scorer bm25Scorer, scope rag.Scope) ([]scoredChunk, error) {
	generating := map[int]bool{}
	for _, w := range gen {
		generating[w] = true
	}
	lexemes, kinds := make([]string, len(terms)), make([]string, len(terms))
	var candT, candS []string
	for i, t := range terms {
		lexemes[i], kinds[i] = t.Lexeme, t.Kind
		if !generating[t.Word] {
			continue
		}
		if t.Kind == "s" {
			candS = append(candS, t.Lexeme)
		} else {
			candT = append(candT, t.Lexeme)
		}
	}
	if exclude == nil {
		exclude = []int64{}
	}
	from, until := periodArgs(scope)
	args := []any{lexemes, bm25B != 0, kinds, scope.Groups(), from, until, tsqueryOr(candT), tsqueryOr(candS), exclude}
	if err := explainFirst(ctx, s.pool, "full-text scoring", ftsCandidatesSQL, args...); err != nil {
		return nil, err
	}
	// Planned for this round's own terms every time (an unnamed statement, one round trip):
	// the generic plan of a prepared statement cannot see how rare the generating terms are and
	// scanned every readable chunk.
	rows, err := s.pool.Query(ctx, ftsCandidatesSQL, append([]any{pgx.QueryExecModeExec}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (scoredChunk, error) {
		var c scoredChunk
		var lenT, lenS int32
		var tf []int32
		if err := row.Scan(&c.id, &lenT, &lenS, &tf); err != nil {
			return c, err
		}
		if len(tf) != len(terms) {
			return c, fmt.Errorf("chunk %d: %d term frequencies for %d terms", c.id, len(tf), len(terms))
		}
		c.score = scorer.score(tf, lenT, lenS)
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return out, nil
}
