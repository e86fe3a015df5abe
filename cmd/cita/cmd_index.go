package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/indexer"
)

func init() {
	register("index", &command{
		summary: "index a folder of documents",
		usage: `Usage: cita index [--groups g1,g2] [--access FILE] [--source NAME] DIR

Indexes every supported file under DIR (Markdown, text, HTML, CSV, and office formats when
supported). Unchanged files are skipped (content hash), changed ones are re-indexed in one
transaction each, and documents whose files are gone from DIR are removed from the index.

Access groups: --groups gives every document under DIR those groups; otherwise the access rules
of the configuration file (or of --access FILE, a YAML file with default_groups and rules of
path globs) decide, and unmatched files get the group "everyone".

Flags:
`,
		run: runIndex,
	})
}

func runIndex(ctx context.Context, e *env, args []string) error {
	fs := newFlags("index", e, commands["index"].usage)
	groups := fs.String("groups", "", "comma-separated access groups for every document under DIR")
	accessFile := fs.String("access", "", "YAML file with access rules (default_groups, rules: [{match, groups}])")
	source := fs.String("source", "", "source name recorded with the documents (default: the folder's absolute path)")
	stats := fs.Bool("stats", false, "print files/s, chunks/s and peak memory (RSS, Go heap) at the end")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("give exactly one folder to index, e.g. `cita index testdata/corpus`")
	}
	root, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return err
	}
	a, err := openApp(ctx, e, "")
	if err != nil {
		return err
	}
	defer a.Close()
	rules := a.cfg.Access
	if *accessFile != "" {
		if rules, err = config.LoadAccessRules(*accessFile); err != nil {
			return err
		}
	}
	groupsFor := rules.GroupsFor
	if *groups != "" {
		fixed, err := rag.CleanGroups(splitList(*groups))
		if err != nil {
			return fmt.Errorf("--groups: %w", err)
		}
		groupsFor = func(string) []string { return fixed }
	}
	name := *source
	if name == "" {
		name = "folder:" + root
	}
	meter := startIndexStats(*stats)
	items, complete, err := indexer.ListFolder(ctx, root, groupsFor)
	if err != nil {
		return err
	}
	ix := indexer.New(a.store, a.embedder, indexer.Options{}, e.logger)
	rep, err := ix.Sync(ctx, name, items, complete)
	if err != nil {
		return err
	}
	printReport(e, rep)
	meter.print(e, rep)
	if !complete {
		fmt.Fprintln(e.stderr, "warning: part of the folder could not be read; nothing was deleted this run")
	}
	return nil
}

func printReport(e *env, rep *indexer.Report) {
	fmt.Fprintf(e.stdout, "listed %d, added %d, changed %d, unchanged %d, access-only %d, deleted %d, failed %d; %d chunks in %.1fs",
		rep.Listed, rep.Added, rep.Changed, rep.Unchanged, rep.ACLOnly, rep.Deleted, len(rep.Failed), rep.Chunks, rep.Took.Seconds())
	if rep.Chunks > 0 && rep.Took > 0 {
		fmt.Fprintf(e.stdout, " (%.0f chunks/s)", float64(rep.Chunks)/rep.Took.Seconds())
	}
	fmt.Fprintln(e.stdout)
	for _, f := range rep.Failed {
		fmt.Fprintf(e.stderr, "  skipped %s: %v (its previous version, if any, stays indexed)\n", f.ExternalID, f.Err)
	}
}
