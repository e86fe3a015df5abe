package pgstore

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Plans collects the EXPLAIN (ANALYZE, BUFFERS) output of the search arms' main statements, for
// `cita bench --explain`: where a question's time goes, per arm and per step.
type Plans struct {
	mu   sync.Mutex
	list []Plan
}

// Plan is one statement's plan, as PostgreSQL prints it.
type Plan struct {
	Name string // "full-text scoring", "vector search"
	Text string
}

// List returns the plans collected so far.
func (p *Plans) List() []Plan {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Plan(nil), p.list...)
}

type plansKey struct{}

// longLiteral is a query vector printed in a plan: hundreds of numbers that say nothing there.
var longLiteral = regexp.MustCompile(`'\[[^\]]{200,}\]'`)

// WithPlans returns a context under which the store first runs each search arm's main statement
// under EXPLAIN (ANALYZE, BUFFERS), with the same arguments, and adds its plan to p. The
// statement then runs as usual, on warm caches: a diagnosis tool, never on a serving path.
func WithPlans(ctx context.Context, p *Plans) context.Context {
	return context.WithValue(ctx, plansKey{}, p)
}

// querier is what explainFirst runs EXPLAIN on: the pool or the arm's transaction (whose SET
// LOCAL settings the plan must see).
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// explainFirst records sql's plan when ctx carries Plans (see WithPlans); otherwise it does
// nothing. args are the statement's own arguments, without a query execution mode.
func explainFirst(ctx context.Context, q querier, name, sql string, args ...any) error {
	p, _ := ctx.Value(plansKey{}).(*Plans)
	if p == nil {
		return nil
	}
	rows, err := q.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
	if err != nil {
		return fmt.Errorf("explain %s: %w", name, err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("explain %s: %w", name, err)
	}
	p.add(name, lines)
	return nil
}

// collectPlan reads, from a batch, the result of an EXPLAIN queued before the statement it
// explains, and adds it to p under name.
func collectPlan(br pgx.BatchResults, p *Plans, name string) error {
	rows, err := br.Query()
	if err != nil {
		return fmt.Errorf("explain %s: %w", name, err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("explain %s: %w", name, err)
	}
	p.add(name, lines)
	return nil
}

// add records a plan's lines under name, its long literals shortened.
func (p *Plans) add(name string, lines []string) {
	text := longLiteral.ReplaceAllString(strings.Join(lines, "\n"), "'[…]'")
	p.mu.Lock()
	p.list = append(p.list, Plan{Name: name, Text: text})
	p.mu.Unlock()
}
