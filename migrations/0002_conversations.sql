-- +goose Up
-- What the chat adapters remember: answers (for feedback, "how I answered" and staleness), the
-- documents each answer used, the turns of each thread, ratings, and platform event ids for
-- dedupe of redelivered events.

CREATE TABLE bot_answers (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform          text NOT NULL,
    workspace         text NOT NULL,
    channel           text NOT NULL,
    thread            text NOT NULL,
    asker             text NOT NULL,
    -- '' : everyone in the conversation saw the reply; a user id: only that user (ephemeral).
    visible_to        text NOT NULL DEFAULT '',
    question          text NOT NULL,
    standalone_query  text NOT NULL,
    answer_text       text NOT NULL,
    scope_groups      text[] NOT NULL,
    abstained         boolean NOT NULL,
    abstain_reason    text NOT NULL DEFAULT '',
    reason            text NOT NULL DEFAULT '',
    evidence          double precision NOT NULL DEFAULT 0,
    sources           jsonb NOT NULL DEFAULT '[]',
    top_hits          jsonb NOT NULL DEFAULT '[]',
    timings_ms        jsonb NOT NULL DEFAULT '{}',
    total_ms          double precision NOT NULL DEFAULT 0,
    model             text NOT NULL DEFAULT '',
    prompt_tokens     integer NOT NULL DEFAULT 0,
    completion_tokens integer NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL DEFAULT now()
);

-- The documents an answer used, with their version and groups at answer time. No foreign key to
-- documents: the record outlives a deleted or re-indexed document.
CREATE TABLE bot_answer_documents (
    answer_id   bigint NOT NULL REFERENCES bot_answers (id) ON DELETE CASCADE,
    document_id bigint NOT NULL,
    chunk_ids   bigint[] NOT NULL,
    doc_version bigint NOT NULL,
    doc_groups  text[] NOT NULL,
    PRIMARY KEY (answer_id, document_id)
);

CREATE TABLE bot_turns (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform   text NOT NULL,
    workspace  text NOT NULL,
    channel    text NOT NULL,
    thread     text NOT NULL,
    role       text NOT NULL CHECK (role IN ('user', 'assistant')),
    author     text NOT NULL DEFAULT '',
    body       text NOT NULL,
    -- The scope of the channel the turn was produced in (Scope.Key), for audits.
    scope_key  text NOT NULL,
    answer_id  bigint NOT NULL REFERENCES bot_answers (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bot_turns_conversation_idx ON bot_turns (platform, workspace, channel, thread, id DESC);

CREATE TABLE bot_feedback (
    answer_id  bigint NOT NULL REFERENCES bot_answers (id) ON DELETE CASCADE,
    user_id    text NOT NULL,
    rating     smallint NOT NULL CHECK (rating IN (-1, 1)),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (answer_id, user_id)
);

CREATE TABLE bot_events (
    event_id text PRIMARY KEY,
    seen_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bot_events_seen_at_idx ON bot_events (seen_at);

-- +goose Down
DROP TABLE bot_events;
DROP TABLE bot_feedback;
DROP TABLE bot_turns;
DROP TABLE bot_answer_documents;
DROP TABLE bot_answers;
