-- +goose Up
-- One row per sync pass of a source. A row with finished_at NULL is a pass in progress, or one
-- whose process died: the next pass of that source finishes the job.
CREATE TABLE sync_runs (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source      text NOT NULL,
    mode        text NOT NULL CHECK (mode IN ('full', 'incremental')),
    dry_run     boolean NOT NULL DEFAULT false,
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    complete    boolean NOT NULL DEFAULT false, -- the listing finished: deletions were applied
    listed      integer NOT NULL DEFAULT 0,
    added       integer NOT NULL DEFAULT 0,
    changed     integer NOT NULL DEFAULT 0,
    unchanged   integer NOT NULL DEFAULT 0,
    deleted     integer NOT NULL DEFAULT 0,
    acl_only    integer NOT NULL DEFAULT 0,
    failed      integer NOT NULL DEFAULT 0,
    error       text NOT NULL DEFAULT ''
);
CREATE INDEX sync_runs_source_started_idx ON sync_runs (source, started_at DESC);

-- Per-document failures of a pass, with the reason; the document's previous version stays indexed.
CREATE TABLE sync_failures (
    run_id      bigint NOT NULL REFERENCES sync_runs (id) ON DELETE CASCADE,
    external_id text NOT NULL,
    reason      text NOT NULL,
    PRIMARY KEY (run_id, external_id)
);

-- Per-source cursor: the Google Drive changes page token and when the last full listing ran.
CREATE TABLE sync_state (
    source       text PRIMARY KEY,
    page_token   text NOT NULL DEFAULT '',
    last_full_at timestamptz
);

-- +goose Down
DROP TABLE sync_state;
DROP TABLE sync_failures;
DROP TABLE sync_runs;
