package main

import (
	"context"
	"fmt"

	"github.com/citahq/cita/internal/pgcluster"
)

func init() {
	register("db", &command{
		summary: "start, stop or locate the private PostgreSQL cluster",
		usage: `Usage: cita db start|stop|status

Manages the private PostgreSQL cluster that cita uses when DATABASE_URL is unset (in --data-dir,
or the per-user default). "start" starts it and prints its connection string (psql "$(cita db start)"
opens a shell); "stop" stops it; "status" says whether it runs. With DATABASE_URL set there is
nothing to manage.
`,
		run: runDB,
	})
}

func runDB(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 {
		return errUsage
	}
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	opts := pgcluster.Options{DataDir: cfg.DataDir, Logger: e.logger}
	switch args[0] {
	case "start":
		cl, err := pgcluster.Ensure(ctx, opts)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, cl.ConnString())
	case "stop":
		if err := pgcluster.StopDataDir(ctx, opts); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "stopped")
	case "status":
		dir := cfg.DataDir
		if dir == "" {
			dir = pgcluster.DefaultDataDir()
		}
		running, err := pgcluster.Status(ctx, dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "data dir %s: running=%v\n", dir, running)
	default:
		return errUsage
	}
	return nil
}
