-- +goose Up
-- Who reads what, shared by every replica. Platform events (a member joined, a user group
-- changed) reach one replica only, and sometimes none: the replica that hears of a change bumps
-- the subject's version here, and every replica checks the versions with one indexed query per
-- question before reusing what it cached (identities, user groups). Channels also keep a
-- fingerprint of their readers' access groups, so that a change seen by any replica, event or
-- not, withdraws the answers the new readers may not read.
CREATE TABLE bot_audience_versions (
    platform   text NOT NULL,
    workspace  text NOT NULL,
    -- 'users', 'roles' or 'channel:<id>' (bot.SubjectUsers, bot.SubjectRoles, bot.ChannelSubject).
    subject    text NOT NULL,
    version    bigint NOT NULL DEFAULT 1 CHECK (version > 0),
    -- Channels: sha256 over the distinct access scopes of everyone who can read the channel.
    readers    bytea CHECK (readers IS NULL OR octet_length(readers) = 32),
    changed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform, workspace, subject)
);

-- What is needed to withdraw an answer in place: its message, its language, and whether it was
-- withdrawn (an answer withdrawn no longer feeds memory, "how I answered" or feedback) and the
-- notice shown (an edit that failed is retried at the next check of the channel).
ALTER TABLE bot_answers
    ADD COLUMN reply_ref text NOT NULL DEFAULT '',
    ADD COLUMN lang text NOT NULL DEFAULT '',
    ADD COLUMN redacted_at timestamptz,
    ADD COLUMN redaction_shown boolean NOT NULL DEFAULT false;
CREATE INDEX bot_answers_shown_in_channel_idx ON bot_answers (platform, workspace, channel)
    WHERE visible_to = '' AND redacted_at IS NULL;
CREATE INDEX bot_answers_redaction_pending_idx ON bot_answers (platform, workspace, channel)
    WHERE redacted_at IS NOT NULL AND NOT redaction_shown;

-- +goose Down
DROP INDEX bot_answers_redaction_pending_idx;
DROP INDEX bot_answers_shown_in_channel_idx;
ALTER TABLE bot_answers
    DROP COLUMN redaction_shown,
    DROP COLUMN redacted_at,
    DROP COLUMN lang,
    DROP COLUMN reply_ref;
DROP TABLE bot_audience_versions;
