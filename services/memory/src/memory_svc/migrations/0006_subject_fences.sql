-- Erasure's fence in the memory service (docs/agent.md "Erasure", docs/decisions.md "Erasure wins its
-- race"). The agent's erase job fences the subject here before its sweep and lifts the fence after:
-- while a row of memory.subject_fences covers a scope (each id the fence names equals the scope's),
-- Remember, UpdateMemory and ImportMemories refuse to write a record of that scope with SQLSTATE
-- LR409 and the reason SUBJECT_ERASING as its hint, which the service answers as ABORTED (409).
--
-- The records live in Qdrant, so the fence cannot be a trigger: a writer runs
-- memory.refuse_while_erasing in a transaction it holds open until its Qdrant write is done, and
-- the function takes a shared advisory lock on each id of the scopes written. memory.fence_subject
-- takes the same locks exclusively while it inserts its row: it waits for writes under way (so the
-- sweep that follows sees what they wrote), and a write that starts after it sees the fence. Locks
-- are always taken in the order of their keys, so writers and fences never deadlock.

CREATE TABLE memory.subject_fences (
    org_id     text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    erasure_id text NOT NULL CHECK (length(erasure_id) BETWEEN 1 AND 128),
    user_id    text NOT NULL DEFAULT '' CHECK (length(user_id) <= 256),
    agent_id   text NOT NULL DEFAULT '' CHECK (length(agent_id) <= 256),
    team_id    text NOT NULL DEFAULT '' CHECK (length(team_id) <= 256),
    fenced_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, erasure_id),
    -- An empty subject would fence the whole org.
    CHECK (user_id <> '' OR agent_id <> '' OR team_id <> '')
);

ALTER TABLE memory.subject_fences ENABLE ROW LEVEL SECURITY;
CREATE POLICY subject_fences_tenant ON memory.subject_fences
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));

-- The advisory lock keys of the ids the scopes set, distinct and in ascending order.
CREATE FUNCTION memory.fence_lock_keys(p_org text, p_users text[], p_agents text[], p_teams text[])
    RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(DISTINCT k.key ORDER BY k.key), '{}')
    FROM (
        SELECT hashtextextended('lore.memory.fence' || chr(31) || p_org || chr(31) || ids.kind || chr(31) || ids.id, 0)
        FROM (
            SELECT 'user' AS kind, unnest(p_users) AS id
            UNION ALL SELECT 'agent', unnest(p_agents)
            UNION ALL SELECT 'team', unnest(p_teams)
        ) ids
        WHERE ids.id <> ''
    ) AS k(key)
$$;

CREATE FUNCTION memory.fence_subject(p_org text, p_erasure text, p_user text, p_agent text, p_team text)
    RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
BEGIN
    FOREACH k IN ARRAY memory.fence_lock_keys(p_org, ARRAY[p_user], ARRAY[p_agent], ARRAY[p_team]) LOOP
        PERFORM pg_advisory_xact_lock(k);
    END LOOP;
    INSERT INTO memory.subject_fences (org_id, erasure_id, user_id, agent_id, team_id)
        VALUES (p_org, p_erasure, p_user, p_agent, p_team)
        ON CONFLICT (org_id, erasure_id) DO NOTHING;
END $$;

-- Called by a writer before it writes records of these scopes (the i-th scope is
-- (p_users[i], p_agents[i], p_teams[i])), in the transaction it holds until the write is done.
CREATE FUNCTION memory.refuse_while_erasing(p_org text, p_users text[], p_agents text[], p_teams text[])
    RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
    fence text;
BEGIN
    FOREACH k IN ARRAY memory.fence_lock_keys(p_org, p_users, p_agents, p_teams) LOOP
        PERFORM pg_advisory_xact_lock_shared(k);
    END LOOP;
    SELECT f.erasure_id INTO fence
    FROM memory.subject_fences f, unnest(p_users, p_agents, p_teams) AS s(user_id, agent_id, team_id)
    WHERE f.org_id = p_org
      AND (f.user_id = '' OR f.user_id = s.user_id)
      AND (f.agent_id = '' OR f.agent_id = s.agent_id)
      AND (f.team_id = '' OR f.team_id = s.team_id)
    LIMIT 1;
    IF fence IS NOT NULL THEN
        RAISE EXCEPTION 'this subject is being erased (erasure %): nothing is written for it until the erasure completes', fence
            USING ERRCODE = 'LR409', HINT = 'SUBJECT_ERASING';
    END IF;
END $$;
