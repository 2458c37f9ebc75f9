-- Erasure (ARCHITECTURE.md §2, docs/agent.md "Erasure"): one row per ForgetSubject request. The
-- row is the job's state while it runs and the tombstone once it completed: who was erased (the
-- subject's ids), who asked (the principal), when, and how many records each store removed. It
-- never holds content. A request id makes a retried request land on the same row.

CREATE TABLE agent.erasures (
    id           uuid PRIMARY KEY,
    org_id       text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    user_id      text NOT NULL DEFAULT '' CHECK (length(user_id) <= 128),
    agent_id     text NOT NULL DEFAULT '' CHECK (length(agent_id) <= 128),
    team_id      text NOT NULL DEFAULT '' CHECK (length(team_id) <= 128),
    request_id   text NOT NULL DEFAULT '' CHECK (length(request_id) <= 128),
    status       text NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'running', 'completed', 'dead_lettered')),
    requested_at timestamptz NOT NULL,
    completed_at timestamptz,
    -- Records removed per store ("turns", "memories", "observations" ...): numbers only.
    counts       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(counts) = 'object'),
    principal    text NOT NULL DEFAULT '' CHECK (length(principal) <= 256),
    UNIQUE (org_id, id),
    -- An erasure names someone: an empty subject would be the whole org.
    CHECK (user_id <> '' OR agent_id <> '' OR team_id <> ''),
    CHECK ((status = 'completed') = (completed_at IS NOT NULL))
);
CREATE UNIQUE INDEX erasures_request ON agent.erasures (org_id, request_id) WHERE request_id <> '';
CREATE INDEX erasures_newest ON agent.erasures (org_id, requested_at DESC);

ALTER TABLE agent.erasures ENABLE ROW LEVEL SECURITY;
CREATE POLICY erasures_tenant ON agent.erasures
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));

-- Erasure deletes whole sessions: turn results and turns first (they reference the session).
-- Turns keep refusing UPDATE (turns_append_only); DELETE was always allowed, and only erasure uses
-- it. Turns are found through their (session_id, sequence) key; turn results need an index.
CREATE INDEX turn_results_session ON agent.turn_results (session_id);
