package main

import (
	"context"
	"fmt"
)

func init() {
	register("migrate", &command{
		summary: "create or upgrade the database schema",
		usage: `Usage: cita migrate

Applies the embedded schema migrations to the database (DATABASE_URL, or the private cluster)
and creates the vector index for the configured embedding model. Every other command does this
at start too; run it on its own before rolling out several replicas.
`,
		run: runMigrate,
	})
}

func runMigrate(ctx context.Context, e *env, args []string) error {
	a, err := parseAndOpen(ctx, e, newFlags("migrate", e, commands["migrate"].usage), args)
	if err != nil {
		return err
	}
	defer a.Close()
	docs, chunks, err := a.store.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "schema is up to date; %d documents, %d chunks indexed (embedding model %s, %d dimensions)\n",
		docs, chunks, a.store.Model().Model, a.store.Model().Dimension)
	return nil
}
