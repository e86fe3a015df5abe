-- +goose Up
-- Keep each embedding in the chunk's own row instead of TOAST: a filtered exact scan (which the
-- planner picks for selective scopes) otherwise reads about eight TOAST buffers per chunk.
-- Applies to rows written from now on; re-indexing moves older ones.
ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN;

-- +goose Down
ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE EXTERNAL;
