-- +goose Up
-- Issue 22, item 4: the reconciliation sweep. One row per sweep (a platform's channels that
-- show answers): which replica holds it and until when, and when it last started and last
-- completed. Replicas share the database; a replica sweeps only after claiming the row, so one
-- sweeps at a time, and the lag (now - completed_at) is the same whichever replica reports it.
CREATE TABLE bot_sweeps (
    name         text PRIMARY KEY,
    -- '' when nobody holds it; else the holding replica's id (host and a random suffix).
    holder       text NOT NULL DEFAULT '',
    held_until   timestamptz NOT NULL DEFAULT '-infinity',
    started_at   timestamptz,
    completed_at timestamptz
);

-- +goose Down
DROP TABLE bot_sweeps;
