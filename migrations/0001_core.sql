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

-- Document frequencies per lexeme, for BM25 scored inside PostgreSQL: kind 't' counts the stemmed
-- vector, kind 's' the simple one. Kept exact by statement-level triggers on chunks.
CREATE TABLE lexeme_stats (
    kind   "char" NOT NULL,
    lexeme text NOT NULL,
    df     integer NOT NULL,
    PRIMARY KEY (kind, lexeme)
);
-- The vocabulary for fuzzy expansion of misspelled query terms.
CREATE INDEX lexeme_stats_trgm_idx ON lexeme_stats USING gin (lexeme public.gin_trgm_ops);

CREATE TABLE corpus_stats (
    kind      "char" PRIMARY KEY,
    chunks    bigint NOT NULL DEFAULT 0,
    total_len bigint NOT NULL DEFAULT 0
);
INSERT INTO corpus_stats (kind) VALUES ('t'), ('s');

-- +goose StatementBegin
CREATE FUNCTION chunks_stats_insert() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    INSERT INTO lexeme_stats AS s (kind, lexeme, df)
    SELECT k, l, count(*) FROM (
        SELECT 't'::"char" AS k, unnest(tsvector_to_array(n.tsv)) AS l FROM new_rows n
        UNION ALL
        SELECT 's'::"char", unnest(tsvector_to_array(n.tsv_simple)) FROM new_rows n
    ) x
    GROUP BY k, l
    ORDER BY k, l -- one lock order for every writer: no deadlocks between indexers
    ON CONFLICT (kind, lexeme) DO UPDATE SET df = s.df + EXCLUDED.df;

    UPDATE corpus_stats c SET chunks = c.chunks + a.n, total_len = c.total_len + a.len
    FROM (
        SELECT 't'::"char" AS kind, count(*) AS n, coalesce(sum(length(tsv)), 0) AS len FROM new_rows
        UNION ALL
        SELECT 's'::"char", count(*), coalesce(sum(length(tsv_simple)), 0) FROM new_rows
    ) a
    WHERE c.kind = a.kind;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION chunks_stats_delete() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    WITH gone AS (
        SELECT k, l, count(*) AS n FROM (
            SELECT 't'::"char" AS k, unnest(tsvector_to_array(o.tsv)) AS l FROM old_rows o
            UNION ALL
            SELECT 's'::"char", unnest(tsvector_to_array(o.tsv_simple)) FROM old_rows o
        ) x
        GROUP BY k, l
    ), locked AS (
        SELECT s.kind, s.lexeme FROM lexeme_stats s JOIN gone g ON s.kind = g.k AND s.lexeme = g.l
        ORDER BY s.kind, s.lexeme
        FOR UPDATE OF s
    )
    UPDATE lexeme_stats s SET df = s.df - g.n
    FROM gone g, locked
    WHERE s.kind = g.k AND s.lexeme = g.l AND locked.kind = g.k AND locked.lexeme = g.l;

    DELETE FROM lexeme_stats WHERE df <= 0;

    UPDATE corpus_stats c SET chunks = c.chunks - a.n, total_len = c.total_len - a.len
    FROM (
        SELECT 't'::"char" AS kind, count(*) AS n, coalesce(sum(length(tsv)), 0) AS len FROM old_rows
        UNION ALL
        SELECT 's'::"char", count(*), coalesce(sum(length(tsv_simple)), 0) FROM old_rows
    ) a
    WHERE c.kind = a.kind;
    RETURN NULL;
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
DROP TABLE corpus_stats;
DROP FUNCTION chunks_stats_insert();
DROP FUNCTION chunks_stats_delete();
DROP SEQUENCE document_versions;
DROP FUNCTION cita_unaccent(text);
