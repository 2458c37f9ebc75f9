-- The erasure fence (docs/agent.md "Erasure", docs/decisions.md "Erasure wins its race"). From the
-- moment a ForgetSubject is accepted until its erasure completes, nothing new is written for the
-- subject: an unfinished row of agent.erasures is the fence, and the database itself refuses a new
-- session, turn or turn result whose session's scope the erasure covers (each id the erasure names
-- equals the session's), in the writer's own transaction. A refusal is SQLSTATE LR409 with the
-- reason SUBJECT_ERASING as its hint: the services answer it as a conflict (409), never a 500.
--
-- The race between a writer and the erasure request is closed with advisory locks on the scope's
-- ids: a writer holds a shared lock on each id of its session's scope for its transaction, the
-- erasure request an exclusive lock on each id of its subject while it inserts its row. So an
-- erasure waits for the writes already under way to commit (its job then reads them), and a
-- write that starts after the erasure committed sees the fence.

CREATE INDEX erasures_unfinished ON agent.erasures (org_id) WHERE status <> 'completed';

CREATE FUNCTION agent.erasure_lock_key(p_org text, p_kind text, p_id text) RETURNS bigint
    LANGUAGE sql IMMUTABLE AS $$
    SELECT hashtextextended('lore.erasure.fence' || chr(31) || p_org || chr(31) || p_kind || chr(31) || p_id, 0)
$$;

-- Taken by the erasure request, in its transaction, before its row is inserted.
CREATE FUNCTION agent.lock_subject_for_erasure(p_org text, p_user text, p_agent text, p_team text) RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    IF p_user <> '' THEN PERFORM pg_advisory_xact_lock(agent.erasure_lock_key(p_org, 'user', p_user)); END IF;
    IF p_agent <> '' THEN PERFORM pg_advisory_xact_lock(agent.erasure_lock_key(p_org, 'agent', p_agent)); END IF;
    IF p_team <> '' THEN PERFORM pg_advisory_xact_lock(agent.erasure_lock_key(p_org, 'team', p_team)); END IF;
END $$;

-- Called by every write for a scope: waits for an erasure request of the scope being inserted,
-- then refuses the write while an erasure covering the scope is unfinished.
CREATE FUNCTION agent.refuse_while_erasing(p_org text, p_user text, p_agent text, p_team text) RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
    fence uuid;
BEGIN
    IF p_user <> '' THEN PERFORM pg_advisory_xact_lock_shared(agent.erasure_lock_key(p_org, 'user', p_user)); END IF;
    IF p_agent <> '' THEN PERFORM pg_advisory_xact_lock_shared(agent.erasure_lock_key(p_org, 'agent', p_agent)); END IF;
    IF p_team <> '' THEN PERFORM pg_advisory_xact_lock_shared(agent.erasure_lock_key(p_org, 'team', p_team)); END IF;
    SELECT e.id INTO fence FROM agent.erasures e
    WHERE e.org_id = p_org AND e.status <> 'completed'
      AND (e.user_id = '' OR e.user_id = p_user)
      AND (e.agent_id = '' OR e.agent_id = p_agent)
      AND (e.team_id = '' OR e.team_id = p_team)
    LIMIT 1;
    IF fence IS NOT NULL THEN
        RAISE EXCEPTION 'this subject is being erased (erasure %): nothing is written for it until the erasure completes', fence
            USING ERRCODE = 'LR409', HINT = 'SUBJECT_ERASING';
    END IF;
END $$;

CREATE FUNCTION agent.session_fence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM agent.refuse_while_erasing(NEW.org_id, NEW.user_id, NEW.agent_id, NEW.team_id);
    RETURN NEW;
END $$;
CREATE TRIGGER sessions_erasure_fence BEFORE INSERT ON agent.sessions
    FOR EACH ROW EXECUTE FUNCTION agent.session_fence();

-- Turns and turn results: the scope is their session's.
CREATE FUNCTION agent.session_row_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    scope record;
BEGIN
    SELECT s.user_id, s.agent_id, s.team_id INTO scope FROM agent.sessions s
    WHERE s.org_id = NEW.org_id AND s.id = NEW.session_id;
    IF FOUND THEN
        PERFORM agent.refuse_while_erasing(NEW.org_id, scope.user_id, scope.agent_id, scope.team_id);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER turns_erasure_fence BEFORE INSERT ON agent.turns
    FOR EACH ROW EXECUTE FUNCTION agent.session_row_fence();
CREATE TRIGGER turn_results_erasure_fence BEFORE INSERT ON agent.turn_results
    FOR EACH ROW EXECUTE FUNCTION agent.session_row_fence();
