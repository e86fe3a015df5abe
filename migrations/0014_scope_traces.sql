-- +goose Up
-- Issue 12, findings 7 to 10 and identity groups (numbered after 0013: it relies on its bulk_load
-- table and its withheld documents):
--   1. access group names are checked by the database too;
--   2. full-text statistics are kept per access class, so a search computes BM25 statistics and
--      term expansions only from what its scope may read;
--   3. "How I answered" names only cited passages;
--   4. answer records are pruned by age, and redacted when their documents are deleted or no
--      longer reach the answer's audience;
--   5. Google Groups memberships read from the Directory API, for identity groups.

-- 1. Group names: 1 to 256 characters of a-z, 0-9 and . _ - + ' @ : (rag.ValidateGroup). An
-- empty list is a withheld document's (0013's documents_groups_check and chunks_groups_check
-- decide when a list may be empty).
-- +goose StatementBegin
CREATE FUNCTION cita_valid_groups(groups text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT NOT EXISTS (
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

-- 2. Term statistics per access class: a class is one distinct list of groups (every chunk of a
-- document shared with {alice@example.com, domain:example.com} is in the same class). A chunk
-- counts in its class only, so writes cost what the global statistics cost whatever the number
-- of groups; a search sums the classes its scope may read (classes whose groups overlap it),
-- so documents outside the scope change nothing it computes or shows, and every chunk it may
-- read counts exactly once. Maintained like lexeme_stats: statement triggers append signed
-- deltas, readers add pending deltas, cita_compact_class_stats() folds them in. A withheld chunk
-- (no group: readable by nobody) counts in no class, so it changes nothing any scope computes.
-- While a bulk load's statistics are pending (0013's bulk_load.stats_pending) the triggers skip
-- their deltas, and the load's end (or its recovery) runs cita_rebuild_class_stats() in the
-- transaction that clears the flag, as it runs cita_rebuild_stats().
CREATE TABLE access_classes (
    id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    groups text[] NOT NULL UNIQUE CHECK (cardinality(groups) > 0)
);
CREATE INDEX access_classes_groups_idx ON access_classes USING gin (groups);

CREATE TABLE class_lexeme_stats (
    lexeme   text NOT NULL,
    class_id bigint NOT NULL,
    df       integer NOT NULL,
    PRIMARY KEY (lexeme, class_id)
);
CREATE TABLE class_lexeme_delta (
    lexeme   text NOT NULL,
    class_id bigint NOT NULL,
    df       integer NOT NULL
);
CREATE INDEX class_lexeme_delta_lexeme_idx ON class_lexeme_delta (lexeme, class_id);

-- Chunk count and summed vector lengths per class and kind ('t' stemmed, 's' simple).
CREATE TABLE class_corpus_stats (
    class_id  bigint NOT NULL,
    kind      "char" NOT NULL,
    chunks    bigint NOT NULL,
    total_len bigint NOT NULL,
    PRIMARY KEY (class_id, kind)
);
CREATE TABLE class_corpus_delta (
    class_id  bigint NOT NULL,
    kind      "char" NOT NULL,
    chunks    bigint NOT NULL,
    total_len bigint NOT NULL
);
CREATE INDEX class_corpus_delta_class_idx ON class_corpus_delta (class_id);

-- +goose StatementBegin
CREATE FUNCTION chunks_class_stats_insert() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM bulk_load WHERE stats_pending) THEN
        RETURN NULL; -- cita_rebuild_class_stats() runs at the end of the load
    END IF;
    INSERT INTO access_classes (groups)
    SELECT DISTINCT groups FROM new_rows WHERE cardinality(groups) > 0 ORDER BY groups ON CONFLICT (groups) DO NOTHING;
    INSERT INTO class_lexeme_delta (lexeme, class_id, df)
    SELECT l, c.id, count(*) FROM new_rows n JOIN access_classes c ON c.groups = n.groups, unnest(tsvector_to_array(n.tsv)) l
    GROUP BY l, c.id;
    INSERT INTO class_corpus_delta (class_id, kind, chunks, total_len)
    SELECT c.id, 't', count(*), coalesce(sum(length(n.tsv)), 0) FROM new_rows n JOIN access_classes c ON c.groups = n.groups GROUP BY c.id
    UNION ALL
    SELECT c.id, 's', count(*), coalesce(sum(length(n.tsv_simple)), 0) FROM new_rows n JOIN access_classes c ON c.groups = n.groups GROUP BY c.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION chunks_class_stats_delete() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM bulk_load WHERE stats_pending) THEN
        RETURN NULL;
    END IF;
    INSERT INTO class_lexeme_delta (lexeme, class_id, df)
    SELECT l, c.id, -count(*) FROM old_rows o JOIN access_classes c ON c.groups = o.groups, unnest(tsvector_to_array(o.tsv)) l
    GROUP BY l, c.id;
    INSERT INTO class_corpus_delta (class_id, kind, chunks, total_len)
    SELECT c.id, 't', -count(*), -coalesce(sum(length(o.tsv)), 0) FROM old_rows o JOIN access_classes c ON c.groups = o.groups GROUP BY c.id
    UNION ALL
    SELECT c.id, 's', -count(*), -coalesce(sum(length(o.tsv_simple)), 0) FROM old_rows o JOIN access_classes c ON c.groups = o.groups GROUP BY c.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- An access change (Store.SetGroups, Store.WithholdDocument) moves a chunk's counts from its old
-- class to its new one (to none when withheld: its empty list has no class).
-- +goose StatementBegin
CREATE FUNCTION chunks_class_stats_update() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM bulk_load WHERE stats_pending) THEN
        RETURN NULL;
    END IF;
    INSERT INTO access_classes (groups)
    SELECT DISTINCT groups FROM new_rows WHERE cardinality(groups) > 0 ORDER BY groups ON CONFLICT (groups) DO NOTHING;
    -- Rows whose groups or text changed: their old contribution out, their new one in.
    WITH moves AS (
        SELECT o.groups, o.tsv, o.tsv_simple, -1 AS sign FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE o.groups IS DISTINCT FROM n.groups OR o.tsv IS DISTINCT FROM n.tsv OR o.tsv_simple IS DISTINCT FROM n.tsv_simple
        UNION ALL
        SELECT n.groups, n.tsv, n.tsv_simple, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE o.groups IS DISTINCT FROM n.groups OR o.tsv IS DISTINCT FROM n.tsv OR o.tsv_simple IS DISTINCT FROM n.tsv_simple
    )
    INSERT INTO class_lexeme_delta (lexeme, class_id, df)
    SELECT l, c.id, sum(m.sign) FROM moves m JOIN access_classes c ON c.groups = m.groups, unnest(tsvector_to_array(m.tsv)) l
    GROUP BY l, c.id HAVING sum(m.sign) <> 0;
    WITH moves AS (
        SELECT o.groups, o.tsv, o.tsv_simple, -1 AS sign FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE o.groups IS DISTINCT FROM n.groups OR o.tsv IS DISTINCT FROM n.tsv OR o.tsv_simple IS DISTINCT FROM n.tsv_simple
        UNION ALL
        SELECT n.groups, n.tsv, n.tsv_simple, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE o.groups IS DISTINCT FROM n.groups OR o.tsv IS DISTINCT FROM n.tsv OR o.tsv_simple IS DISTINCT FROM n.tsv_simple
    )
    INSERT INTO class_corpus_delta (class_id, kind, chunks, total_len)
    SELECT c.id, 't', sum(m.sign), sum(m.sign * length(m.tsv)) FROM moves m JOIN access_classes c ON c.groups = m.groups
    GROUP BY c.id HAVING sum(m.sign) <> 0 OR sum(m.sign * length(m.tsv)) <> 0
    UNION ALL
    SELECT c.id, 's', sum(m.sign), sum(m.sign * length(m.tsv_simple)) FROM moves m JOIN access_classes c ON c.groups = m.groups
    GROUP BY c.id HAVING sum(m.sign) <> 0 OR sum(m.sign * length(m.tsv_simple)) <> 0;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER chunks_class_stats_insert AFTER INSERT ON chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_class_stats_insert();
CREATE TRIGGER chunks_class_stats_delete AFTER DELETE ON chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_class_stats_delete();
CREATE TRIGGER chunks_class_stats_update AFTER UPDATE ON chunks
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_class_stats_update();

-- Folds pending per-class deltas in; one caller at a time (others return at once). Classes are
-- never deleted: a writer may be about to count in one, and an empty class costs nothing.
-- +goose StatementBegin
CREATE FUNCTION cita_compact_class_stats() RETURNS bigint
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
DECLARE
    folded bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext(current_schema() || '.cita_compact_class_stats')) THEN
        RETURN 0;
    END IF;
    WITH d AS (DELETE FROM class_lexeme_delta RETURNING lexeme, class_id, df),
    agg AS (SELECT lexeme, class_id, sum(df)::int AS df FROM d GROUP BY lexeme, class_id),
    up AS (
        INSERT INTO class_lexeme_stats AS s (lexeme, class_id, df)
        SELECT lexeme, class_id, df FROM agg ORDER BY lexeme, class_id
        ON CONFLICT (lexeme, class_id) DO UPDATE SET df = s.df + EXCLUDED.df
        RETURNING 1
    )
    SELECT count(*) INTO folded FROM up;
    DELETE FROM class_lexeme_stats WHERE df <= 0;
    WITH d AS (DELETE FROM class_corpus_delta RETURNING class_id, kind, chunks, total_len),
    agg AS (SELECT class_id, kind, sum(chunks) AS chunks, sum(total_len) AS total_len FROM d GROUP BY class_id, kind)
    INSERT INTO class_corpus_stats AS s (class_id, kind, chunks, total_len)
    SELECT class_id, kind, chunks, total_len FROM agg ORDER BY class_id, kind
    ON CONFLICT (class_id, kind) DO UPDATE SET chunks = s.chunks + EXCLUDED.chunks, total_len = s.total_len + EXCLUDED.total_len;
    DELETE FROM class_corpus_stats WHERE chunks <= 0;
    RETURN folded;
END
$$;
-- +goose StatementEnd

-- Recomputes the per-class statistics from the chunks (after a bulk load, and when recovering an
-- interrupted one). Writers wait (SHARE lock) while it runs, and so does compaction (its advisory
-- lock), which could otherwise fold deltas in between.
-- +goose StatementBegin
CREATE FUNCTION cita_rebuild_class_stats() RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT
AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.cita_compact_class_stats'));
    LOCK TABLE chunks IN SHARE MODE;
    DELETE FROM class_lexeme_delta;
    DELETE FROM class_corpus_delta;
    DELETE FROM class_lexeme_stats;
    DELETE FROM class_corpus_stats;
    INSERT INTO access_classes (groups)
    SELECT DISTINCT groups FROM chunks WHERE cardinality(groups) > 0 ORDER BY groups ON CONFLICT (groups) DO NOTHING;
    INSERT INTO class_lexeme_stats (lexeme, class_id, df)
    SELECT l, c.id, count(*) FROM chunks ch JOIN access_classes c ON c.groups = ch.groups, unnest(tsvector_to_array(ch.tsv)) l
    GROUP BY l, c.id;
    INSERT INTO class_corpus_stats (class_id, kind, chunks, total_len)
    SELECT c.id, 't', count(*), coalesce(sum(length(ch.tsv)), 0) FROM chunks ch JOIN access_classes c ON c.groups = ch.groups GROUP BY c.id
    UNION ALL
    SELECT c.id, 's', count(*), coalesce(sum(length(ch.tsv_simple)), 0) FROM chunks ch JOIN access_classes c ON c.groups = ch.groups GROUP BY c.id;
END
$$;
-- +goose StatementEnd

SELECT cita_rebuild_class_stats();

-- 3. A stored answer's top hits name only the passages it cited (bot.HitRef.Cited); the others
-- keep their ranks and score. Older records lose the names of their uncited hits (not restored
-- by Down).
UPDATE bot_answers a SET top_hits = (
    SELECT coalesce(jsonb_agg(
        CASE WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(a.sources) s WHERE s->'chunk_id' = h->'chunk_id')
        THEN h || '{"cited": true}'::jsonb
        ELSE jsonb_strip_nulls(jsonb_build_object('score', h->'score', 'fts_rank', h->'fts_rank', 'vector_rank', h->'vector_rank'))
        END ORDER BY t.ord), '[]'::jsonb)
    FROM jsonb_array_elements(a.top_hits) WITH ORDINALITY AS t(h, ord))
WHERE jsonb_array_length(a.top_hits) > 0;

-- 4. Retention (pgbot.Store.Prune) and one redaction for every reason. 0009's redacted_at marks
-- a redacted answer, withdrawn from its conversation (its readers now include someone who may
-- not read its documents) or redacted by retention (a document it used was deleted, or no longer
-- reaches its scope); redaction_reason says which. Either way the answer keeps its metadata and
-- ratings, loses every copy of document text (answer, rewritten query, cited titles, trace,
-- agent steps) and its turns, and feeds no memory, "How I answered" or feedback. Only a
-- withdrawal edits the chat message into a notice (redaction_shown).
ALTER TABLE bot_answers
    ADD COLUMN redaction_reason text NOT NULL DEFAULT ''
        CHECK (redaction_reason IN ('', 'audience_widened', 'document_deleted', 'access_narrowed'));
-- Answers withdrawn before this migration kept their text: they lose it now, like later ones.
UPDATE bot_answers SET redaction_reason = 'audience_widened', answer_text = '', standalone_query = '',
    sources = '[]', top_hits = '[]', dropped_chunk_ids = '{}', agent_steps = '[]'
WHERE redacted_at IS NOT NULL;
DELETE FROM bot_turns t USING bot_answers a WHERE a.id = t.answer_id AND a.redacted_at IS NOT NULL;
ALTER TABLE bot_answers ADD CONSTRAINT bot_answers_redaction_check
    CHECK ((redacted_at IS NULL) = (redaction_reason = ''));
-- Notices still to show: withdrawals only (retention's redactions show none).
DROP INDEX bot_answers_redaction_pending_idx;
CREATE INDEX bot_answers_redaction_pending_idx ON bot_answers (platform, workspace, channel)
    WHERE redaction_reason = 'audience_widened' AND NOT redaction_shown;
CREATE INDEX bot_answers_created_at_idx ON bot_answers (created_at);
-- Whether the bot answered in a thread (bot.Store.HasTurns, for every message in a thread): read
-- from the answers, since a redacted answer has no turns left.
CREATE INDEX bot_answers_conversation_idx ON bot_answers (platform, workspace, channel, thread) WHERE visible_to = '';
CREATE INDEX bot_turns_answer_idx ON bot_turns (answer_id);
CREATE INDEX bot_answer_documents_document_idx ON bot_answer_documents (document_id);

-- 5. Direct memberships of the directory's groups, replaced whole by each complete read
-- (sync/directory). Names are lower-cased e-mail addresses; a member is a user or a group.
CREATE TABLE directory_members (
    group_email     text NOT NULL,
    member_email    text NOT NULL,
    member_is_group boolean NOT NULL,
    PRIMARY KEY (member_email, group_email)
);
-- One row: when the memberships were last read completely, and who is reading them now.
CREATE TABLE directory_state (
    id            integer PRIMARY KEY CHECK (id = 1),
    refreshed_at  timestamptz,
    attempted_at  timestamptz,
    claimed_until timestamptz,
    groups        integer NOT NULL DEFAULT 0,
    members       integer NOT NULL DEFAULT 0,
    last_error    text NOT NULL DEFAULT ''
);
INSERT INTO directory_state (id) VALUES (1);

-- +goose Down
DROP TABLE directory_state;
DROP TABLE directory_members;
DROP INDEX bot_answer_documents_document_idx;
DROP INDEX bot_turns_answer_idx;
DROP INDEX bot_answers_conversation_idx;
DROP INDEX bot_answers_created_at_idx;
-- 0009's redacted_at stays, and so does what it marks: answers redacted by retention stay
-- redacted (and still show no notice: redaction_shown is set for them, since 0009 has no reason).
UPDATE bot_answers SET redaction_shown = true WHERE redaction_reason IN ('document_deleted', 'access_narrowed');
DROP INDEX bot_answers_redaction_pending_idx;
ALTER TABLE bot_answers DROP CONSTRAINT bot_answers_redaction_check, DROP COLUMN redaction_reason;
CREATE INDEX bot_answers_redaction_pending_idx ON bot_answers (platform, workspace, channel)
    WHERE redacted_at IS NOT NULL AND NOT redaction_shown;
DROP TRIGGER chunks_class_stats_update ON chunks;
DROP TRIGGER chunks_class_stats_delete ON chunks;
DROP TRIGGER chunks_class_stats_insert ON chunks;
DROP FUNCTION chunks_class_stats_update();
DROP FUNCTION chunks_class_stats_delete();
DROP FUNCTION chunks_class_stats_insert();
DROP FUNCTION cita_compact_class_stats();
DROP FUNCTION cita_rebuild_class_stats();
DROP TABLE class_corpus_delta;
DROP TABLE class_corpus_stats;
DROP TABLE class_lexeme_delta;
DROP TABLE class_lexeme_stats;
DROP TABLE access_classes;
ALTER TABLE chunks DROP CONSTRAINT chunks_groups_valid;
ALTER TABLE documents DROP CONSTRAINT documents_groups_valid;
DROP FUNCTION cita_valid_groups(text[]);
