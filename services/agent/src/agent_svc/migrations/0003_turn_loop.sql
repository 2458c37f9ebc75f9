-- The per-turn loop (docs/agent.md): the first result of each processed turn, kept so a retry
-- with the same idempotency key gets it back; how far reflection has read each session; the
-- idle-session scan, and the runs of the service's scheduled jobs.

-- Reflection reads a session's turns in order and records here the last sequence it reflected,
-- so a re-run after a crash resumes where it stopped and never reflects a turn twice.
ALTER TABLE agent.sessions ADD COLUMN reflected_through integer NOT NULL DEFAULT 0 CHECK (reflected_through >= 0);

-- Who wrote a turn: a live ProcessTurn (reflection indexes it as a message memory) or an import
-- (which indexes its turns itself, keeping their real time).
ALTER TABLE agent.turns ADD COLUMN source text NOT NULL DEFAULT 'live' CHECK (source IN ('live', 'import'));

CREATE TABLE agent.turn_results (
    turn_id       uuid PRIMARY KEY,
    org_id        text NOT NULL,
    session_id    uuid NOT NULL,
    reply         text NOT NULL DEFAULT '',
    reply_turn_id uuid,
    -- The assembled context as the assembler returned it (its protobuf bytes): opaque here.
    context       bytea NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL,
    FOREIGN KEY (org_id, session_id) REFERENCES agent.sessions (org_id, id)
);
ALTER TABLE agent.turn_results ENABLE ROW LEVEL SECURITY;
CREATE POLICY turn_results_tenant ON agent.turn_results
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));

-- Active sessions idle since before p_before, oldest first, across orgs: the idle scan runs as a
-- system principal and then ends each session inside that session's own tenant transaction.
CREATE FUNCTION agent.idle_sessions(p_before timestamptz, p_limit integer)
    RETURNS TABLE (org_id text, id uuid)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT s.org_id, s.id FROM agent.sessions s
    WHERE s.status = 'active' AND s.last_active_at < p_before
    ORDER BY s.last_active_at
    LIMIT p_limit
$$;

-- Which replica runs each scheduled job (the idle scan, digests), and how its last run went
-- (lore_runtime.scheduled). Not tenant data.
CREATE TABLE agent.scheduled_runs (
    job              text PRIMARY KEY CHECK (job ~ '^[a-z][a-z0-9_]{0,63}$'),
    holder           text NOT NULL DEFAULT '',
    lease_until      timestamptz NOT NULL DEFAULT '-infinity',
    last_started_at  timestamptz,
    last_finished_at timestamptz,
    last_status      text NOT NULL DEFAULT 'never' CHECK (last_status IN ('never', 'running', 'ok', 'failed')),
    last_result      jsonb NOT NULL DEFAULT '{}',
    last_error       text NOT NULL DEFAULT '' CHECK (length(last_error) <= 2000)
);
