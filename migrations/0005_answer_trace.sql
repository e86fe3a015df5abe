-- +goose Up
-- The rest of an answer's trace: what the context budget dropped, and whether the answer came
-- from the answer cache (its token counts are then the original answer's, not spent again).
ALTER TABLE bot_answers
    ADD COLUMN dropped_chunk_ids bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN cached boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE bot_answers DROP COLUMN dropped_chunk_ids, DROP COLUMN cached;
