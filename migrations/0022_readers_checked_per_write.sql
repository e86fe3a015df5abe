-- +goose Up
-- Issue 29: while a channel's audience is in doubt, nothing private is written.
-- 1. A channel keeps the access scopes of its readers as recorded last (reader_scopes, a JSON
-- array of group arrays), not only their fingerprint: every write of an answer's text checks
-- the answer's documents against them in the database, so that a reader recorded by any replica
-- (a join event, a lookup) stops every later write of what they may not read, before the
-- channel's answers are withdrawn and whatever the member list says.
-- 2. doubt_since marks a channel whose readers changed in a way not resolved yet (a Discord role
-- or permission change being read): writes of its answers wait until a lookup made after it
-- records the readers, or until the answer is withdrawn.
-- 3. Slack's member list trails its member_joined_channel events: a joiner counts as a reader
-- from the event until the list shows them, they leave, or joinerTTL passes (bot_channel_joiners).
ALTER TABLE bot_audience_versions
    ADD COLUMN reader_scopes jsonb CHECK (reader_scopes IS NULL OR jsonb_typeof(reader_scopes) = 'array'),
    ADD COLUMN doubt_since timestamptz;
CREATE TABLE bot_channel_joiners (
    platform  text NOT NULL,
    workspace text NOT NULL,
    channel   text NOT NULL,
    user_id   text NOT NULL CHECK (user_id <> ''),
    joined_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform, workspace, channel, user_id)
);

-- +goose Down
DROP TABLE bot_channel_joiners;
ALTER TABLE bot_audience_versions DROP COLUMN doubt_since, DROP COLUMN reader_scopes;
