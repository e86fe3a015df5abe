-- +goose Up
-- Personal access tokens for the MCP server, created by an admin with `cita tokens create`.
-- Only the SHA-256 of a token is stored: the token itself (32 random bytes) is printed once.
-- A token stands for one e-mail identity; groups, when set, narrow that identity's groups
-- (they never add to them). Revoked and expired rows stay for `cita tokens list` and the audit
-- trail, and are refused with their reason.
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_hash   bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    email        text NOT NULL CHECK (email <> ''),
    -- Empty: the identity's own groups. Otherwise the intersection of these and the identity's.
    groups       text[] NOT NULL DEFAULT '{}',
    note         text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    revoked_at   timestamptz,
    last_used_at timestamptz
);

-- The steps of an agent-mode answer (each search or document read the model asked for), for
-- "How I answered". Single-shot answers keep '[]'.
ALTER TABLE bot_answers ADD COLUMN agent_steps jsonb NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE bot_answers DROP COLUMN agent_steps;
DROP TABLE api_tokens;
