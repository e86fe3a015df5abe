package pgcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// run executes a PostgreSQL program from binDir as the server user and returns its combined
// output; the error includes that output, which is where PostgreSQL explains itself.
func (r *resolved) run(ctx context.Context, program string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(r.binDir, program), args...)
	r.user.apply(cmd)
	cmd.Env = serverEnv(os.Environ())
	// pg_ctl start forks the server; should it ever keep our pipe open, stop waiting anyway.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	text := strings.TrimSpace(string(out))
	if err != nil {
		return text, fmt.Errorf("%s %s: %w: %s", program, strings.Join(args, " "), err, text)
	}
	return text, nil
}

// serverEnv drops the PG* variables (PGDATA, PGPORT, PGHOST... would redirect pg_ctl and the
// server) and locale overrides, and asks for English messages so failures can be recognised.
func serverEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "PG") || name == "LC_ALL" || name == "LANGUAGE" || name == "LC_MESSAGES" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_MESSAGES=C")
}

// shellQuote quotes s for the POSIX shell that pg_ctl hands its -o options to.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tailFile returns the last n lines of path, or "" when it cannot be read.
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
