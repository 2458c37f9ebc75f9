-- Erasure leaves no belief built on erased words (docs/observations.md "Erasure", docs/decisions.md).
-- Besides the subject's (and the erased user's) beliefs, erase_subject now erases every belief whose
-- support was all erased with the sources, and reports the beliefs that only lost part of their
-- evidence: the service recomputes their confidence in the same transaction, in place (the one
-- in-place change of a belief's numbers that is not caused by new evidence or the passing of time).
-- The tombstone lists both sets by id (ids only, never content), so a replayed request id returns
-- the same answer and the caller can redo its part (recompute, drop caches that showed them).

ALTER TABLE observations.tombstones
    -- Beliefs that lost evidence and kept some support: recomputed by the service.
    ADD COLUMN recomputed_ids uuid[] NOT NULL DEFAULT '{}',
    -- Erased beliefs not scoped to the erased user: other people's contexts may have shown them.
    ADD COLUMN shared_erased_ids uuid[] NOT NULL DEFAULT '{}';

-- Erasing a belief in the middle of a supersession chain re-links its successor to the nearest
-- surviving predecessor: only erasure may change a supersession link.
CREATE OR REPLACE FUNCTION observations.guard_observation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF observations.is_erasure() THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'observations are never deleted (only erase_subject may)' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.id, NEW.org_id, NEW.agent_id, NEW.user_id, NEW.team_id, NEW.unattributed, NEW.kind, NEW.subject_type,
        NEW.subject_id, NEW.slot, NEW.canonical_key, NEW.summary, NEW.created_at)
       IS DISTINCT FROM
       (OLD.id, OLD.org_id, OLD.agent_id, OLD.user_id, OLD.team_id, OLD.unattributed, OLD.kind, OLD.subject_type,
        OLD.subject_id, OLD.slot, OLD.canonical_key, OLD.summary, OLD.created_at)
       OR (NEW.supersedes_observation_id IS DISTINCT FROM OLD.supersedes_observation_id
           AND NOT observations.is_erasure()) THEN
        RAISE EXCEPTION 'a change of belief is a new observation: identity, scope, subject, key and summary are immutable'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status = 'superseded' AND NEW.status <> 'superseded' THEN
        RAISE EXCEPTION 'superseded is terminal' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

DROP FUNCTION observations.erase_subject(text, text, text[], text, text, text);
CREATE FUNCTION observations.erase_subject(
    p_subject_type text, p_subject_id text, p_source_ids text[], p_principal text, p_request_id text,
    p_user_id text DEFAULT ''
) RETURNS TABLE (tombstone_id uuid, observations_erased integer, evidence_erased integer,
                 recomputed_ids uuid[], shared_erased_ids uuid[])
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    tenant text := current_setting('lore.org_id', true);
    erased_ids uuid[];
    touched uuid[];
    lost_support uuid[];
    unsupported uuid[];
    shared uuid[];
    successors uuid[];
    ancestors uuid[];
    n_evidence integer;
    n_more integer;
    new_id uuid := gen_random_uuid();
BEGIN
    IF coalesce(tenant, '') = '' THEN
        RAISE EXCEPTION 'lore.org_id is not set' USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_request_id <> '' THEN
        RETURN QUERY SELECT t.id, t.observations_erased, t.evidence_erased, t.recomputed_ids, t.shared_erased_ids
                     FROM observations.tombstones t WHERE t.org_id = tenant AND t.request_id = p_request_id;
        IF FOUND THEN RETURN; END IF;
    END IF;
    -- The subject's beliefs, and with a user every belief scoped to that user.
    SELECT coalesce(array_agg(o.id), '{}') INTO erased_ids FROM observations.observations o
        WHERE o.org_id = tenant
          AND ((o.subject_type = p_subject_type AND o.subject_id = p_subject_id)
               OR (coalesce(p_user_id, '') <> '' AND o.user_id = p_user_id));
    -- Evidence citing the erased sources (or, for an entity, the entity itself) on the other beliefs.
    WITH gone AS (
        DELETE FROM observations.evidence e
        WHERE e.org_id = tenant AND NOT (e.observation_id = ANY (erased_ids))
          AND (e.source_id = ANY (coalesce(p_source_ids, '{}'))
               OR (p_subject_type = 'entity' AND e.source_type = 'entity' AND e.source_id = p_subject_id))
        RETURNING e.observation_id, e.stance
    )
    SELECT count(*)::integer, coalesce(array_agg(DISTINCT g.observation_id), '{}'),
           coalesce(array_agg(DISTINCT g.observation_id) FILTER (WHERE g.stance = 'support'), '{}')
        INTO n_evidence, touched, lost_support FROM gone g;
    -- A belief all of whose support went with them was made of the erased words: it goes too (as does
    -- one left with no evidence at all).
    SELECT coalesce(array_agg(o.id), '{}') INTO unsupported FROM observations.observations o
        WHERE o.org_id = tenant AND o.id = ANY (touched)
          AND NOT EXISTS (SELECT 1 FROM observations.evidence e
                          WHERE e.org_id = tenant AND e.observation_id = o.id AND e.stance = 'support')
          AND (o.id = ANY (lost_support)
               OR NOT EXISTS (SELECT 1 FROM observations.evidence e WHERE e.org_id = tenant AND e.observation_id = o.id));
    erased_ids := erased_ids || unsupported;
    SELECT coalesce(array_agg(o.id), '{}') INTO shared FROM observations.observations o
        WHERE o.org_id = tenant AND o.id = ANY (erased_ids) AND (coalesce(p_user_id, '') = '' OR o.user_id <> p_user_id);
    DELETE FROM observations.evidence e WHERE e.org_id = tenant AND e.observation_id = ANY (erased_ids);
    GET DIAGNOSTICS n_more = ROW_COUNT;
    n_evidence := n_evidence + n_more;
    -- Surviving successors of erased beliefs: re-linked past them to the nearest surviving predecessor.
    WITH RECURSIVE walk AS (
        SELECT s.id AS successor, p.supersedes_observation_id AS ancestor
        FROM observations.observations s
        JOIN observations.observations p ON p.org_id = tenant AND p.id = s.supersedes_observation_id
        WHERE s.org_id = tenant AND s.supersedes_observation_id = ANY (erased_ids) AND NOT (s.id = ANY (erased_ids))
        UNION ALL
        SELECT w.successor, p.supersedes_observation_id
        FROM walk w JOIN observations.observations p ON p.org_id = tenant AND p.id = w.ancestor
        WHERE w.ancestor = ANY (erased_ids)
    )
    SELECT coalesce(array_agg(w.successor), '{}'), coalesce(array_agg(w.ancestor), '{}')
        INTO successors, ancestors FROM walk w
        WHERE w.ancestor IS NULL OR NOT (w.ancestor = ANY (erased_ids));
    UPDATE observations.observations o SET supersedes_observation_id = NULL
        WHERE o.org_id = tenant AND o.id = ANY (successors);
    DELETE FROM observations.observations o WHERE o.org_id = tenant AND o.id = ANY (erased_ids);
    UPDATE observations.observations o SET supersedes_observation_id = link.ancestor
        FROM unnest(successors, ancestors) AS link(successor, ancestor)
        WHERE o.org_id = tenant AND o.id = link.successor AND link.ancestor IS NOT NULL;
    touched := ARRAY(SELECT d.id FROM (SELECT unnest(touched) EXCEPT SELECT unnest(erased_ids)) AS d(id) ORDER BY d.id);
    INSERT INTO observations.tombstones
        (id, org_id, subject_type, subject_id, principal, request_id, observations_erased, evidence_erased,
         recomputed_ids, shared_erased_ids)
        VALUES (new_id, tenant, p_subject_type, p_subject_id, p_principal, p_request_id,
                cardinality(erased_ids), n_evidence, touched, shared);
    RETURN QUERY SELECT new_id, cardinality(erased_ids), n_evidence, touched, shared;
END $$;
