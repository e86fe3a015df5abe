-- +goose Up
-- Issue 30: a reply is an answer, a hedged reply ("the closest I found, which may not answer
-- your question") or "I couldn't find this". The record keeps which, why, and the thresholds it
-- was judged against, for "How I answered", the gap record and every figure that counts
-- hedged replies on their own.
ALTER TABLE bot_answers ADD COLUMN hedged boolean NOT NULL DEFAULT false;
ALTER TABLE bot_answers ADD COLUMN hedge_reason text NOT NULL DEFAULT '';
ALTER TABLE bot_answers ADD COLUMN min_evidence double precision NOT NULL DEFAULT 0;
ALTER TABLE bot_answers ADD COLUMN confident_evidence double precision NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE bot_answers DROP COLUMN confident_evidence;
ALTER TABLE bot_answers DROP COLUMN min_evidence;
ALTER TABLE bot_answers DROP COLUMN hedge_reason;
ALTER TABLE bot_answers DROP COLUMN hedged;
