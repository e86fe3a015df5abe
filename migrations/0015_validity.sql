-- +goose Up
-- Validity: a document may say when it applies (valid_from, valid_until) and that another
-- replaced it (superseded_by, with the day it was superseded). Expired or superseded documents
-- stay indexed, so a question about a past period ("what was the 2023 travel policy?") can still
-- cite them, but no search arm returns them as current.
ALTER TABLE documents
    ADD COLUMN valid_from    timestamptz,
    ADD COLUMN valid_until   timestamptz,
    ADD COLUMN superseded_by text NOT NULL DEFAULT '',
    -- The day the document stopped being current because of superseded_by (or a rule such as
    -- "archive/**"): given by the source, else the first pass that saw the mark.
    ADD COLUMN superseded_on timestamptz,
    ADD CONSTRAINT documents_valid_order CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_from < valid_until);

-- A chunk repeats its document's validity window, [valid_from, min(valid_until, superseded_on)),
-- so both search arms filter in the chunks table, with cita_citable in their own WHERE, as they
-- do with the access groups.
ALTER TABLE chunks ADD COLUMN valid tstzrange NOT NULL DEFAULT '(,)';

-- The window a document is current in: [valid_from, the earlier of valid_until and
-- superseded_on); empty when it ends before it starts (superseded before it applied).
-- +goose StatementBegin
CREATE FUNCTION cita_validity_window(valid_from timestamptz, valid_until timestamptz, superseded_on timestamptz) RETURNS tstzrange
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN valid_from IS NOT NULL AND least(valid_until, superseded_on) <= valid_from THEN 'empty'::tstzrange
                ELSE tstzrange(valid_from, least(valid_until, superseded_on), '[)') END
$$;
-- +goose StatementEnd

-- cita_citable says whether a chunk valid over "valid" may be cited: as current (asked_from
-- NULL) when the window holds now(), or for a period the question names ([asked_from,
-- asked_until)) when the window overlaps it. Every search path calls it; inlined by the planner.
-- +goose StatementBegin
CREATE FUNCTION cita_citable(valid tstzrange, asked_from timestamptz, asked_until timestamptz) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN asked_from IS NULL THEN valid @> now()
                ELSE valid && tstzrange(asked_from, asked_until, '[)') END
$$;
-- +goose StatementEnd

-- The next moment an indexed document enters or leaves its window: a cached answer written
-- before it may have cited (or missed) a document whose validity changed with time alone, so the
-- cache serves nothing written before such a boundary once it has passed.
ALTER TABLE answer_cache ADD COLUMN expires_at timestamptz;

-- Freshness, per source: changes a watcher (fsnotify, a Drive push notification) has seen and
-- no pass has applied yet, and since when the oldest of them waits.
ALTER TABLE sync_state
    ADD COLUMN pending_changes integer NOT NULL DEFAULT 0,
    ADD COLUMN pending_since   timestamptz;
-- Per pass: the longest lag between a change at the source and the pass that applied it (its
-- commit), in milliseconds; NULL when the pass applied no change with a known time.
ALTER TABLE sync_runs ADD COLUMN change_lag_ms bigint;

-- Google Drive push-notification channels (changes.watch): the token every notification must
-- carry, and when the channel expires so it is renewed before.
CREATE TABLE drive_channels (
    source      text NOT NULL,
    channel_id  text PRIMARY KEY,
    resource_id text NOT NULL DEFAULT '',
    token_hash  bytea NOT NULL,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX drive_channels_source_idx ON drive_channels (source, expires_at DESC);

-- +goose Down
DROP TABLE drive_channels;
ALTER TABLE sync_runs DROP COLUMN change_lag_ms;
ALTER TABLE sync_state DROP COLUMN pending_since, DROP COLUMN pending_changes;
ALTER TABLE answer_cache DROP COLUMN expires_at;
DROP FUNCTION cita_citable(tstzrange, timestamptz, timestamptz);
DROP FUNCTION cita_validity_window(timestamptz, timestamptz, timestamptz);
ALTER TABLE chunks DROP COLUMN valid;
ALTER TABLE documents DROP CONSTRAINT documents_valid_order,
    DROP COLUMN superseded_on, DROP COLUMN superseded_by, DROP COLUMN valid_until, DROP COLUMN valid_from;
