-- +goose Up
-- Issue 22, item 8: suggested prompts come only from questions asked where the whole workspace
-- could read them. public is true when the answer was shown in a public channel (Slack: not
-- private, not a DM or group DM); false for DMs, private channels, assistant threads and
-- ephemeral replies, and for every answer recorded before this migration (nobody can tell now).
ALTER TABLE bot_answers ADD COLUMN public boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE bot_answers DROP COLUMN public;
