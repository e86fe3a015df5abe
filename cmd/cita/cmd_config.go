package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/citahq/cita/config"
)

func init() {
	register("config", &command{
		summary: "check the configuration and print it with secrets masked",
		usage: `Usage: cita config check

Loads the configuration file (--config or CITA_CONFIG) with its ${ENV} references and the
environment overrides, validates it, and prints the effective configuration, defaults included,
with every token, secret, API key and database password masked. Exits 1 with the fields to fix
when it is invalid. See docs/production.md for the fields and variables.
`,
		run: runConfig,
	})
}

func runConfig(ctx context.Context, e *env, args []string) error {
	fs := newFlags("config", e, commands["config"].usage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "check" {
		return errUsage
	}
	cfg, err := effectiveConfig(e)
	if err != nil {
		return fmt.Errorf("configuration is invalid:\n%w", err)
	}
	out, err := maskedYAML(cfg)
	if err != nil {
		return err
	}
	source := e.configPath
	if source == "" {
		source = "no file (defaults and environment)"
	}
	fmt.Fprintf(e.stdout, "# configuration is valid: %s\n# secrets are masked\n%s", source, out)
	return nil
}

// effectiveConfig loads and validates the configuration and fills in the defaults `cita serve`
// would use. It returns the validation errors, one field per line.
func effectiveConfig(e *env) (*config.Config, error) {
	cfg, err := loadConfig(e)
	if err != nil {
		return nil, err
	}
	if err := cfg.Server.ApplyEnv(); err != nil {
		return nil, err
	}
	if err := cfg.Server.Validate(); err != nil {
		return nil, err
	}
	cfg.Server = cfg.Server.WithDefaults()
	if cfg.Slack.Enabled() {
		cfg.Slack = cfg.Slack.WithDefaults()
	}
	if cfg.Discord.Enabled() {
		cfg.Discord = cfg.Discord.WithDefaults()
	}
	if cfg.Listen == "" {
		cfg.Listen = ":8080"
	}
	return cfg, nil
}

// secretKey matches the YAML keys whose values are secrets.
var secretKey = regexp.MustCompile(`(^|_)(token|secret|password|api_key|secret_access_key|access_key_id)$`)

// masked replaces a secret value; empty values stay empty so "not set" remains visible.
const masked = "********"

// maskedYAML renders cfg as YAML with secrets replaced by masked and the password of the
// database URL hidden.
func maskedYAML(cfg *config.Config) (string, error) {
	var doc yaml.Node
	if err := doc.Encode(cfg); err != nil {
		return "", fmt.Errorf("render configuration: %w", err)
	}
	maskNode(&doc)
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return "", fmt.Errorf("render configuration: %w", err)
	}
	return string(out), nil
}

func maskNode(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i].Value, n.Content[i+1]
			switch {
			case val.Kind == yaml.ScalarNode && val.Value != "" && secretKey.MatchString(key):
				val.Value, val.Tag, val.Style = masked, "!!str", 0
			case val.Kind == yaml.ScalarNode && key == "database_url":
				val.Value = maskDatabaseURL(val.Value)
			case val.Kind == yaml.SequenceNode && key == "read_urls":
				// The replicas' connection strings carry passwords like the primary's.
				for _, item := range val.Content {
					if item.Kind == yaml.ScalarNode {
						item.Value = maskDatabaseURL(item.Value)
					}
				}
			}
		}
	}
	for _, c := range n.Content {
		maskNode(c)
	}
}

// passwordParam matches password=... in a keyword/value connection string, with its value
// up to the next keyword=value pair (or the end), so that a value libpq would reject, such as
// password="two words", is masked whole.
var passwordParam = regexp.MustCompile(`(password\s*=\s*)('(?:[^'\\]|\\.)*'|.*?)(\s+[A-Za-z_]+\s*=|\s*$)`)

// maskDatabaseURL hides the password of a postgres:// URL or a keyword/value string.
func maskDatabaseURL(s string) string {
	if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		u, err := url.Parse(s)
		if err != nil {
			return masked // unparsable: show nothing rather than a password
		}
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return strings.ReplaceAll(u.String(), "xxxxx", masked)
	}
	return passwordParam.ReplaceAllString(s, "${1}"+masked+"${3}")
}

// errInvalid is returned by commands whose checks failed after printing them.
var errInvalid = errors.New("some checks failed")
