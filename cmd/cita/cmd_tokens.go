package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/mcpserver/pgtokens"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/pgstore"
)

func init() {
	register("tokens", &command{
		summary: "create, revoke and list personal tokens for the MCP server",
		usage: `Usage: cita tokens create --email ADDRESS [--groups g1,g2] [--expires 90d] [--note TEXT]
       cita tokens revoke ID | --email ADDRESS
       cita tokens list [--json]

Personal tokens let AI assistants and IDEs use the MCP server (mcp.enabled, see docs/mcp.md) as
a person. "create" prints only the token on stdout (store it now: cita keeps only its SHA-256)
and its id and access on stderr. The token reads what its e-mail may read, resolved at every
request from the configuration (mcp.emails, mcp.domains, mcp.default_groups); --groups narrows
that to the listed groups and never adds one. --expires takes days (90d), hours (12h) or a date
(2026-12-31); without it the token lasts until revoked. "revoke" stops a token, or every token
of an e-mail, at its next request on every replica. "list" shows every token with its last use.

Flags:
`,
		run: runTokens,
	})
}

func runTokens(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "create":
		return runTokensCreate(ctx, e, args[1:])
	case "revoke":
		return runTokensRevoke(ctx, e, args[1:])
	case "list":
		return runTokensList(ctx, e, args[1:])
	}
	return errUsage
}

// openTokens connects to the database (migrating it) and returns the token store, the
// configuration and the pool.
func openTokens(ctx context.Context, e *env) (*pgtokens.Store, *config.Config, *pgxpool.Pool, error) {
	cfg, err := loadConfig(e)
	if err != nil {
		return nil, nil, nil, err
	}
	cs, err := connString(ctx, e, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{}, e.logger)
	if err != nil {
		return nil, nil, nil, err
	}
	return pgtokens.New(pool), cfg, pool, nil
}

func runTokensCreate(ctx context.Context, e *env, args []string) error {
	fs := newFlags("tokens create", e, commands["tokens"].usage)
	email := fs.String("email", "", "the person the token stands for (required)")
	groups := fs.String("groups", "", "comma-separated groups that narrow the e-mail's groups (default: all of them)")
	expires := fs.String("expires", "", "lifetime: 90d, 12h, or a date such as 2026-12-31 (default: until revoked)")
	note := fs.String("note", "", "what the token is for, shown by list (e.g. \"Claude Desktop on laptop\")")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	addr := strings.TrimSpace(*email)
	if at := strings.LastIndexByte(addr, '@'); at <= 0 || at == len(addr)-1 || fs.NArg() > 0 {
		return fmt.Errorf("--email: give the holder's e-mail address, e.g. cita tokens create --email alice@example.com")
	}
	exp, err := parseExpiry(*expires, time.Now())
	if err != nil {
		return fmt.Errorf("--expires: %w", err)
	}
	store, cfg, pool, err := openTokens(ctx, e)
	if err != nil {
		return err
	}
	defer pool.Close()
	// A token that would read nothing is refused before it exists: it could only fail later,
	// far from the command that made it.
	if _, err := tokenScope(ctx, cfg, pool, &mcpserver.Token{Email: strings.ToLower(addr), Groups: splitList(*groups)}); errors.Is(err, rag.ErrNoScope) {
		return fmt.Errorf("%s has no access group under the current configuration%s: no token created; map the address in mcp.emails or mcp.domains, "+
			"or give --groups that it holds", addr, groupsNote(*groups))
	} else if err != nil {
		return err
	}
	token, t, err := store.Create(ctx, addr, splitList(*groups), *note, exp)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, token)
	fmt.Fprintf(e.stderr, "token %d for %s, %s\n", t.ID, t.Email, expiryText(t.ExpiresAt))
	scope, err := tokenScope(ctx, cfg, pool, t)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "reads what these groups may read (today): %s\n", strings.Join(scope.Groups(), ", "))
	if !cfg.MCP.Enabled {
		fmt.Fprintln(e.stderr, "note: mcp.enabled is off in this configuration; `cita serve` does not serve /mcp yet")
	}
	return nil
}

// tokenScope is the scope the server would give t today under cfg (identity groups read from
// pool).
func tokenScope(ctx context.Context, cfg *config.Config, pool *pgxpool.Pool, t *mcpserver.Token) (rag.Scope, error) {
	return mcpserver.ScopeFor(ctx, mcpAccess(cfg.MCP.WithDefaults(), identityGroupsOf(cfg.Identity, pool)), t.Email, t.Groups)
}

func runTokensRevoke(ctx context.Context, e *env, args []string) error {
	fs := newFlags("tokens revoke", e, commands["tokens"].usage)
	email := fs.String("email", "", "revoke every token of this e-mail")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var id int64
	switch {
	case *email != "" && fs.NArg() == 0:
	case *email == "" && fs.NArg() == 1:
		n, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a token id: use the number `cita tokens list` shows", fs.Arg(0))
		}
		id = n
	default:
		return fmt.Errorf("give one token id (cita tokens revoke 7) or --email ADDRESS")
	}
	store, _, pool, err := openTokens(ctx, e)
	if err != nil {
		return err
	}
	defer pool.Close()
	if id > 0 {
		t, err := store.Revoke(ctx, id)
		if errors.Is(err, mcpserver.ErrTokenUnknown) {
			return fmt.Errorf("no token %d: see cita tokens list", id)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "revoked token %d of %s\n", t.ID, t.Email)
		return nil
	}
	n, err := store.RevokeEmail(ctx, *email)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "revoked %d token(s) of %s\n", n, *email)
	return nil
}

func runTokensList(ctx context.Context, e *env, args []string) error {
	fs := newFlags("tokens list", e, commands["tokens"].usage)
	asJSON := fs.Bool("json", false, "print a JSON array")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	store, _, pool, err := openTokens(ctx, e)
	if err != nil {
		return err
	}
	defer pool.Close()
	tokens, err := store.List(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	if *asJSON {
		type row struct {
			ID         int64      `json:"id"`
			Email      string     `json:"email"`
			Groups     []string   `json:"groups"`
			Note       string     `json:"note,omitempty"`
			Status     string     `json:"status"`
			CreatedAt  time.Time  `json:"created_at"`
			ExpiresAt  *time.Time `json:"expires_at,omitempty"`
			LastUsedAt *time.Time `json:"last_used_at,omitempty"`
		}
		rows := []row{}
		for _, t := range tokens {
			rows = append(rows, row{ID: t.ID, Email: t.Email, Groups: t.Groups, Note: t.Note, Status: tokenStatus(t, now),
				CreatedAt: t.CreatedAt, ExpiresAt: timePtr(t.ExpiresAt), LastUsedAt: timePtr(t.LastUsedAt)})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tEMAIL\tGROUPS\tSTATUS\tCREATED\tEXPIRES\tLAST USED\tNOTE")
	for _, t := range tokens {
		groups := strings.Join(t.Groups, ",")
		if groups == "" {
			groups = "(the e-mail's)"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Email, groups, tokenStatus(t, now), dayOrDash(t.CreatedAt),
			dayOrDash(t.ExpiresAt), lastUse(t.LastUsedAt), t.Note)
	}
	return w.Flush()
}

func tokenStatus(t mcpserver.Token, now time.Time) string {
	switch {
	case !t.RevokedAt.IsZero():
		return "revoked"
	case !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt):
		return "expired"
	}
	return "active"
}

// parseExpiry reads "90d", "12h" (any Go duration), a date "2026-12-31" (its end, UTC) or ""
// (never, the zero time).
func parseExpiry(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "never":
		return time.Time{}, nil
	case strings.HasSuffix(s, "d"):
		n, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
		if err != nil || n <= 0 {
			return time.Time{}, fmt.Errorf("%q is not a number of days such as 90d", s)
		}
		return now.AddDate(0, 0, n), nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("%q is not a positive duration", s)
		}
		return now.Add(d), nil
	}
	if day, err := time.Parse(time.DateOnly, s); err == nil {
		end := day.AddDate(0, 0, 1)
		if !end.After(now) {
			return time.Time{}, fmt.Errorf("%s is in the past", s)
		}
		return end, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a lifetime: use 90d, 12h or a date such as 2026-12-31", s)
}

func expiryText(t time.Time) string {
	if t.IsZero() {
		return "valid until revoked"
	}
	return "expires " + t.UTC().Format("2006-01-02 15:04 UTC")
}

func dayOrDash(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.DateOnly)
}

func lastUse(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func groupsNote(groups string) string {
	if strings.TrimSpace(groups) == "" {
		return ""
	}
	return " among --groups " + groups
}
