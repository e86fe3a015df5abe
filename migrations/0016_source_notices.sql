-- +goose Up
-- Issue 13: a notice in every thread whose answer cited a document that a sync pass changed or
-- deleted. The pass records what it changed (source_changes, written with its run's history);
-- the notifier (bot.Notifier, run after each pass and every minute by `cita serve`) claims the
-- changes, finds the threads whose shown answers cited an older version, and claims one notice
-- per thread and pass in bot_source_notices before posting it, so no replica posts it twice.

CREATE TABLE source_changes (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id      bigint NOT NULL,
    document_id bigint NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('updated', 'deleted')),
    -- The version the pass wrote ('updated'); NULL for a deletion.
    doc_version bigint CHECK ((kind = 'updated') = (doc_version IS NOT NULL)),
    -- The source's modification time ('updated'), or when the document was deleted.
    changed_at  timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    -- When a notifier took the change; NULL while it waits.
    claimed_at  timestamptz
);
CREATE INDEX source_changes_pending_idx ON source_changes (id) WHERE claimed_at IS NULL;
CREATE INDEX source_changes_recorded_at_idx ON source_changes (recorded_at);

-- One notice per thread and sync pass, claimed before it is posted. document_ids are the
-- documents it reported: a later change of the same document is reported again only in threads
-- where an answer cited it after this notice.
CREATE TABLE bot_source_notices (
    run_id       bigint NOT NULL,
    platform     text NOT NULL,
    workspace    text NOT NULL,
    channel      text NOT NULL,
    thread       text NOT NULL,
    document_ids bigint[] NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    posted_at    timestamptz,
    error        text NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, platform, workspace, channel, thread)
);
CREATE INDEX bot_source_notices_conversation_idx ON bot_source_notices (platform, workspace, channel, thread);
CREATE INDEX bot_source_notices_created_at_idx ON bot_source_notices (created_at);

-- Issue 13, feedback becomes evaluation: what a 👎 says was wrong (Discord asks in a form),
-- exported with the answer by `cita feedback export`.
ALTER TABLE bot_feedback ADD COLUMN comment text NOT NULL DEFAULT '' CHECK (length(comment) <= 4000);
CREATE INDEX bot_feedback_down_idx ON bot_feedback (updated_at) WHERE rating = -1;

-- +goose Down
DROP INDEX bot_feedback_down_idx;
ALTER TABLE bot_feedback DROP COLUMN comment;
DROP TABLE bot_source_notices;
DROP TABLE source_changes;
