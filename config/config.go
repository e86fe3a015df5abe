// Package config is cita's typed configuration: one YAML file, environment overrides, and
// ${ENV} references for secrets. It imports nothing of cita's.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole configuration. The zero value plus Defaults runs offline: the private
// PostgreSQL cluster, the built-in embedder and the extractive answerer.
//
// Each section is read only by cmd/cita, which hands it to the layer that owns it (the table in
// docs/configuration.md): what changes what an answer says (Embedder, Chat, Rerank, Answers)
// goes to the pipeline in cmd/cita/pipeline.go and into the answer cache's variant
// (cacheVariant); what only changes how a reply is shown (Slack.Disclaimer, ...) goes to the chat
// adapters' options; who may read what (Access, Slack, Discord, MCP, Identity) to the access maps.
type Config struct {
	// DatabaseURL selects an existing PostgreSQL server (env DATABASE_URL). Empty: cita starts a
	// private cluster in DataDir.
	DatabaseURL string `yaml:"database_url"`
	// DataDir holds the private cluster (env CITA_DATA_DIR); empty means the per-user default.
	DataDir string `yaml:"data_dir"`
	// Database adds read replicas for searches; see database.go.
	Database DatabaseConfig `yaml:"database"`

	// Embedder, Chat, Rerank and Answers change what an answer says: the pipeline's
	// (cmd/cita/pipeline.go), each part of the answer cache's variant.
	Embedder EmbedderConfig `yaml:"embedder"`
	Chat     ChatConfig     `yaml:"chat"`
	Rerank   RerankConfig   `yaml:"rerank"`
	Cache    CacheConfig    `yaml:"cache"`
	// Answers tunes the relevance guard and the longest question; see answers.go.
	Answers AnswersConfig `yaml:"answers"`
	Access  AccessRules   `yaml:"access"`

	Slack   SlackConfig    `yaml:"slack"`
	Discord DiscordConfig  `yaml:"discord"`
	MCP     MCPConfig      `yaml:"mcp"`
	Sources []SourceConfig `yaml:"sources"`
	// Listen is the HTTP address of `cita serve` (health, metrics, Slack/Discord HTTP endpoints).
	Listen string `yaml:"listen"`
	// Server tunes `cita serve` (workers, queue, limits, logging); see server.go.
	Server ServerConfig `yaml:"server"`
	// Retention bounds how long answers and conversation turns are kept; see retention.go.
	Retention RetentionConfig `yaml:"retention"`
	// Sweep re-checks who reads the channels that show answers; see sweep.go.
	Sweep SweepConfig `yaml:"sweep"`
	// Gaps tunes the gap record and its digest; see gaps.go.
	Gaps GapsConfig `yaml:"gaps"`
	// Identity turns chat users' verified e-mail addresses and Google Groups into access groups;
	// see identity.go.
	Identity IdentityConfig `yaml:"identity"`
}

// EmbedderConfig picks the embedding model.
type EmbedderConfig struct {
	// Provider is "builtin" (default, offline) or "openai" (any OpenAI-compatible endpoint).
	Provider   string `yaml:"provider"`
	BaseURL    string `yaml:"base_url"` // e.g. https://api.openai.com/v1, http://localhost:11434/v1
	APIKey     string `yaml:"api_key"`  // use ${OPENAI_API_KEY}
	Model      string `yaml:"model"`
	Dimensions int    `yaml:"dimensions"`
}

// ChatConfig picks the answering model; with no BaseURL cita answers extractively, offline.
type ChatConfig struct {
	BaseURL string `yaml:"base_url"`
	APIKey  string `yaml:"api_key"`
	Model   string `yaml:"model"`
	// Agent lets a model with tool calling search and read documents several times before it
	// answers (see docs/agent.md); default off (one search, then the answer).
	Agent bool `yaml:"agent"`
	// MaxSteps bounds the searches and document reads of one agent answer; default 4.
	MaxSteps int `yaml:"max_steps"`
	// Timeout bounds the model's silence: no word for this long (while answering, or the whole
	// follow-up rewrite) and the answer is composed offline from the same sources, labelled as
	// such; default 30s.
	Timeout time.Duration `yaml:"timeout"`
}

// DefaultChatTimeout is chat.timeout when unset.
const DefaultChatTimeout = 30 * time.Second

// DefaultMaxSteps is chat.max_steps when unset.
const DefaultMaxSteps = 4

// RerankConfig sets up an optional cross-encoder over the best fused hits, through a /rerank
// endpoint (Cohere, Jina or Hugging Face TEI). With no BaseURL there is no reranking.
type RerankConfig struct {
	BaseURL string `yaml:"base_url"` // the API root, /rerank is appended: https://api.cohere.com/v2, http://tei:8080
	APIKey  string `yaml:"api_key"`  // use ${COHERE_API_KEY}; env CITA_RERANK_API_KEY
	Model   string `yaml:"model"`    // e.g. rerank-v3.5; required for flavor cohere
	Flavor  string `yaml:"flavor"`   // cohere (default, also Jina) or tei
	// TopN is how many fused hits are reranked (default 30, at most 100).
	TopN int `yaml:"top_n"`
	// Timeout bounds a rerank call; past it the fused order is kept (default 2s).
	Timeout time.Duration `yaml:"timeout"`
}

// CacheConfig tunes the answer cache in PostgreSQL.
type CacheConfig struct {
	// Enabled turns the cache on or off; default on.
	Enabled *bool `yaml:"enabled"`
	// TTL is how long an answer is served again (default 24h); an answer is also dropped as soon
	// as a document it cited changes.
	TTL time.Duration `yaml:"ttl"`
	// AbstainTTL is how long "not in our documentation" is served again (default 10m): the index
	// may grow.
	AbstainTTL time.Duration `yaml:"abstain_ttl"`
}

// On reports whether the cache is enabled.
func (c CacheConfig) On() bool { return c.Enabled == nil || *c.Enabled }

// Load reads the YAML file at path (no file when path is empty), expands ${VAR} references from
// the environment, applies environment overrides and defaults, and validates. Errors name the
// field and the fix.
func Load(path string) (*Config, error) {
	cfg := &Config{}
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read configuration: %w", err)
		}
		expanded, err := expandEnv(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(expanded))
		dec.KnownFields(true)
		if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) { // an empty file is fine
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := cfg.applyEnv(); err != nil {
		return nil, err
	}
	cfg.applyDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandEnv replaces ${VAR} with the variable's value; an unset variable is an error, so a
// missing secret is caught at start, not at the first request.
func expandEnv(raw []byte) ([]byte, error) {
	var missing []string
	out := envRef.ReplaceAllFunc(raw, func(m []byte) []byte {
		name := string(envRef.FindSubmatch(m)[1])
		v, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		return []byte(v)
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("environment variable %s is referenced but not set: export it or remove the reference", strings.Join(missing, ", "))
	}
	return out, nil
}

func (c *Config) applyEnv() error {
	set := func(dst *string, name string) {
		if v, ok := os.LookupEnv(name); ok && v != "" {
			*dst = v
		}
	}
	set(&c.DatabaseURL, "DATABASE_URL")
	set(&c.DataDir, "CITA_DATA_DIR")
	set(&c.Embedder.APIKey, "CITA_EMBEDDER_API_KEY")
	set(&c.Chat.APIKey, "CITA_CHAT_API_KEY")
	set(&c.Chat.BaseURL, "CITA_CHAT_BASE_URL")
	set(&c.Chat.Model, "CITA_CHAT_MODEL")
	set(&c.Rerank.APIKey, "CITA_RERANK_API_KEY")
	c.Slack.ApplyEnv()
	return c.Server.ApplyEnv()
}

func (c *Config) applyDefaults() {
	if c.Embedder.Provider == "" {
		c.Embedder.Provider = "builtin"
	}
	if len(c.Access.DefaultGroups) == 0 {
		c.Access.DefaultGroups = []string{"everyone"}
	}
	if c.Rerank.TopN == 0 {
		c.Rerank.TopN = 30
	}
	if c.Rerank.Timeout == 0 {
		c.Rerank.Timeout = 2 * time.Second
	}
	if c.Cache.TTL == 0 {
		c.Cache.TTL = 24 * time.Hour
	}
	if c.Cache.AbstainTTL == 0 {
		c.Cache.AbstainTTL = 10 * time.Minute
	}
	c.Retention = c.Retention.WithDefaults()
	c.Database = c.Database.WithDefaults()
	if c.Chat.MaxSteps == 0 {
		c.Chat.MaxSteps = DefaultMaxSteps
	}
	if c.Chat.Timeout == 0 {
		c.Chat.Timeout = DefaultChatTimeout
	}
	c.MCP = c.MCP.WithDefaults()
	for i := range c.Sources {
		if c.Sources[i].MaxDeleteFraction == nil {
			f := DefaultMaxDeleteFraction
			c.Sources[i].MaxDeleteFraction = &f
		}
	}
}

// Validate checks the configuration; its error names the field and what to do.
func (c *Config) Validate() error {
	var errs []error
	switch c.Embedder.Provider {
	case "builtin":
	case "openai":
		if c.Embedder.BaseURL == "" {
			errs = append(errs, errors.New("embedder.base_url: required with provider openai (e.g. https://api.openai.com/v1)"))
		}
		if c.Embedder.Model == "" {
			errs = append(errs, errors.New("embedder.model: required with provider openai (e.g. text-embedding-3-small)"))
		}
		if c.Embedder.Dimensions <= 0 {
			errs = append(errs, errors.New("embedder.dimensions: set the model's vector size (e.g. 1536)"))
		}
	default:
		errs = append(errs, fmt.Errorf("embedder.provider: %q is not known; use builtin or openai", c.Embedder.Provider))
	}
	if c.Chat.BaseURL != "" && c.Chat.Model == "" {
		errs = append(errs, errors.New("chat.model: required when chat.base_url is set (e.g. gpt-4o-mini)"))
	}
	if c.Chat.Agent && c.Chat.BaseURL == "" {
		errs = append(errs, errors.New("chat.agent: needs a chat model with tool calling; set chat.base_url and chat.model, or remove chat.agent"))
	}
	if c.Chat.MaxSteps < 0 || c.Chat.MaxSteps > 16 {
		errs = append(errs, fmt.Errorf("chat.max_steps: %d is out of range; use 1-16 (0 means %d)", c.Chat.MaxSteps, DefaultMaxSteps))
	}
	if c.Chat.Timeout < 0 || c.Chat.Timeout > 10*time.Minute {
		errs = append(errs, fmt.Errorf("chat.timeout: %s is out of range; use a positive duration up to 10m such as 30s", c.Chat.Timeout))
	}
	errs = append(errs, c.Rerank.validate()...)
	errs = append(errs, c.Cache.validate()...)
	errs = append(errs, c.Retention.validate()...)
	errs = append(errs, c.Sweep.validate()...)
	errs = append(errs, c.Gaps.validate()...)
	errs = append(errs, c.Answers.validate()...)
	errs = append(errs, c.Database.validate()...)
	if len(c.Database.ReadURLs) > 0 && c.DatabaseURL == "" {
		errs = append(errs, errors.New("database.read_urls: replicas need their primary in database_url (or DATABASE_URL); the private cluster has none"))
	}
	errs = append(errs, c.Identity.validate()...)
	if err := c.Access.Compile(); err != nil {
		errs = append(errs, fmt.Errorf("access: %w", err))
	}
	if err := c.Slack.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Discord.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.MCP.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := ValidateSources(c.Sources); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.Server.Validate())
	return errors.Join(errs...)
}

func (r RerankConfig) validate() []error {
	if r.BaseURL == "" {
		return nil
	}
	var errs []error
	switch strings.ToLower(r.Flavor) {
	case "", "cohere", "jina":
		if r.Model == "" {
			errs = append(errs, errors.New("rerank.model: required with flavor cohere (e.g. rerank-v3.5 or jina-reranker-v2-base-multilingual)"))
		}
	case "tei":
	default:
		errs = append(errs, fmt.Errorf("rerank.flavor: %q is not known; use cohere (Cohere, Jina) or tei (Hugging Face TEI)", r.Flavor))
	}
	if !strings.HasPrefix(r.BaseURL, "http://") && !strings.HasPrefix(r.BaseURL, "https://") {
		errs = append(errs, fmt.Errorf("rerank.base_url: %q is not an http(s) URL (e.g. https://api.cohere.com/v2)", r.BaseURL))
	}
	if r.TopN != 0 && (r.TopN < 2 || r.TopN > 100) {
		errs = append(errs, fmt.Errorf("rerank.top_n: %d is out of range; rerank 20 to 50 hits (2 to 100 allowed)", r.TopN))
	}
	if r.Timeout < 0 || r.Timeout > time.Minute {
		errs = append(errs, fmt.Errorf("rerank.timeout: %s is out of range; use a short positive duration such as 2s", r.Timeout))
	}
	return errs
}

func (c CacheConfig) validate() []error {
	var errs []error
	if c.TTL < 0 {
		errs = append(errs, fmt.Errorf("cache.ttl: %s is negative; use a duration such as 24h, or cache.enabled: false", c.TTL))
	}
	if c.AbstainTTL < 0 {
		errs = append(errs, fmt.Errorf("cache.abstain_ttl: %s is negative; use a duration such as 10m", c.AbstainTTL))
	}
	return errs
}
