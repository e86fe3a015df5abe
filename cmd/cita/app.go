package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/glossary"
	"github.com/citahq/cita/internal/pgcluster"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/hashembed"
	"github.com/citahq/cita/rag/openai"
	"github.com/citahq/cita/rag/pgstore"
)

// embedder is what the app needs of an embedder: vectors plus the model it records.
type embedder interface {
	rag.Embedder
	Info() rag.EmbedderInfo
}

// app is the wired program: configuration, database, store and search.
type app struct {
	cfg      *config.Config
	pool     *pgxpool.Pool
	store    *pgstore.Store
	embedder embedder
	search   *rag.Hybrid
	// translator translates queries for cross-lingual search; its Translator is nil when none
	// is installed.
	translator offlineTranslator
	// replicas routes the search arms to database.read_urls (see useReplicas); nil without.
	replicas *pgstore.Replicas
	// translationFailures is told of failed query translations (serve's metrics); nil without.
	translationFailures rag.TranslationObserver
	// glossary is the organisation's own (answers.glossary, answers.glossary_files), nil
	// without; lexicon finds its terms and cita's workplace glossary's in questions.
	glossary *glossary.Glossary
	lexicon  *rag.Lexicon
}

// loadConfig reads the configuration file named by --config (none is fine).
func loadConfig(e *env) (*config.Config, error) {
	cfg, err := config.Load(e.configPath)
	if err != nil {
		return nil, err
	}
	if e.dataDir != "" {
		cfg.DataDir = e.dataDir
	}
	return cfg, nil
}

// connString returns DATABASE_URL, or starts (or reuses) the private cluster and returns its
// connection string.
func connString(ctx context.Context, e *env, cfg *config.Config) (string, error) {
	if cfg.DatabaseURL != "" {
		return cfg.DatabaseURL, nil
	}
	cl, err := pgcluster.Ensure(ctx, pgcluster.Options{DataDir: cfg.DataDir, Logger: e.logger})
	if err != nil {
		return "", fmt.Errorf("start the private PostgreSQL cluster (or set DATABASE_URL): %w", err)
	}
	return cl.ConnString(), nil
}

// parseAndOpen parses a subcommand's args into fs, then opens the app on the configured
// database (see openApp); the caller closes it. It returns the parse error, or openApp's.
func parseAndOpen(ctx context.Context, e *env, fs *flag.FlagSet, args []string) (*app, error) {
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	return openApp(ctx, e, "")
}

// openScoped returns the scope of a --groups list, then the app opened on the configured
// database (see openApp); the caller closes it. An invalid list is an error naming --groups, and
// opens nothing.
func openScoped(ctx context.Context, e *env, groups string) (*app, rag.Scope, error) {
	scope, err := rag.NewScope(splitList(groups)...)
	if err != nil {
		return nil, rag.Scope{}, fmt.Errorf("--groups: %w", err)
	}
	a, err := openApp(ctx, e, "")
	return a, scope, err
}

// openApp connects, migrates the given schema ("" = the default search_path) and wires the
// store and the hybrid searcher.
func openApp(ctx context.Context, e *env, schema string) (*app, error) {
	cfg, err := loadConfig(e)
	if err != nil {
		return nil, err
	}
	cs, err := connString(ctx, e, cfg)
	if err != nil {
		return nil, err
	}
	pool, err := pgstore.Open(ctx, cs, pgstore.PoolOptions{Schema: schema}, e.logger)
	if err != nil {
		return nil, err
	}
	emb, err := newEmbedder(cfg, e)
	if err != nil {
		pool.Close()
		return nil, err
	}
	store, err := pgstore.New(pool, emb.Info(), e.logger)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := store.EnsureVectorIndex(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	tr, err := newTranslator(e.translator, e.logger, e.translatorTimeout)
	if err != nil {
		pool.Close()
		return nil, err
	}
	org, err := cfg.Answers.OrgGlossary()
	if err != nil {
		tr.stop()
		pool.Close()
		return nil, err
	}
	a := &app{cfg: cfg, pool: pool, store: store, embedder: emb, translator: tr, glossary: org}
	a.lexicon = lexiconFor(org)
	a.search = rag.NewHybrid(store, emb, a.hybridOptions())
	return a, nil
}

// lexiconFor is cita's workplace glossary with the organisation's own entries (weighted as
// its own words) when there are any.
func lexiconFor(org *glossary.Glossary) *rag.Lexicon {
	if org.Len() == 0 {
		return rag.BuiltinLexicon()
	}
	return rag.NewLexicon(rag.WeightedGlossary{Glossary: glossary.Builtin(), Weight: rag.BuiltinGlossaryWeight},
		rag.WeightedGlossary{Glossary: org, Weight: rag.OrgGlossaryWeight})
}

// hybridOptions are the default fusion options with the app's translator and lexicon.
func (a *app) hybridOptions() rag.HybridOptions {
	opts := rag.DefaultHybridOptions()
	opts.Translator = a.translator.Translator
	opts.TranslationFailures = a.translationFailures
	opts.Lexicon = a.lexicon
	return opts
}

// observeTranslations tells o of every failed query translation from now on: a.search is
// rebuilt with it, over the replicas when useReplicas routed it there.
func (a *app) observeTranslations(o rag.TranslationObserver) {
	a.translationFailures = o
	var store rag.ArmStore = a.store
	if a.replicas != nil {
		store = a.store.Routed(a.replicas)
	}
	a.search = rag.NewHybrid(store, a.embedder, a.hybridOptions())
}

func (a *app) Close() {
	a.translator.stop()
	if a.replicas != nil {
		a.replicas.Close()
	}
	a.pool.Close()
}

func newEmbedder(cfg *config.Config, e *env) (embedder, error) {
	switch cfg.Embedder.Provider {
	case "openai":
		return openai.NewEmbedder(openai.Config{
			BaseURL: cfg.Embedder.BaseURL, APIKey: cfg.Embedder.APIKey,
			EmbeddingModel: cfg.Embedder.Model, Dimensions: cfg.Embedder.Dimensions,
			Timeout: 60 * time.Second, Logger: e.logger,
		})
	default:
		return hashembed.New(cfg.Embedder.Dimensions), nil
	}
}

// openScratchApp opens the app on a new, isolated schema named prefix_<random> (evaluation and
// benchmark namespaces that neither see nor touch the user's documents). close drops the
// schema, then closes the pool.
func openScratchApp(ctx context.Context, e *env, prefix string) (a *app, close func(), err error) {
	schema := prefix + "_" + randomHex(6)
	a, err = openApp(ctx, e, schema)
	if err != nil {
		return nil, nil, err
	}
	return a, func() {
		if err := pgstore.DropSchema(context.WithoutCancel(ctx), a.pool, schema); err != nil {
			e.logger.Error("drop scratch namespace", slog.String("schema", schema), slog.String("error", err.Error()))
		}
		a.Close()
	}, nil
}
