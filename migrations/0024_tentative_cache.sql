-- +goose Up
-- A cached "I couldn't find this" or hedged reply ("the closest I found") must stop being
-- served as soon as a document its asker may read is added, changed or becomes readable again:
-- those are the questions whose documents people are adding. documents.changed_at records when
-- a document last changed in a way a search could see (a new version, other groups), at
-- statement time inside the indexing transaction; a tentative entry records the scope's groups
-- and when its search started, and a lookup skips it once a readable document changed since.
ALTER TABLE documents ADD COLUMN changed_at timestamptz NOT NULL DEFAULT clock_timestamp();
CREATE INDEX documents_changed_at_idx ON documents (changed_at);

-- +goose StatementBegin
CREATE FUNCTION cita_document_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.version IS DISTINCT FROM OLD.version OR NEW.groups IS DISTINCT FROM OLD.groups THEN
        NEW.changed_at := clock_timestamp();
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER documents_changed BEFORE INSERT OR UPDATE ON documents
    FOR EACH ROW EXECUTE FUNCTION cita_document_changed();

-- tentative: an abstention or a hedged reply (short TTL, and stale once a readable document
-- changes); groups: the asker's scope; searched_at: when the answer's search started.
ALTER TABLE answer_cache ADD COLUMN tentative boolean NOT NULL DEFAULT false;
ALTER TABLE answer_cache ADD COLUMN groups text[] NOT NULL DEFAULT '{}';
ALTER TABLE answer_cache ADD COLUMN searched_at timestamptz;
UPDATE answer_cache SET tentative = abstained;
-- Entries written before this migration know neither their scope's groups nor their search
-- time: the tentative ones go.
DELETE FROM answer_cache WHERE tentative;

-- +goose Down
ALTER TABLE answer_cache DROP COLUMN searched_at;
ALTER TABLE answer_cache DROP COLUMN groups;
ALTER TABLE answer_cache DROP COLUMN tentative;
DROP TRIGGER documents_changed ON documents;
DROP FUNCTION cita_document_changed();
DROP INDEX documents_changed_at_idx;
ALTER TABLE documents DROP COLUMN changed_at;
