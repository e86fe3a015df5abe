-- +goose Up
-- Issue 12, findings 7 to 10 and identity groups:
--   1. access group names are checked by the database too.

-- 1. Group names: 1 to 256 characters of a-z, 0-9 and . _ - + ' @ : (rag.ValidateGroup).
-- +goose StatementBegin
CREATE FUNCTION cita_valid_groups(groups text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT cardinality(groups) > 0 AND NOT EXISTS (
        SELECT 1 FROM unnest(groups) g
        WHERE g IS NULL OR octet_length(g) > 256 OR NOT (g COLLATE "C" ~ '^[a-z0-9._+''@:-]+$'))
$$;
-- +goose StatementEnd
-- NOT VALID: rows written before this check are not re-read. A row holding an invalid name can
-- only be matched by a scope holding that name, which no scope can (rag.NewScope refuses it), so
-- such a document is unsearchable until its next sync refuses it with a clear error.
ALTER TABLE documents ADD CONSTRAINT documents_groups_valid CHECK (cita_valid_groups(groups)) NOT VALID;
ALTER TABLE chunks ADD CONSTRAINT chunks_groups_valid CHECK (cita_valid_groups(groups)) NOT VALID;

-- Scope keys are now length-prefixed ("3:eng;8:everyone"): entries under the old form would
-- never be hit again.
DELETE FROM answer_cache;

-- +goose Down
ALTER TABLE chunks DROP CONSTRAINT chunks_groups_valid;
ALTER TABLE documents DROP CONSTRAINT documents_groups_valid;
DROP FUNCTION cita_valid_groups(text[]);
