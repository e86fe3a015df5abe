package pgstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The vector arm plans from what a scope may read. Every chunk of an access class has the same
// groups, so a scope reads a class whole or not at all, and the class statistics the full-text
// arm keeps (class_corpus_stats) say how many chunks each holds. A question's search is then
// cut into parts, each planned for what it reads:
//
//   - a class with a graph of its own (class_graphs.go) is searched through that graph, which
//     holds only chunks the scope may read: no filter drops candidates, so the index scan is
//     both fast and complete;
//   - the other readable classes together are scanned exactly when they hold at most
//     Store.ExactVectorMax chunks (cheaper than any index scan under a selective filter, and
//     exact), and through the shared graph with pgvector's iterative scan above that.
//
// Every part keeps the store's model, the scope's groups and the validity period in its WHERE;
// the class conditions only choose where to look. A part searched through an index that comes
// back with fewer rows than asked while its classes hold more is searched again exactly, so the
// arm never returns short (vector_search.go).

// readableClass is one access class a scope may read, for the vector arm's plan.
type readableClass struct {
	id       int64
	chunks   int64 // its chunks, pending deltas included (0 while a bulk load's statistics are pending)
	ownGraph bool  // it has a graph of its own for the store's model
}

// vectorClassesSQL returns the classes the groups ($1) may read, with their chunk counts and
// whether a graph of their own exists for the model ($2) and dimension ($3).
const vectorClassesSQL = `
SELECT a.id,
	(coalesce((SELECT sum(s.chunks) FROM class_corpus_stats s WHERE s.class_id = a.id AND s.kind = 't'), 0) +
	 coalesce((SELECT sum(d.chunks) FROM class_corpus_delta d WHERE d.class_id = a.id AND d.kind = 't'), 0))::bigint,
	EXISTS (SELECT 1 FROM class_vector_graphs g WHERE g.class_id = a.id AND g.model = $2 AND g.dimension = $3)
FROM access_classes a
WHERE a.groups && $1::text[]
ORDER BY a.id`

// readableClasses returns the classes groups may read (vectorClassesSQL).
func (s *Store) readableClasses(ctx context.Context, groups []string) ([]readableClass, error) {
	rows, err := s.pool.Query(ctx, vectorClassesSQL, groups, s.model.Model, s.model.Dimension)
	if err != nil {
		return nil, fmt.Errorf("readable access classes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (readableClass, error) {
		var c readableClass
		return c, row.Scan(&c.id, &c.chunks, &c.ownGraph)
	})
	if err != nil {
		return nil, fmt.Errorf("readable access classes: %w", err)
	}
	return out, nil
}

// vectorPart is one part of a vector search plan.
type vectorPart struct {
	// class is the class searched through its own graph; 0 for the shared part.
	class int64
	// classes restricts the shared part to these classes; nil means every class the scope
	// reads (no class has a graph of its own).
	classes []int64
	chunks  int64 // how many chunks the part's classes hold
	indexed bool  // through an HNSW graph (else an exact scan)
	origin  int   // in a plan of parts searched again: the part's number in the first plan
}

// vectorPlan is how the vector arm searches for one scope.
type vectorPlan struct {
	parts []vectorPart
}

// indexed reports whether any part goes through an index (and needs its scan settings).
func (p vectorPlan) indexed() bool {
	for _, part := range p.parts {
		if part.indexed {
			return true
		}
	}
	return false
}

// planVector cuts a search over classes into parts: one per class with a graph of its own, and
// one for the rest, exact when they hold at most exactMax chunks. A scope that reads no class
// still gets the shared part (exact): a class may have been created after the lookup, and the
// WHERE decides what is read, never the plan.
func planVector(classes []readableClass, exactMax int64) vectorPlan {
	var plan vectorPlan
	var rest []int64
	var restChunks int64
	for _, c := range classes {
		if c.ownGraph {
			plan.parts = append(plan.parts, vectorPart{class: c.id, chunks: c.chunks, indexed: true})
			continue
		}
		rest = append(rest, c.id)
		restChunks += c.chunks
	}
	if len(plan.parts) == 0 {
		return vectorPlan{parts: []vectorPart{{chunks: restChunks, indexed: restChunks > exactMax}}}
	}
	if len(rest) > 0 {
		plan.parts = append(plan.parts, vectorPart{classes: rest, chunks: restChunks, indexed: restChunks > exactMax})
	}
	return plan
}

// exactOnly returns the plan with every part scanned exactly: the fallback for parts an index
// scan left short.
func (p vectorPlan) exactOnly() vectorPlan {
	out := vectorPlan{parts: make([]vectorPart, len(p.parts))}
	for i, part := range p.parts {
		part.indexed = false
		out.parts[i] = part
	}
	return out
}

// The parts' statements. $1 is the query vector, $2 the scope's groups, $3 k, $4 how many
// neighbours an index part takes before the exact re-sort (a few times k: the relaxed scan
// returns them only roughly in order), $5 and $6 the validity period (periodArgs), and $7 the
// shared part's classes when it is restricted to some. %[1]s is the store's indexed vector
// expression and %[2]s its model literal, both fixed in New from a checked model name and a
// number; a class id is a number read from the database. Nothing comes from a request.
//
// vectorFilter is the access filter every part keeps: the store's model, the caller's groups,
// and cita_citable over the validity period.
const (
	vectorFilter = `embed_model = %[2]s AND groups && $2::text[] AND cita_citable(valid, $5, $6)`
	// indexedPartSQL orders by the indexed expression, which only an HNSW index of the model
	// serves (the partial index of the class when the WHERE names one).
	indexedPartSQL = `SELECT id, %[1]s OPERATOR(public.<=>) $1::public.vector AS dist FROM chunks
		WHERE ` + vectorFilter + `%[3]s ORDER BY %[1]s OPERATOR(public.<=>) $1::public.vector LIMIT $4`
	// exactPartSQL orders by the distance to the column itself, which no index serves: exact
	// under every plan PostgreSQL may choose.
	exactPartSQL = `SELECT id, embedding OPERATOR(public.<=>) $1::public.vector AS dist FROM chunks
		WHERE ` + vectorFilter + `%[3]s ORDER BY dist, id LIMIT $3`
)

// sql returns the plan's statement, one row per neighbour found with the number of its part
// (0-based), and its arguments after the vector and the groups: ($3, $4, $5, $6[, $7]).
func (s *Store) vectorSQL(p vectorPlan, k, overfetch int, from, until any) (string, []any) {
	args := []any{k, k * max(overfetch, 1), from, until}
	var b strings.Builder
	b.WriteString("SELECT part, id, dist FROM (")
	for i, part := range p.parts {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		var where string
		switch {
		case part.class != 0:
			where = " AND class_id = " + strconv.FormatInt(part.class, 10)
		case part.classes != nil:
			where = " AND class_id = ANY($7::bigint[])"
			args = append(args, part.classes)
		}
		tmpl := exactPartSQL
		if part.indexed {
			tmpl = indexedPartSQL
		}
		fmt.Fprintf(&b, "(SELECT %d AS part, id, dist FROM (", i)
		fmt.Fprintf(&b, tmpl, s.vectorExpr, s.modelLit, where)
		b.WriteString(") p)")
	}
	// Every statement takes $3 and $4, whichever parts it has (a parameter no part uses would
	// have no type).
	b.WriteString(") parts WHERE $3::int > 0 AND $4::int > 0")
	return b.String(), args
}

// setting is one planner or index setting, made for one statement's transaction.
type setting struct{ name, value string }

// vectorScanSettings are the settings a plan with an index part runs under:
//   - hnsw.ef_search and iterative_scan = relaxed_order let the index scan go on past
//     ef_search when the filter drops candidates (the outer sort restores exact order);
//   - enable_sort = off makes every plan that could replace an index part's ordered index scan
//     by a sort cost more than the index scan, on a custom plan and on the generic plan of a
//     prepared statement alike (an exact part still sorts: it has no other plan).
//
// (Those penalties put the statement's cost past jit_above_cost: armSettings turn jit off.)
func vectorScanSettings(ef int) []setting {
	return []setting{
		{"hnsw.ef_search", fmt.Sprint(ef)},
		{"hnsw.iterative_scan", "relaxed_order"},
		{"enable_sort", "off"},
	}
}

// armSettings are the settings of every search arm's statement: the two arms of a question run
// at once, each on one core of the machine, and a parallel plan would have them fight for the
// same cores; and no statement is compiled (jit) to run once: compiling took 200-500 ms, more
// than the search, whenever a plan's cost passed jit_above_cost (a large exact scan, or the
// penalties of vectorScanSettings).
var armSettings = []setting{
	{"max_parallel_workers_per_gather", "0"},
	{"jit", "off"},
}

// settingsSQL returns one statement making settings for the rest of its transaction
// (set_config(name, value, true)), and its arguments. Queued first in a pipeline, whose
// statements share one implicit transaction, they hold for the statements after it and end
// with it. (SET LOCAL would hold as well, but warns in the server log on every query outside
// an explicit transaction block.)
func settingsSQL(settings []setting) (string, []any) {
	var b strings.Builder
	args := make([]any, 0, 2*len(settings))
	b.WriteString("SELECT ")
	for i, st := range settings {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "set_config($%d, $%d, true)", 2*i+1, 2*i+2)
		args = append(args, st.name, st.value)
	}
	return b.String(), args
}
