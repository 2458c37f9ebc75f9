-- Beliefs carry the scope they concern (ARCHITECTURE.md §2, §4): a user's belief reaches only that
-- user's contexts, one with no user is the org's. One current belief per (org, agent, user, team, key):
-- two users' "entity:ana" are two different Anas.
ALTER TABLE observations.observations
    ADD COLUMN user_id text NOT NULL DEFAULT ''
        CHECK (length(user_id) <= 128 AND user_id = btrim(user_id) AND user_id !~ '[[:cntrl:]]'),
    ADD COLUMN team_id text NOT NULL DEFAULT ''
        CHECK (length(team_id) <= 128 AND team_id = btrim(team_id) AND team_id !~ '[[:cntrl:]]'),
    -- Recorded before scopes and not attributable: listed by QueryObservations, never in a context.
    ADD COLUMN unattributed boolean NOT NULL DEFAULT false;

-- Existing rows: reflection named a user as the subject `entity:<user id>`, so those are that user's;
-- nothing tells whose the others are, so they stay out of every context until observed again.
UPDATE observations.observations SET user_id = subject_id WHERE subject_type = 'entity';
UPDATE observations.observations SET unattributed = true WHERE subject_type <> 'entity';

DROP INDEX observations.observations_one_current;
-- An unattributed belief is no scope's current one: observing its key again starts a scoped belief.
CREATE UNIQUE INDEX observations_one_current
    ON observations.observations (org_id, agent_id, user_id, team_id, canonical_key)
    WHERE status IN ('active', 'stale') AND NOT unattributed;
-- "What do we believe about this user", best first.
CREATE INDEX observations_user_ranked
    ON observations.observations (org_id, user_id, confidence DESC, freshness DESC, id);
-- A browse with no agent reads every agent of the org, best first, straight off an index.
CREATE INDEX observations_org_ranked ON observations.observations (org_id, confidence DESC, freshness DESC, id);

-- The scope is part of a belief's identity: immutable like the rest of it.
CREATE OR REPLACE FUNCTION observations.guard_observation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF observations.is_erasure() THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'observations are never deleted (only erase_subject may)' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.id, NEW.org_id, NEW.agent_id, NEW.user_id, NEW.team_id, NEW.unattributed, NEW.kind, NEW.subject_type,
        NEW.subject_id, NEW.slot, NEW.canonical_key, NEW.summary, NEW.supersedes_observation_id, NEW.created_at)
       IS DISTINCT FROM
       (OLD.id, OLD.org_id, OLD.agent_id, OLD.user_id, OLD.team_id, OLD.unattributed, OLD.kind, OLD.subject_type,
        OLD.subject_id, OLD.slot, OLD.canonical_key, OLD.summary, OLD.supersedes_observation_id, OLD.created_at) THEN
        RAISE EXCEPTION 'a change of belief is a new observation: identity, scope, subject, key and summary are immutable'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status = 'superseded' AND NEW.status <> 'superseded' THEN
        RAISE EXCEPTION 'superseded is terminal' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

-- The lexical side of SearchObservations, now for a context's scope: the user's beliefs and the
-- org's (no user), likewise the team; the agent's and agent-less ones (any agent when none is named).
DROP FUNCTION observations.lexical_matches(text, text, text[], text[], float8, integer);
CREATE FUNCTION observations.lexical_matches(
    p_query text, p_agent_id text, p_user_id text, p_team_id text, p_kinds text[], p_statuses text[],
    p_min_confidence float8, p_limit integer
) RETURNS TABLE (id uuid, lexical real)
    LANGUAGE sql STABLE SECURITY DEFINER ROWS 100 SET search_path = pg_catalog, pg_temp AS $$
    WITH matches AS (
        SELECT o.id, o.search_text FROM observations.observations o
        WHERE o.org_id = current_setting('lore.org_id', true)
          AND (p_agent_id = '' OR o.agent_id = p_agent_id OR o.agent_id = '')
          AND (o.user_id = p_user_id OR o.user_id = '') AND (o.team_id = p_team_id OR o.team_id = '')
          AND NOT o.unattributed
          AND (cardinality(p_kinds) = 0 OR o.kind = ANY (p_kinds)) AND o.status = ANY (p_statuses)
          AND (p_min_confidence IS NULL OR o.confidence >= p_min_confidence)
          AND o.search_text @@ websearch_to_tsquery('english', p_query)
        LIMIT 500
    )
    SELECT m.id, ts_rank_cd(m.search_text, websearch_to_tsquery('english', p_query)) AS lexical
    FROM matches m ORDER BY lexical DESC LIMIT p_limit
$$;

-- Erasure also removes every belief scoped to the erased user (p_user_id), whatever its subject.
DROP FUNCTION observations.erase_subject(text, text, text[], text, text);
CREATE FUNCTION observations.erase_subject(
    p_subject_type text, p_subject_id text, p_source_ids text[], p_principal text, p_request_id text,
    p_user_id text DEFAULT ''
) RETURNS TABLE (tombstone_id uuid, observations_erased integer, evidence_erased integer)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    tenant text := current_setting('lore.org_id', true);
    erased_ids uuid[];
    n_evidence integer;
    new_id uuid := gen_random_uuid();
BEGIN
    IF coalesce(tenant, '') = '' THEN
        RAISE EXCEPTION 'lore.org_id is not set' USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_request_id <> '' THEN
        RETURN QUERY SELECT t.id, t.observations_erased, t.evidence_erased FROM observations.tombstones t
                     WHERE t.org_id = tenant AND t.request_id = p_request_id;
        IF FOUND THEN RETURN; END IF;
    END IF;
    SELECT coalesce(array_agg(o.id), '{}') INTO erased_ids FROM observations.observations o
        WHERE o.org_id = tenant
          AND ((o.subject_type = p_subject_type AND o.subject_id = p_subject_id)
               OR (coalesce(p_user_id, '') <> '' AND o.user_id = p_user_id));
    DELETE FROM observations.evidence e
        WHERE e.org_id = tenant
          AND (e.observation_id = ANY (erased_ids)
               OR e.source_id = ANY (coalesce(p_source_ids, '{}'))
               OR (p_subject_type = 'entity' AND e.source_type = 'entity' AND e.source_id = p_subject_id));
    GET DIAGNOSTICS n_evidence = ROW_COUNT;
    DELETE FROM observations.observations o WHERE o.org_id = tenant AND o.id = ANY (erased_ids);
    INSERT INTO observations.tombstones
        (id, org_id, subject_type, subject_id, principal, request_id, observations_erased, evidence_erased)
        VALUES (new_id, tenant, p_subject_type, p_subject_id, p_principal, p_request_id,
                cardinality(erased_ids), n_evidence);
    RETURN QUERY SELECT new_id, cardinality(erased_ids), n_evidence;
END $$;
