-- +goose Up
-- Finished answers, served again to the same scope for the same normalized standalone query.
-- An entry is valid only while every document it cited still exists with the version it had when
-- the answer was written: re-indexing, a permission change or a deletion bumps or removes the
-- version, so a sync invalidates the entry without touching this table. The lookup joins
-- documents in the same statement; stale rows are deleted opportunistically.
CREATE TABLE answer_cache (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- sha256 of (variant, scope_key, lang, query_key): fixed width, so long questions index fine.
    key_hash   bytea NOT NULL UNIQUE,
    -- The parts of the key, compared again on lookup: a hash collision can never cross scopes.
    variant    text NOT NULL,
    scope_key  text NOT NULL, -- Scope.Key(): the sorted access groups, comma-separated
    lang       text NOT NULL,
    query_key  text NOT NULL, -- the normalized standalone query
    abstained  boolean NOT NULL,
    answer     jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX answer_cache_created_at_idx ON answer_cache (created_at);

-- The (document, version) pairs an entry cited. No foreign key to documents: a deleted document
-- must make the entry stale, not block the deletion.
CREATE TABLE answer_cache_documents (
    entry_id    bigint NOT NULL REFERENCES answer_cache (id) ON DELETE CASCADE,
    document_id bigint NOT NULL,
    doc_version bigint NOT NULL,
    PRIMARY KEY (entry_id, document_id)
);
CREATE INDEX answer_cache_documents_document_idx ON answer_cache_documents (document_id);

-- +goose Down
DROP TABLE answer_cache_documents;
DROP TABLE answer_cache;
