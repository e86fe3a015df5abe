// Command cita answers questions about an organisation's documents, with every claim cited.
//
// Run `cita help` for the subcommands. Flags and environment variables are read here only; the
// rest of the program receives typed configuration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"
)

// command is one subcommand: its one-line summary, its usage text and how it runs.
type command struct {
	summary string
	usage   string
	run     func(ctx context.Context, env *env, args []string) error
}

// env is what every subcommand shares: output streams and the global flags.
type env struct {
	stdout, stderr io.Writer
	configPath     string
	dataDir        string
	logger         *slog.Logger
	// translator is the offline query translator to wire (see newTranslator); "" means auto.
	translator string
	// translatorTimeout bounds one translator query; 0 means the translator's default (chat
	// latency). Measurements raise it, so that their figures do not depend on the machine's load.
	translatorTimeout time.Duration
}

var commands = map[string]*command{}

func register(name string, c *command) { commands[name] = c }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks an error whose message is the usage text: printed without a prefix.
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	global := flag.NewFlagSet("cita", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.StringVar(&e.configPath, "config", os.Getenv("CITA_CONFIG"), "configuration file (YAML); env CITA_CONFIG")
	global.StringVar(&e.dataDir, "data-dir", "", "directory of the private PostgreSQL cluster used when DATABASE_URL is unset (default: per user)")
	verbose := global.Bool("v", false, "log debug messages")
	global.Usage = func() { printHelp(stderr) }
	if err := global.Parse(args); err != nil {
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	e.logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	rest := global.Args()
	if len(rest) == 0 || rest[0] == "help" || rest[0] == "-h" || rest[0] == "--help" {
		if len(rest) > 1 {
			if c, ok := commands[rest[1]]; ok {
				fmt.Fprint(stdout, c.usage)
				return 0
			}
		}
		printHelp(stdout)
		return 0
	}
	c, ok := commands[rest[0]]
	if !ok {
		fmt.Fprintf(stderr, "cita: unknown command %q; run `cita help` for the list\n", rest[0])
		return 2
	}
	if err := c.run(ctx, e, rest[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			fmt.Fprint(stderr, c.usage)
			return 2
		}
		fmt.Fprintf(stderr, "cita %s: %v\n", rest[0], err)
		return 1
	}
	return 0
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `cita answers questions about your organisation's documents, citing every claim.

Usage: cita [--config FILE] [--data-dir DIR] [-v] COMMAND [ARGS]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Without DATABASE_URL, cita starts (or reuses) a private PostgreSQL cluster in --data-dir.
Run "cita help COMMAND" for a command's flags.
`)
}

// newFlags returns a flag set for a subcommand whose -h prints its usage.
func newFlags(name string, e *env, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprint(e.stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// splitList parses "a,b, c" into ["a","b","c"].
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " | ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
