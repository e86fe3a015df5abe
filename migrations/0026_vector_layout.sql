-- +goose Up
-- Issue 33, the vector arm at scale. Under a selective access filter one HNSW graph over every
-- chunk is either slow (an exact scan of the scope's rows) or wrong (an iterative index scan
-- that stops short, or finds a third of the true neighbours). Every chunk of an access class
-- (0014) has the same groups, so a scope reads a class whole or not at all: a class with a
-- graph of its own (a partial HNSW index on its chunks) is searched with no filter dropping
-- anything. The vector arm plans from the classes a scope reads (rag/pgstore/vector_plan.go).

-- 1. Each chunk names its access class; a withheld chunk (no group) has none. A row trigger
-- keeps it, on every write of groups, so no writer can forget it. It is not an access
-- decision: every search keeps the groups filter in its WHERE, and a chunk whose class were
-- wrong would only go unfound.
ALTER TABLE chunks ADD COLUMN class_id bigint;
INSERT INTO access_classes (groups)
SELECT DISTINCT groups FROM chunks WHERE cardinality(groups) > 0 ORDER BY groups ON CONFLICT (groups) DO NOTHING;
UPDATE chunks c SET class_id = a.id FROM access_classes a WHERE a.groups = c.groups;
CREATE INDEX chunks_class_id_idx ON chunks (class_id);

-- +goose StatementBegin
CREATE FUNCTION chunks_set_class() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    IF cardinality(NEW.groups) = 0 THEN
        NEW.class_id := NULL;
        RETURN NEW;
    END IF;
    SELECT id INTO NEW.class_id FROM access_classes WHERE groups = NEW.groups;
    IF NEW.class_id IS NULL THEN
        -- A new class. Another writer may be adding it at this moment: then the insert waits
        -- for it and does nothing, and the second lookup finds its row.
        INSERT INTO access_classes (groups) VALUES (NEW.groups) ON CONFLICT (groups) DO NOTHING RETURNING id INTO NEW.class_id;
        IF NEW.class_id IS NULL THEN
            SELECT id INTO NEW.class_id FROM access_classes WHERE groups = NEW.groups;
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER chunks_set_class BEFORE INSERT OR UPDATE OF groups, class_id ON chunks
    FOR EACH ROW EXECUTE FUNCTION chunks_set_class();

-- 2. The graphs of their own: one partial HNSW index per large access class and embedding
-- model (WHERE embed_model = '<model>' AND class_id = <id>), built and dropped by the store as
-- classes grow and shrink (Store.EnsureClassGraphs). A row here means the index is built and
-- valid; it is written after the build and deleted before the drop.
CREATE TABLE class_vector_graphs (
    class_id   bigint NOT NULL REFERENCES access_classes (id),
    model      text NOT NULL,
    dimension  integer NOT NULL,
    index_name text NOT NULL UNIQUE,
    built_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (class_id, model, dimension)
);

-- +goose Down
-- The graphs' indexes are the store's; dropping the column drops them with it.
DROP TABLE class_vector_graphs;
DROP TRIGGER chunks_set_class ON chunks;
DROP FUNCTION chunks_set_class();
ALTER TABLE chunks DROP COLUMN class_id;
