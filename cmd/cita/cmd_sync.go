package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/scheduler"
	"github.com/citahq/cita/sync/syncrun"
)

func init() {
	register("sync", &command{
		summary: "sync the configured sources (folders, Google Drive, S3) now",
		usage: `Usage: cita sync [--source NAME] [--full] [--dry-run] [--allow-mass-delete]

Runs one pass of every source in the configuration's "sources" list (or only --source NAME):
lists it, indexes new and changed documents, updates access groups without re-embedding,
withholds documents whose access cannot be resolved, and removes documents gone from the
source, but only after a listing that completed. Each run is recorded in the run history (see
"cita sources"). A source being synced by another process is skipped. Google Drive sources use
the changes API between full listings; --full forces one.

A pass that would delete more than the source's max_delete_fraction of its documents (default
0.2, beyond 3 documents), or all of them, deletes nothing and exits 1 saying so: an unmounted
share, a revoked Drive share or a wrong S3 prefix look like that. When the documents are really
gone, confirm with --source NAME --allow-mass-delete, which applies that one source's deletions
in this one run.

Flags:
`,
		run: runSync,
	})
	register("sources", &command{
		summary: "list the configured sources with their last run and next scheduled run",
		usage: `Usage: cita sources

Lists each configured source with its type, schedule, next scheduled run, and its last run:
when it started, how long it took, its counts, and its error if any; then the documents withheld
now (readable by nobody because their access could not be resolved), with the reason.
`,
		run: runSources,
	})
}

func runSync(ctx context.Context, e *env, args []string) error {
	fs := newFlags("sync", e, commands["sync"].usage)
	only := fs.String("source", "", "sync only this source")
	full := fs.Bool("full", false, "list everything, even where a change feed could be used")
	dryRun := fs.Bool("dry-run", false, "count what would change; write nothing")
	allowMassDelete := fs.Bool("allow-mass-delete", false, "apply this run's deletions even when they exceed max_delete_fraction or are all of the source's documents (needs --source)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *allowMassDelete && *only == "" {
		return errors.New("--allow-mass-delete confirms one source's deletions: give --source NAME too")
	}
	a, err := openApp(ctx, e, "")
	if err != nil {
		return err
	}
	defer a.Close()
	sources, err := selectSources(a.cfg.Sources, *only)
	if err != nil {
		return err
	}
	runner := syncrun.New(a.pool, a.store, a.embedder, indexer.Options{}, e.logger)
	var failed []string
	for _, cfg := range sources {
		src, err := syncrun.OpenSource(ctx, cfg, e.logger)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", cfg.Name, err)
			failed = append(failed, cfg.Name)
			continue
		}
		prog := newProgress(e.stdout, cfg.Name)
		res, err := runner.Run(ctx, src, syncrun.RunOptions{Full: *full, DryRun: *dryRun, AllowMassDelete: *allowMassDelete,
			Listed: prog.listed, Progress: prog.step})
		prog.done()
		if errors.Is(err, syncrun.ErrBusy) {
			fmt.Fprintf(e.stdout, "%s: skipped, another process is syncing it\n", cfg.Name)
			continue
		}
		if res.Run.ID != 0 {
			printRun(e, res, *dryRun)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", cfg.Name, err)
			failed = append(failed, cfg.Name)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d sources did not sync completely: %v (documents already indexed stay)", len(failed), len(sources), failed)
	}
	return nil
}

// selectSources validates the configured sources and returns all of them, or the one named.
func selectSources(all []config.SourceConfig, only string) ([]config.SourceConfig, error) {
	if len(all) == 0 {
		return nil, errors.New(`no sources configured: add a "sources:" list to the configuration file (see docs/sync.md)`)
	}
	if err := config.ValidateSources(all); err != nil {
		return nil, err
	}
	if only == "" {
		return all, nil
	}
	i := slices.IndexFunc(all, func(s config.SourceConfig) bool { return s.Name == only })
	if i < 0 {
		names := make([]string, len(all))
		for j, s := range all {
			names[j] = s.Name
		}
		return nil, fmt.Errorf("no source named %q; configured: %v", only, names)
	}
	return all[i : i+1], nil
}

func printRun(e *env, res syncrun.Result, dryRun bool) {
	r := res.Run
	prefix := ""
	if dryRun {
		prefix = "(dry run, nothing written) "
	}
	fmt.Fprintf(e.stdout, "%s: %s%s pass: listed %d, added %d, changed %d, unchanged %d, access-only %d, deleted %d, failed %d, withheld %d in %s\n",
		r.Source, prefix, r.Mode, r.Listed, r.Added, r.Changed, r.Unchanged, r.ACLOnly, r.Deleted, r.Failed, r.Withheld, res.Took.Round(time.Millisecond))
	if !r.Complete {
		fmt.Fprintf(e.stdout, "%s: the listing did not complete; nothing was deleted\n", r.Source)
	}
	if r.DeletesBlocked > 0 {
		fmt.Fprintf(e.stdout, "%s: %d deletions held back (a mass deletion); nothing was deleted\n", r.Source, r.DeletesBlocked)
	}
	for i, f := range res.Failures {
		if i == 20 {
			fmt.Fprintf(e.stderr, "  ... and %d more (see the run history)\n", len(res.Failures)-20)
			break
		}
		fmt.Fprintf(e.stderr, "  %s: %v (its previous version, if any, stays indexed)\n", f.ExternalID, f.Err)
	}
	for i, w := range res.Withheld {
		if i == 20 {
			fmt.Fprintf(e.stderr, "  ... and %d more withheld (see the run history)\n", len(res.Withheld)-20)
			break
		}
		fmt.Fprintf(e.stderr, "  %s: withheld, readable by nobody until its access resolves: %s\n", w.ExternalID, w.Reason)
	}
}

// progress shows a bar on a terminal and a line every 10% otherwise.
type progress struct {
	w        io.Writer
	name     string
	tty      bool
	bar      *progressbar.ProgressBar
	lastLine int
}

func newProgress(w io.Writer, name string) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, name: name, tty: ok && term.IsTerminal(int(f.Fd()))}
}

func (p *progress) listed(n int, mode string) {
	if p.tty && n > 0 {
		p.bar = progressbar.NewOptions(n, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(p.name+" ("+mode+")"),
			progressbar.OptionShowCount(), progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
		return
	}
	fmt.Fprintf(p.w, "%s: %s listing has %d documents\n", p.name, mode, n)
}

func (p *progress) step(done, total int, _ string) {
	if p.bar != nil {
		_ = p.bar.Set(done)
		return
	}
	if pct := done * 10 / max(total, 1); pct > p.lastLine && done < total {
		p.lastLine = pct
		fmt.Fprintf(p.w, "%s: %d/%d\n", p.name, done, total)
	}
}

func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

func runSources(ctx context.Context, e *env, args []string) error {
	a, err := parseAndOpen(ctx, e, newFlags("sources", e, commands["sources"].usage), args)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := config.ValidateSources(a.cfg.Sources); err != nil {
		return err
	}
	if len(a.cfg.Sources) == 0 {
		fmt.Fprintln(e.stdout, `no sources configured: add a "sources:" list to the configuration file (see docs/sync.md)`)
		return nil
	}
	history := syncrun.NewHistory(a.pool)
	now := time.Now()
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tTYPE\tSCHEDULE\tNEXT RUN\tLAST RUN\tTOOK\tLAST OK\tLAG\tWAITING\tRESULT")
	for _, s := range a.cfg.Sources {
		next, _ := scheduler.NextRun(s, now)
		nextText, sched := "-", s.CronSpec()
		if sched == "" {
			sched = "manual"
		} else {
			nextText = next.Local().Format("2006-01-02 15:04 MST")
		}
		last, ok, err := history.Last(ctx, s.Name)
		if err != nil {
			return err
		}
		lastText, took, result := "never", "-", "-"
		if ok {
			lastText = last.StartedAt.Local().Format("2006-01-02 15:04 MST")
			switch {
			case last.FinishedAt.IsZero():
				result = "running, or interrupted"
			default:
				took = last.FinishedAt.Sub(last.StartedAt).Round(time.Second).String()
				result = fmt.Sprintf("%s: +%d ~%d -%d acl %d failed %d withheld %d", last.Mode, last.Added, last.Changed, last.Deleted,
					last.ACLOnly, last.Failed, last.Withheld)
				if last.DeletesBlocked > 0 {
					result += fmt.Sprintf(" DELETIONS HELD BACK %d (confirm: cita sync --source %s --allow-mass-delete)", last.DeletesBlocked, s.Name)
				}
				if last.Error != "" {
					result += "; " + truncate(last.Error, 80)
				}
			}
		}
		fresh, err := history.Freshness(ctx, s.Name)
		if err != nil {
			return err
		}
		okText, lagText, waitText := freshnessColumns(fresh, now)
		if s.Type == "folder" && s.Folder.Watch {
			sched += " +watch"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Type, sched, nextText, lastText, took, okText, lagText, waitText, result)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printWithheld(ctx, e, a, a.cfg.Sources)
}

// freshnessColumns renders a source's freshness: the last pass without error, the change lag it
// measured, and the changes waiting ("2 for 3s"), "-" where unknown.
func freshnessColumns(f syncrun.Freshness, now time.Time) (lastOK, lag, waiting string) {
	lastOK, lag, waiting = "never", "-", "0"
	if !f.LastSuccess.IsZero() {
		lastOK = f.LastSuccess.Local().Format("2006-01-02 15:04:05")
	}
	if f.LagKnown {
		lag = f.LastLag.Round(10 * time.Millisecond).String()
	}
	if f.Pending > 0 {
		waiting = fmt.Sprintf("%d for %s", f.Pending, f.Waiting(now).Round(time.Second))
	}
	return lastOK, lag, waiting
}

// printWithheld lists, per source, the documents readable by nobody because their access could
// not be resolved at the last pass that listed them.
func printWithheld(ctx context.Context, e *env, a *app, sources []config.SourceConfig) error {
	for _, s := range sources {
		withheld, err := a.store.Withheld(ctx, s.Name)
		if err != nil {
			return err
		}
		if len(withheld) == 0 {
			continue
		}
		fmt.Fprintf(e.stdout, "\n%s: %d documents withheld (readable by nobody until their access resolves):\n", s.Name, len(withheld))
		for i, w := range withheld {
			if i == 20 {
				fmt.Fprintf(e.stdout, "  ... and %d more\n", len(withheld)-20)
				break
			}
			fmt.Fprintf(e.stdout, "  %s (since %s): %s\n", w.ExternalID, w.Since.Local().Format("2006-01-02 15:04"), w.Reason)
		}
	}
	return nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
