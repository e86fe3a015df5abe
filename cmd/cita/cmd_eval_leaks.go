package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/citahq/cita/bot/leakcheck"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

// runLeakEval runs the leak harness against the configured database, in a namespace of its own
// (schema cita_leaks_<random>, dropped afterwards), and fails when anything leaked. The harness
// brings its own organisation, documents and offline models; the CLI path prints with
// `cita ask --explain`'s printer.
func runLeakEval(ctx context.Context, e *env, questions int, seed uint64) error {
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	cs, err := connString(ctx, e, cfg)
	if err != nil {
		return err
	}
	schema := "cita_leaks_" + randomHex(6)
	defer dropNamespace(ctx, e, cs, schema)
	fmt.Fprintf(e.stderr, "leak harness: %d questions, seed %d, namespace %s\n", questions, seed, schema)
	rep, err := leakcheck.Run(ctx, leakcheck.Config{
		ConnString: cs, Schema: schema, Questions: questions, Seed: seed,
		CLIPrint: func(w io.Writer, ans *rag.Answer) { writeAnswerText(w, ans); writeExplain(w, ans) },
		Progress: e.stderr,
		Logger:   quietLogger(e),
	})
	if err != nil {
		return fmt.Errorf("leak harness: %w", err)
	}
	rep.Write(e.stdout)
	if len(rep.Leaks) > 0 {
		return fmt.Errorf("leak harness: %d leaks (seed %d)", len(rep.Leaks), seed)
	}
	if why := rep.Unproven(); len(why) > 0 {
		// 0 leaks from a run that never reached anyone proves nothing.
		return fmt.Errorf("leak harness: the run proves nothing (seed %d): %s", seed, strings.Join(why, "; "))
	}
	return nil
}

// quietLogger silences the harness's adapters unless cita runs with debug logging: they log
// every answer, and the lookup failures the harness injects on purpose as errors.
func quietLogger(e *env) *slog.Logger {
	if e.logger.Enabled(context.Background(), slog.LevelDebug) {
		return e.logger
	}
	return slog.New(slog.DiscardHandler)
}

// dropNamespace drops the harness's schema, whatever the run left in it.
func dropNamespace(ctx context.Context, e *env, cs, schema string) {
	ctx = context.WithoutCancel(ctx)
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, e.logger)
	if err != nil {
		e.logger.Error("drop leak harness namespace", slog.String("schema", schema), slog.String("error", err.Error()))
		return
	}
	defer pool.Close()
	if err := pgstore.DropSchema(ctx, pool, schema); err != nil {
		e.logger.Error("drop leak harness namespace", slog.String("schema", schema), slog.String("error", err.Error()))
	}
}
