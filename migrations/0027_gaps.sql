-- +goose Up
-- Issue 32: the gap record. A question is a gap when cita declined it, hedged it, or someone
-- pressed 👎 on its answer. Only a question asked where everyone in its audience could already
-- see it (a public channel, shown to everyone, not ephemeral) or one its asker chose to share
-- ("Tell the document owners") is grouped into a topic; every other question contributes
-- neither text nor a count, anywhere (bot/pgbot/gaps.go, gapEligibleSQL).
CREATE TABLE gap_topics (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The sum of its members' signatures (concept -> weight; rag.TopicState.Sum) and how many
    -- they are: the centroid a new question is compared with.
    signature  jsonb NOT NULL DEFAULT '{}',
    members    integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- How many grouped questions held each concept (the rarity weighting of rag.Topics); the row
-- with concept '' counts the questions grouped.
CREATE TABLE gap_concepts (
    concept text PRIMARY KEY,
    df      integer NOT NULL
);

ALTER TABLE bot_answers ADD COLUMN gap_topic bigint REFERENCES gap_topics (id) ON DELETE SET NULL;
-- The asker's consent to show their question to the document owners, and when.
ALTER TABLE bot_answers ADD COLUMN gap_shared_by text NOT NULL DEFAULT '';
ALTER TABLE bot_answers ADD COLUMN gap_shared_at timestamptz;
-- Follow-through: when a sync made the question answerable, the follow-up was claimed once
-- (gap_followed_at, never again), and when it was posted, which answer resolved it.
ALTER TABLE bot_answers ADD COLUMN gap_followed_at timestamptz;
ALTER TABLE bot_answers ADD COLUMN gap_resolved_at timestamptz;
ALTER TABLE bot_answers ADD COLUMN gap_resolved_by bigint REFERENCES bot_answers (id) ON DELETE SET NULL;
ALTER TABLE bot_answers ADD COLUMN gap_follow_error text NOT NULL DEFAULT '';

CREATE INDEX bot_answers_gap_topic_idx ON bot_answers (gap_topic, created_at) WHERE gap_topic IS NOT NULL;
CREATE INDEX bot_answers_gap_pending_idx ON bot_answers (id)
    WHERE gap_topic IS NULL AND reason = '' AND (abstained OR hedged);

-- +goose Down
DROP INDEX bot_answers_gap_pending_idx;
DROP INDEX bot_answers_gap_topic_idx;
ALTER TABLE bot_answers DROP COLUMN gap_follow_error;
ALTER TABLE bot_answers DROP COLUMN gap_resolved_by;
ALTER TABLE bot_answers DROP COLUMN gap_resolved_at;
ALTER TABLE bot_answers DROP COLUMN gap_followed_at;
ALTER TABLE bot_answers DROP COLUMN gap_shared_at;
ALTER TABLE bot_answers DROP COLUMN gap_shared_by;
ALTER TABLE bot_answers DROP COLUMN gap_topic;
DROP TABLE gap_concepts;
DROP TABLE gap_topics;
