-- +goose Up
-- Issue 29: "visible to one person" and "not part of the conversation" are two things. A
-- direct-message answer is read by its asker alone (visible_to, which "How I answered" and
-- feedback check), yet it is part of the DM's memory, gets source-change notices and is
-- checked by the sweep; an ephemeral reply (/cita, Discord private:True) is neither.
-- visible_to was set for ephemeral replies only, so anyone who could send a click with a DM
-- answer's id was shown its trace. Answers recorded before: Slack DMs (channels D…) and
-- Discord DMs (no guild) get their asker as visible_to.
ALTER TABLE bot_answers ADD COLUMN ephemeral boolean NOT NULL DEFAULT false;
UPDATE bot_answers SET ephemeral = true WHERE visible_to <> '';
UPDATE bot_answers SET visible_to = asker
    WHERE visible_to = '' AND ((platform = 'slack' AND channel LIKE 'D%') OR (platform = 'discord' AND workspace = ''));
DROP INDEX bot_answers_shown_in_channel_idx;
CREATE INDEX bot_answers_shown_in_channel_idx ON bot_answers (platform, workspace, channel)
    WHERE NOT ephemeral AND redacted_at IS NULL;
DROP INDEX bot_answers_conversation_idx;
CREATE INDEX bot_answers_conversation_idx ON bot_answers (platform, workspace, channel, thread) WHERE NOT ephemeral;

-- +goose Down
DROP INDEX bot_answers_conversation_idx;
CREATE INDEX bot_answers_conversation_idx ON bot_answers (platform, workspace, channel, thread) WHERE visible_to = '';
DROP INDEX bot_answers_shown_in_channel_idx;
CREATE INDEX bot_answers_shown_in_channel_idx ON bot_answers (platform, workspace, channel)
    WHERE visible_to = '' AND redacted_at IS NULL;
UPDATE bot_answers SET visible_to = '' WHERE NOT ephemeral;
ALTER TABLE bot_answers DROP COLUMN ephemeral;
