package pgbot

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

var _ bot.GapStore = (*Store)(nil)

// gapEligibleSQL is the privacy rule of the gap record, in the WHERE of every statement that
// reads it (a is bot_answers): a question counts only when it was a gap (declined, hedged, or
// 👎 by someone) on a chat platform, and either asked where everyone in its audience could see
// it (a public channel, the reply shown to everyone, not ephemeral) or shared by its asker.
// A DM, a private channel, an assistant thread, an ephemeral reply, the CLI and MCP give
// neither text nor a count. A withdrawn answer is left out too.
const gapEligibleSQL = `a.reason = '' AND a.redacted_at IS NULL AND a.platform IN ('slack', 'discord')
	AND (a.abstained OR a.hedged OR EXISTS (SELECT 1 FROM bot_feedback f WHERE f.answer_id = a.id AND f.rating = -1))
	AND ((a.public AND NOT a.ephemeral AND a.visible_to = '') OR a.gap_shared_by = a.asker AND a.gap_shared_by <> '')`

// gapLock serialises the grouping across replicas (pg_advisory_xact_lock's key).
const gapLock = "cita:gap_topics"

// gapGroupBatch bounds the questions one AssignGapTopics call groups.
const gapGroupBatch = 1000

// GapReader reads a question's topic signature (rag.TopicReader.Signature).
type GapReader func(ctx context.Context, question string) rag.Signature

// AssignGapTopics groups the gap questions not grouped yet (at most gapGroupBatch of them,
// oldest first) into topics, going on from the stored grouping, and returns how many it
// grouped. Replicas take turns (an advisory lock); threshold <= 0 means the default.
func (s *Store) AssignGapTopics(ctx context.Context, read GapReader, threshold float64) (int, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("group gaps: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, gapLock); err != nil {
		return 0, fmt.Errorf("group gaps: lock: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT a.id, CASE WHEN a.standalone_query <> '' THEN a.standalone_query ELSE a.question END
		FROM bot_answers a WHERE a.gap_topic IS NULL AND `+gapEligibleSQL+` ORDER BY a.id LIMIT $1`, gapGroupBatch)
	if err != nil {
		return 0, fmt.Errorf("group gaps: pending: %w", err)
	}
	type pending struct {
		id       int64
		question string
	}
	todo, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pending, error) {
		var p pending
		return p, r.Scan(&p.id, &p.question)
	})
	if err != nil || len(todo) == 0 {
		if err != nil {
			err = fmt.Errorf("group gaps: pending: %w", err)
		}
		return 0, err
	}
	topics, err := loadTopics(ctx, tx, threshold)
	if err != nil {
		return 0, err
	}
	before := topics.Len()
	assigned := make([]int, len(todo))
	touched := map[int]bool{}
	for i, p := range todo {
		assigned[i] = topics.Assign(read(ctx, p.question))
		touched[assigned[i]] = true
	}
	for i := range topics.Len() {
		if !touched[i] {
			continue
		}
		t := topics.Topic(i)
		sig, err := json.Marshal(t.Sum)
		if err != nil {
			return 0, fmt.Errorf("group gaps: %w", err)
		}
		if i >= before {
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO gap_topics (signature, members) VALUES ($1, $2) RETURNING id`, sig, t.Count).Scan(&id); err != nil {
				return 0, fmt.Errorf("group gaps: new topic: %w", err)
			}
			topics.SetID(i, id)
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE gap_topics SET signature = $2, members = $3 WHERE id = $1`, t.ID, sig, t.Count); err != nil {
			return 0, fmt.Errorf("group gaps: topic %d: %w", t.ID, err)
		}
	}
	ids, topicIDs := make([]int64, len(todo)), make([]int64, len(todo))
	for i, p := range todo {
		ids[i], topicIDs[i] = p.id, topics.Topic(assigned[i]).ID
	}
	if _, err := tx.Exec(ctx, `UPDATE bot_answers a SET gap_topic = x.topic
		FROM unnest($1::bigint[], $2::bigint[]) AS x(id, topic) WHERE a.id = x.id`, ids, topicIDs); err != nil {
		return 0, fmt.Errorf("group gaps: assign: %w", err)
	}
	df, n := topics.DF()
	concepts, counts := []string{""}, []int32{int32(n)}
	for k, c := range df {
		concepts, counts = append(concepts, k), append(counts, int32(c))
	}
	if _, err := tx.Exec(ctx, `INSERT INTO gap_concepts (concept, df) SELECT * FROM unnest($1::text[], $2::int[])
		ON CONFLICT (concept) DO UPDATE SET df = EXCLUDED.df`, concepts, counts); err != nil {
		return 0, fmt.Errorf("group gaps: concepts: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("group gaps: %w", err)
	}
	return len(todo), nil
}

// loadTopics restores the stored grouping.
func loadTopics(ctx context.Context, tx pgx.Tx, threshold float64) (*rag.Topics, error) {
	rows, err := tx.Query(ctx, `SELECT id, signature, members FROM gap_topics ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("group gaps: topics: %w", err)
	}
	stored, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (rag.TopicState, error) {
		var t rag.TopicState
		var sig []byte
		if err := r.Scan(&t.ID, &sig, &t.Count); err != nil {
			return t, err
		}
		return t, json.Unmarshal(sig, &t.Sum)
	})
	if err != nil {
		return nil, fmt.Errorf("group gaps: topics: %w", err)
	}
	rows, err = tx.Query(ctx, `SELECT concept, df FROM gap_concepts`)
	if err != nil {
		return nil, fmt.Errorf("group gaps: concepts: %w", err)
	}
	df, n := map[string]int{}, 0
	for rows.Next() {
		var k string
		var c int
		if err := rows.Scan(&k, &c); err != nil {
			rows.Close()
			return nil, fmt.Errorf("group gaps: concepts: %w", err)
		}
		if k == "" {
			n = c
		} else {
			df[k] = c
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("group gaps: concepts: %w", err)
	}
	return rag.RestoreTopics(threshold, stored, df, n), nil
}

// ShareGap implements bot.GapStore.
func (s *Store) ShareGap(ctx context.Context, answerID int64, userID string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE bot_answers SET gap_shared_by = asker, gap_shared_at = now()
		WHERE id = $1 AND asker = $2 AND $2 <> '' AND reason = '' AND redacted_at IS NULL AND (abstained OR hedged)
		  AND platform IN ('slack', 'discord')`, answerID, userID)
	if err != nil {
		return fmt.Errorf("share question %d: %w", answerID, err)
	}
	if tag.RowsAffected() == 0 {
		return bot.ErrNotShareable
	}
	return nil
}

// gapReportSQL reads the grouped gap questions asked since $1 ($2/$3 platform and workspace, ”
// for all), each with the documents of its top hits that the reader ($4 groups) may read now,
// nearest first. The reader's groups are in the WHERE of the documents it may see; a question
// whose nearest documents it may not read still counts, named by no document.
const gapReportSQL = `
SELECT a.id, a.gap_topic, t.signature, a.question, a.lang, a.created_at, a.abstained, a.hedged,
	EXISTS (SELECT 1 FROM bot_feedback f WHERE f.answer_id = a.id AND f.rating = -1),
	a.gap_shared_by <> '' AND NOT (a.public AND NOT a.ephemeral AND a.visible_to = ''),
	a.gap_resolved_at IS NOT NULL,
	COALESCE((SELECT jsonb_agg(jsonb_build_object('title', d.title, 'url', d.url, 'source', d.source, 'owner', d.owner)
			ORDER BY (SELECT min(s.o) FROM jsonb_array_elements(a.sources) WITH ORDINALITY AS s(src, o)
			          WHERE (s.src->>'document_id')::bigint = ad.document_id) NULLS LAST, ad.document_id)
		FROM bot_answer_documents ad JOIN documents d ON d.id = ad.document_id
		WHERE ad.answer_id = a.id AND d.groups && $4::text[] AND ad.doc_groups && $4::text[]), '[]')
FROM bot_answers a JOIN gap_topics t ON t.id = a.gap_topic
WHERE a.gap_topic IS NOT NULL AND a.created_at >= $1
  AND ($2 = '' OR a.platform = $2) AND ($3 = '' OR a.workspace = $3)
  AND ` + gapEligibleSQL + `
ORDER BY a.created_at DESC, a.id DESC`

// gapQuestionsShown bounds the questions a topic shows.
const gapQuestionsShown = 5

// GapReport implements bot.GapStore.
func (s *Store) GapReport(ctx context.Context, q bot.GapQuery) ([]bot.GapTopic, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	reader := q.Reader.Groups()
	if reader == nil {
		reader = []string{}
	}
	rows, err := s.pool.Query(ctx, gapReportSQL, q.Since, q.Platform, q.Workspace, reader)
	if err != nil {
		return nil, fmt.Errorf("gap report: %w", err)
	}
	type gapRow struct {
		topic                                    int64
		signature                                rag.Signature
		question, lang                           string
		at                                       time.Time
		declined, hedged, down, shared, resolved bool
		near                                     []bot.GapDocument
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (gapRow, error) {
		var g gapRow
		var id int64
		var sig, near []byte
		if err := r.Scan(&id, &g.topic, &sig, &g.question, &g.lang, &g.at, &g.declined, &g.hedged, &g.down, &g.shared, &g.resolved, &near); err != nil {
			return g, err
		}
		if err := json.Unmarshal(sig, &g.signature); err != nil {
			return g, fmt.Errorf("topic %d: %w", g.topic, err)
		}
		return g, json.Unmarshal(near, &g.near)
	})
	if err != nil {
		return nil, fmt.Errorf("gap report: %w", err)
	}
	questions := make([]string, len(all))
	for i, g := range all {
		questions[i] = g.question
	}
	names, err := s.unknownNames(ctx, reader, questions)
	if err != nil {
		return nil, err
	}
	type key struct {
		topic         int64
		owner, source string
	}
	byKey := map[key]*bot.GapTopic{}
	var order []key
	for _, g := range all {
		var first bot.GapDocument
		if len(g.near) > 0 {
			first = g.near[0]
		}
		if q.Source != "" && first.Source != q.Source {
			continue
		}
		k := key{g.topic, first.Owner, first.Source}
		t := byKey[k]
		if t == nil {
			t = &bot.GapTopic{Topic: g.topic, Concepts: conceptLabels(g.signature, 4), Owner: first.Owner, Source: first.Source, LastAsked: g.at}
			byKey[k] = t
			order = append(order, k)
		}
		t.Asked++
		t.FirstAsked = g.at // rows come newest first
		switch {
		case g.resolved:
			t.Resolved++
		default:
			t.Open++
		}
		switch {
		case g.declined:
			t.Declined++
		case g.hedged:
			t.Hedged++
		}
		if g.down {
			t.Downvoted++
		}
		if g.shared {
			t.Shared++
		}
		if g.lang != "" && !slices.Contains(t.Langs, g.lang) {
			t.Langs = append(t.Langs, g.lang)
		}
		masked := bot.MaskQuestion(g.question, names)
		if len(t.Questions) < gapQuestionsShown && !slices.ContainsFunc(t.Questions, func(s string) bool { return strings.EqualFold(s, masked) }) {
			t.Questions = append(t.Questions, masked)
		}
		for _, d := range g.near {
			if len(t.Nearest) < 3 && !slices.Contains(t.Nearest, d) {
				t.Nearest = append(t.Nearest, d)
			}
		}
	}
	out := make([]bot.GapTopic, 0, len(order))
	for _, k := range order {
		t := byKey[k]
		sort.Strings(t.Langs)
		out = append(out, *t)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Open != out[j].Open {
			return out[i].Open > out[j].Open
		}
		return out[i].LastAsked.After(out[j].LastAsked)
	})
	return out[:min(len(out), limit)], nil
}

// conceptLabels returns the n heaviest concepts of a topic without their language prefix
// ("en:park" -> "park"), a glossary entry by its origin.
func conceptLabels(sig rag.Signature, n int) []string {
	var out []string
	for _, k := range sig.Keys() {
		if _, label, ok := strings.Cut(k, ":"); ok {
			k = label
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
		if len(out) == n {
			break
		}
	}
	return out
}

// unknownNames returns the test MaskQuestion masks names with: a capitalised word (after the
// first) that no document the reader may read uses is taken for a person's name. The
// documents' simple full-text vectors are asked once for all the questions' candidates.
func (s *Store) unknownNames(ctx context.Context, reader []string, questions []string) (func(string) bool, error) {
	seen := map[string]bool{}
	var words []string
	for _, q := range questions {
		for _, w := range bot.NameCandidates(q) {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	unknown := map[string]bool{}
	if len(words) == 0 {
		return func(string) bool { return false }, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT w FROM unnest($1::text[]) AS w
		WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.tsv_simple @@ plainto_tsquery('simple', cita_unaccent(w)) AND c.groups && $2::text[])`,
		words, reader)
	if err != nil {
		return nil, fmt.Errorf("gap report: names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, fmt.Errorf("gap report: names: %w", err)
		}
		unknown[w] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("gap report: names: %w", err)
	}
	return func(w string) bool { return unknown[w] }, nil
}
