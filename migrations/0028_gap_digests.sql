-- +goose Up
-- Issue 32: the gap digest is posted once per scheduled run and channel, whichever replica's
-- scheduler fires first (the claim is this row).
CREATE TABLE gap_digests (
    platform   text NOT NULL,
    channel    text NOT NULL,
    slot       timestamptz NOT NULL, -- the scheduled time the digest is for
    posted_at  timestamptz,
    error      text NOT NULL DEFAULT '',
    PRIMARY KEY (platform, channel, slot)
);

-- +goose Down
DROP TABLE gap_digests;
