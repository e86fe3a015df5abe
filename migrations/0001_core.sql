-- +goose Up
-- Extensions live in the public schema; every cita schema (the default one, eval namespaces,
-- test schemas) shares them.
CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

-- unaccent() is STABLE (it reads a dictionary by name); generated columns need IMMUTABLE, so this
-- wrapper names the dictionary explicitly.
-- +goose StatementBegin
CREATE FUNCTION cita_unaccent(text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
-- +goose StatementEnd

-- Every content or permission change takes a new number, so an answer that cited version N of a
-- document can tell it is stale.
CREATE SEQUENCE document_versions;

CREATE TABLE documents (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source       text NOT NULL,
    external_id  text NOT NULL,
    title        text NOT NULL,
    url          text NOT NULL DEFAULT '',
    owner        text NOT NULL DEFAULT '',
    lang         text NOT NULL DEFAULT 'simple',
    updated_at   timestamptz NOT NULL,
    content_hash text NOT NULL,
    groups       text[] NOT NULL CHECK (cardinality(groups) > 0),
    version      bigint NOT NULL DEFAULT nextval('document_versions'),
    meta         jsonb NOT NULL DEFAULT '{}',
    indexed_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (source, external_id)
);

-- A chunk repeats its document's title and groups so that both search arms filter and rank in one
-- table, with the access filter in their own WHERE.
CREATE TABLE chunks (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id bigint NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    position    integer NOT NULL,
    title       text NOT NULL,
    section     text NOT NULL DEFAULT '',
    locator     text NOT NULL DEFAULT '',
    content     text NOT NULL,
    ts_config   regconfig NOT NULL,
    groups      text[] NOT NULL CHECK (cardinality(groups) > 0),
    embed_model text,
    embedding   public.vector,
    -- Stemmed in the chunk's language over unaccented text; title (A) and section (B) weigh above
    -- the body.
    tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector(ts_config, cita_unaccent(title)), 'A') ||
        setweight(to_tsvector(ts_config, cita_unaccent(section)), 'B') ||
        to_tsvector(ts_config, cita_unaccent(content))
    ) STORED,
    -- Unstemmed and unaccented, for codes and names whatever the query's language.
    tsv_simple tsvector GENERATED ALWAYS AS (
        to_tsvector('simple'::regconfig, cita_unaccent(title || ' ' || section || ' ' || content))
    ) STORED,
    UNIQUE (document_id, position)
);

CREATE INDEX chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX chunks_tsv_simple_idx ON chunks USING gin (tsv_simple);
CREATE INDEX chunks_groups_idx ON chunks USING gin (groups);
-- HNSW indexes are per embedding model (a partial expression index with the model's dimension),
-- created by the application for the configured model: switching models needs no migration.

-- Document frequencies of the stemmed vector's lexemes, for BM25 scored inside PostgreSQL.
-- Writers never update these rows: triggers append signed deltas to lexeme_delta (no row locks,
-- no deadlocks between indexers, a cheap insert per document), readers add the pending deltas,
-- and cita_compact_stats() folds them in after each indexing run.
CREATE TABLE lexeme_stats (
    lexeme text PRIMARY KEY,
    df     integer NOT NULL
);
-- The vocabulary for fuzzy expansion of misspelled query terms.
CREATE INDEX lexeme_stats_trgm_idx ON lexeme_stats USING gin (lexeme public.gin_trgm_ops);

CREATE TABLE lexeme_delta (
    lexeme text NOT NULL,
    df     integer NOT NULL
);
CREATE INDEX lexeme_delta_lexeme_idx ON lexeme_delta (lexeme);

-- Chunk count and summed tsvector lengths (distinct lexemes) for BM25's average length: one row
-- per kind, 't' for the stemmed vector and 's' for the simple one.
CREATE TABLE corpus_stats (
    kind      "char" PRIMARY KEY,
    chunks    bigint NOT NULL DEFAULT 0,
    total_len bigint NOT NULL DEFAULT 0
);
INSERT INTO corpus_stats (kind) VALUES ('t'), ('s');
-- Pending changes to corpus_stats, appended like lexeme_delta so concurrent writers never wait on
-- one hot row.
CREATE TABLE corpus_delta (
    kind      "char" NOT NULL,
    chunks    bigint NOT NULL,
    total_len bigint NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION chunks_stats_insert() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    INSERT INTO lexeme_delta (lexeme, df)
    SELECT l, count(*) FROM new_rows n, unnest(tsvector_to_array(n.tsv)) l GROUP BY l;
    INSERT INTO corpus_delta (kind, chunks, total_len)
    SELECT 't', count(*), coalesce(sum(length(tsv)), 0) FROM new_rows
    UNION ALL
    SELECT 's', count(*), coalesce(sum(length(tsv_simple)), 0) FROM new_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION chunks_stats_delete() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    INSERT INTO lexeme_delta (lexeme, df)
    SELECT l, -count(*) FROM old_rows o, unnest(tsvector_to_array(o.tsv)) l GROUP BY l;
    INSERT INTO corpus_delta (kind, chunks, total_len)
    SELECT 't', -count(*), -coalesce(sum(length(tsv)), 0) FROM old_rows
    UNION ALL
    SELECT 's', -count(*), -coalesce(sum(length(tsv_simple)), 0) FROM old_rows;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Folds pending deltas into lexeme_stats; one caller at a time (others return at once).
-- +goose StatementBegin
CREATE FUNCTION cita_compact_stats() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
DECLARE
    folded bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext(current_schema() || '.cita_compact_stats')) THEN
        RETURN 0;
    END IF;
    WITH d AS (DELETE FROM lexeme_delta RETURNING lexeme, df),
    agg AS (SELECT lexeme, sum(df)::int AS df FROM d GROUP BY lexeme),
    up AS (
        INSERT INTO lexeme_stats AS s (lexeme, df)
        SELECT lexeme, df FROM agg ORDER BY lexeme
        ON CONFLICT (lexeme) DO UPDATE SET df = s.df + EXCLUDED.df
        RETURNING 1
    )
    SELECT count(*) INTO folded FROM up;
    DELETE FROM lexeme_stats WHERE df <= 0;
    WITH d AS (DELETE FROM corpus_delta RETURNING kind, chunks, total_len),
    agg AS (SELECT kind, sum(chunks) AS chunks, sum(total_len) AS total_len FROM d GROUP BY kind)
    UPDATE corpus_stats c SET chunks = c.chunks + agg.chunks, total_len = c.total_len + agg.total_len
    FROM agg WHERE c.kind = agg.kind;
    RETURN folded;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER chunks_stats_insert AFTER INSERT ON chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_stats_insert();
CREATE TRIGGER chunks_stats_delete AFTER DELETE ON chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_stats_delete();

-- +goose Down
DROP TABLE chunks;
DROP TABLE documents;
DROP TABLE lexeme_stats;
DROP TABLE lexeme_delta;
DROP FUNCTION cita_compact_stats();
DROP TABLE corpus_stats;
DROP TABLE corpus_delta;
DROP FUNCTION chunks_stats_insert();
DROP FUNCTION chunks_stats_delete();
DROP SEQUENCE document_versions;
DROP FUNCTION cita_unaccent(text);
