-- +goose Up
-- Issue 22: no answer outlives its audience.
-- 1. Every write of an answer's text re-checks that the answer was not withdrawn, and records
-- that it wrote: text_writes counts the writes, so that a notice shown before a later write of
-- the answer is not taken as covering it (bot.Audiences.AnswerWritten, RedactionShown).
-- 2. A channel's readers are settled (settled_readers) only once the answers they may not read
-- were withdrawn: a withdrawal that failed, or a process that died after recording new readers,
-- leaves the next check seeing readers that are not settled, and withdrawing again.
ALTER TABLE bot_answers ADD COLUMN text_writes bigint NOT NULL DEFAULT 0;
ALTER TABLE bot_audience_versions ADD COLUMN settled_readers bytea
    CHECK (settled_readers IS NULL OR octet_length(settled_readers) = 32);
UPDATE bot_audience_versions SET settled_readers = readers;

-- +goose Down
ALTER TABLE bot_audience_versions DROP COLUMN settled_readers;
ALTER TABLE bot_answers DROP COLUMN text_writes;
