-- Sessions and their transcript (ARCHITECTURE.md §5, docs/agent.md). A turn is written once
-- and never changed: its sequence is assigned in the session's row lock, its idempotency key
-- is unique per session, so a retried write lands once. Row-level security keys every row on
-- the org the service sets per transaction.

CREATE TABLE agent.sessions (
    id             uuid PRIMARY KEY,
    org_id         text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    user_id        text NOT NULL DEFAULT '' CHECK (length(user_id) <= 128),
    agent_id       text NOT NULL DEFAULT '' CHECK (length(agent_id) <= 128),
    team_id        text NOT NULL DEFAULT '' CHECK (length(team_id) <= 128),
    status         text NOT NULL CHECK (status IN ('active', 'ended')),
    end_reason     text NOT NULL DEFAULT '' CHECK (end_reason IN ('', 'requested', 'idle')),
    started_at     timestamptz NOT NULL,
    last_active_at timestamptz NOT NULL,
    ended_at       timestamptz,
    turn_count     integer NOT NULL DEFAULT 0 CHECK (turn_count >= 0),
    metadata       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    request_id     text NOT NULL DEFAULT '' CHECK (length(request_id) <= 128),
    UNIQUE (org_id, id),
    CHECK ((status = 'ended') = (ended_at IS NOT NULL)),
    CHECK ((status = 'ended') = (end_reason <> ''))
);
CREATE UNIQUE INDEX sessions_request ON agent.sessions (org_id, request_id) WHERE request_id <> '';
CREATE INDEX sessions_newest ON agent.sessions (org_id, started_at DESC, id DESC);
CREATE INDEX sessions_user ON agent.sessions (org_id, user_id, started_at DESC, id DESC);
-- The idle scan: active sessions by last activity.
CREATE INDEX sessions_idle ON agent.sessions (last_active_at) WHERE status = 'active';

CREATE TABLE agent.turns (
    id                uuid PRIMARY KEY,
    org_id            text NOT NULL,
    session_id        uuid NOT NULL,
    sequence          integer NOT NULL CHECK (sequence >= 1),
    role              text NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
    content           text NOT NULL CHECK (length(content) <= 32000),
    created_at        timestamptz NOT NULL,
    recorded_at       timestamptz NOT NULL,
    metadata          jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    tool_interactions jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tool_interactions) = 'array'),
    idempotency_key   text NOT NULL DEFAULT '' CHECK (length(idempotency_key) <= 128),
    FOREIGN KEY (org_id, session_id) REFERENCES agent.sessions (org_id, id),
    UNIQUE (session_id, sequence)
);
CREATE UNIQUE INDEX turns_idempotency ON agent.turns (session_id, idempotency_key) WHERE idempotency_key <> '';

-- The transcript is append-only, even for the service's own role: a turn is never rewritten.
CREATE FUNCTION agent.refuse_turn_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a turn is never changed once written' USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER turns_append_only BEFORE UPDATE ON agent.turns
    FOR EACH ROW EXECUTE FUNCTION agent.refuse_turn_update();

ALTER TABLE agent.sessions ENABLE ROW LEVEL SECURITY;
CREATE POLICY sessions_tenant ON agent.sessions
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
ALTER TABLE agent.turns ENABLE ROW LEVEL SECURITY;
CREATE POLICY turns_tenant ON agent.turns
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
