// Command stopcluster stops the private PostgreSQL that database tests share (see package
// testdb), so `make test` leaves no server running. It exits 0 when none runs, and 1 when the
// server cannot be stopped.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/citahq/cita/internal/pgcluster"
	"github.com/citahq/cita/internal/testdb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "stopcluster: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if os.Getenv(testdb.EnvURL) != "" {
		fmt.Printf("stopcluster: %s is set, tests use that server; nothing to stop\n", testdb.EnvURL)
		return nil
	}
	dir := testdb.SharedClusterDir()
	running, err := pgcluster.Status(ctx, dir)
	if err != nil {
		return fmt.Errorf("check test cluster in %s: %w", dir, err)
	}
	if !running {
		fmt.Printf("stopcluster: no test cluster running in %s\n", dir)
		return nil
	}
	if err := pgcluster.StopDataDir(ctx, pgcluster.Options{DataDir: dir}); err != nil {
		return err
	}
	fmt.Printf("stopcluster: stopped the test cluster in %s\n", dir)
	return nil
}
