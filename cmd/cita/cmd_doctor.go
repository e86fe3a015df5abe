package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/pgstore"
	"github.com/citahq/cita/rag/translate"
)

// doctorTimeout bounds each network check of `cita doctor`.
const doctorTimeout = 5 * time.Second

func init() {
	register("doctor", &command{
		summary: "check the database, pgvector, migrations, tokens and model endpoints",
		usage: `Usage: cita doctor

Checks what cita needs and prints ok or FAIL for each, with the fix: the configuration is
valid; the database answers; pgvector is 0.8 or newer; the schema is at the newest migration;
each read replica (database.read_urls) answers, is a standby of the primary and how far behind it
is; the server's settings fit a first index and its HNSW build (maintenance_work_mem for the
graph, max_wal_size, jit off; a WARN says what to set); the tokens of the enabled chat adapters
are present; the chat and embedding endpoints answer
GET /models (when configured); the offline translator for cross-lingual search (Apertium)
translates (a WARN when it is missing: search then stays monolingual). Exits 1 when a check
fails. It changes nothing (it does not
migrate).
`,
		run: runDoctor,
	})
}

// checkResult is one line of the doctor's report.
// A warning (warn) is a missing optional part: printed with its fix, it does not fail the run.
type checkResult struct {
	name, detail, fix string
	ok, warn          bool
}

func (c checkResult) print(w io.Writer) {
	if c.ok {
		fmt.Fprintf(w, "ok    %s: %s\n", c.name, c.detail)
		return
	}
	label := "FAIL"
	if c.warn {
		label = "WARN"
	}
	fmt.Fprintf(w, "%-5s %s: %s\n", label, c.name, c.detail)
	if c.fix != "" {
		fmt.Fprintf(w, "      fix: %s\n", c.fix)
	}
}

func runDoctor(ctx context.Context, e *env, args []string) error {
	fs := newFlags("doctor", e, commands["doctor"].usage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	failed := false
	report := func(c checkResult) {
		c.print(e.stdout)
		failed = failed || !c.ok && !c.warn
	}
	cfg, err := effectiveConfig(e)
	if err != nil {
		report(checkResult{name: "configuration", detail: strings.ReplaceAll(err.Error(), "\n", "; "),
			fix: "correct the fields named above (cita config check shows the effective configuration)"})
		return errInvalid
	}
	where := e.configPath
	if where == "" {
		where = "no file, defaults and environment"
	}
	report(checkResult{name: "configuration", detail: "valid (" + where + ")", ok: true})
	for _, c := range checkDatabase(ctx, e, cfg) {
		report(c)
	}
	for _, c := range checkAdapters(cfg) {
		report(c)
	}
	report(checkTranslation(ctx, translate.ApertiumOptions{Logger: e.logger}, "", cfg.Chat.BaseURL != ""))
	client := &http.Client{Timeout: doctorTimeout}
	if cfg.Chat.BaseURL != "" {
		report(checkEndpoint(ctx, client, "chat endpoint", cfg.Chat.BaseURL, cfg.Chat.APIKey, "chat.base_url", "CITA_CHAT_API_KEY"))
	}
	if cfg.Embedder.Provider == "openai" {
		report(checkEndpoint(ctx, client, "embedding endpoint", cfg.Embedder.BaseURL, cfg.Embedder.APIKey, "embedder.base_url", "CITA_EMBEDDER_API_KEY"))
	}
	if failed {
		return errInvalid
	}
	return nil
}

// checkDatabase checks the connection, pgvector and the schema version. A failed connection
// ends the database checks.
func checkDatabase(ctx context.Context, e *env, cfg *config.Config) []checkResult {
	fixConn := "set DATABASE_URL (or database_url) to a reachable PostgreSQL, e.g. postgres://cita:PASSWORD@db:5432/cita, or unset it to use the private cluster"
	cs, err := connString(ctx, e, cfg)
	if err != nil {
		return []checkResult{{name: "database", detail: err.Error(), fix: fixConn}}
	}
	connCfg, err := pgx.ParseConfig(cs)
	if err != nil {
		return []checkResult{{name: "database", detail: pgstore.ParseError(err).Error(), fix: fixConn}}
	}
	cctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, connCfg)
	if err != nil {
		return []checkResult{{name: "database", detail: err.Error(), fix: fixConn}}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var server string
	if err := conn.QueryRow(cctx, "SHOW server_version").Scan(&server); err != nil {
		return []checkResult{{name: "database", detail: err.Error(), fix: fixConn}}
	}
	out := []checkResult{{name: "database", detail: fmt.Sprintf("PostgreSQL %s at %s:%d/%s", server, connCfg.Host, connCfg.Port, connCfg.Database), ok: true}}
	var installed, available string
	_ = conn.QueryRow(cctx, "SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), '')").Scan(&installed)
	_ = conn.QueryRow(cctx, "SELECT coalesce((SELECT default_version FROM pg_available_extensions WHERE name = 'vector'), '')").Scan(&available)
	out = append(out, checkPgvector(installed, available))
	current, target, err := pgstore.SchemaVersion(cctx, connCfg)
	switch {
	case err != nil && strings.Contains(err.Error(), "does not exist"):
		out = append(out, checkResult{name: "migrations", detail: "the schema was never migrated", fix: "run `cita migrate` (or start `cita serve`, which migrates)"})
	case err != nil:
		out = append(out, checkResult{name: "migrations", detail: err.Error(), fix: "check that the database user may read the goose_db_version table"})
	case current < target:
		out = append(out, checkResult{name: "migrations", detail: fmt.Sprintf("schema at migration %d, this binary needs %d", current, target),
			fix: "run `cita migrate` (or start `cita serve`, which migrates)"})
	default:
		out = append(out, checkResult{name: "migrations", detail: fmt.Sprintf("schema at migration %d (newest %d)", current, target), ok: true})
	}
	if settings, err := readServerSettings(cctx, conn); err != nil {
		out = append(out, checkResult{name: "server settings", detail: err.Error(), warn: true,
			fix: "check that the database user may read pg_settings and the chunks table"})
	} else {
		dim := cfg.Embedder.Dimensions
		if dim <= 0 {
			dim = hashembed.DefaultDimension
		}
		out = append(out, checkServerSettings(settings, dim))
	}
	return append(out, checkReplicas(ctx, conn, cfg.Database)...)
}

// minPgvector is the oldest pgvector cita supports (iterative index scans for filtered search).
var minPgvector = [2]int{0, 8}

// checkPgvector judges the installed pgvector (extversion, "" when not created) and the version
// the server could create ("" when the package is not installed).
func checkPgvector(installed, available string) checkResult {
	c := checkResult{name: "pgvector"}
	install := "install pgvector 0.8 or newer on the database server (Debian/Ubuntu: apt install postgresql-17-pgvector; or use the pgvector/pgvector:pg17 image), then run `cita migrate`"
	switch {
	case installed != "" && versionAtLeast(installed, minPgvector):
		c.ok, c.detail = true, "version "+installed
	case installed != "":
		c.detail = "version " + installed + " is older than 0.8"
		c.fix = "upgrade the pgvector package to 0.8 or newer, then run ALTER EXTENSION vector UPDATE"
	case available == "":
		c.detail = "the vector extension is not installed on the server"
		c.fix = install
	case versionAtLeast(available, minPgvector):
		c.ok, c.detail = true, "version "+available+" available; `cita migrate` creates the extension"
	default:
		c.detail = "only version " + available + " is available, older than 0.8"
		c.fix = install
	}
	return c
}

// versionAtLeast reports whether a "major.minor[.patch]" version is at least min.
func versionAtLeast(v string, min [2]int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > min[0] || major == min[0] && minor >= min[1]
}

// checkAdapters reports which chat adapters are on and whether their secrets are present.
func checkAdapters(cfg *config.Config) []checkResult {
	var out []checkResult
	sc := cfg.Slack
	switch {
	case !sc.Enabled() && (sc.AppToken != "" || sc.SigningSecret != ""):
		out = append(out, checkResult{name: "slack", detail: "an app token or signing secret is set but no bot token, so Slack is off",
			fix: "set slack.bot_token (or SLACK_BOT_TOKEN) to the xoxb- token, or remove the Slack secrets"})
	case !sc.Enabled():
		out = append(out, checkResult{name: "slack", detail: "off (no bot token)", ok: true})
	case sc.Mode == "http":
		out = append(out, checkResult{name: "slack", detail: "on, Events API over HTTP at " + sc.Path + "/events; bot token and signing secret present", ok: true})
	default:
		out = append(out, checkResult{name: "slack", detail: "on, Socket Mode; bot token and app token present", ok: true})
	}
	dc := cfg.Discord
	switch {
	case !dc.Enabled():
		out = append(out, checkResult{name: "discord", detail: "off (no token)", ok: true})
	case dc.Mode == config.DiscordModeHTTP:
		out = append(out, checkResult{name: "discord", detail: "on, interactions endpoint at " + dc.HTTPPath + "; token, application id and public key present", ok: true})
	default:
		out = append(out, checkResult{name: "discord", detail: "on, gateway; token and application id present", ok: true})
	}
	return out
}

// checkEndpoint asks an OpenAI-compatible endpoint for GET <baseURL>/models.
func checkEndpoint(ctx context.Context, client *http.Client, name, baseURL, apiKey, field, keyVar string) checkResult {
	c := checkResult{name: name}
	u := strings.TrimRight(baseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		c.detail, c.fix = err.Error(), "set "+field+" to the endpoint's base URL including /v1, e.g. http://localhost:11434/v1"
		return c
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		c.detail = "GET " + u + ": unreachable: " + err.Error()
		var uerr interface{ Timeout() bool }
		if errors.As(err, &uerr) && uerr.Timeout() {
			c.detail = "GET " + u + ": no answer within " + doctorTimeout.String()
		}
		c.fix = "start the model server or correct " + field + " (it must include /v1); check proxies and firewalls"
		return c
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	switch {
	case resp.StatusCode == http.StatusOK:
		c.ok, c.detail = true, "GET "+u+" answered 200"
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		c.detail = fmt.Sprintf("GET %s answered %s: the API key was refused", u, resp.Status)
		c.fix = "set a valid key in the configuration or " + keyVar
	case resp.StatusCode == http.StatusNotFound:
		c.detail = fmt.Sprintf("GET %s answered 404", u)
		c.fix = field + " must be the base URL including /v1 (e.g. https://api.openai.com/v1)"
	default:
		c.detail = fmt.Sprintf("GET %s answered %s", u, resp.Status)
		c.fix = "check the model server's logs"
	}
	return c
}
