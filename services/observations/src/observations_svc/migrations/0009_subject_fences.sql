-- Erasure's fence in the observations service, and engagement state erased with its user
-- (docs/agent.md "Erasure", docs/decisions.md "Erasure wins its race").
--
-- The agent's erase job fences the subject here before its sweep and lifts the fence after. While
-- a row of observations.subject_fences stands, the database itself refuses, in the writer's own
-- transaction, with SQLSTATE LR409 and the reason SUBJECT_ERASING as its hint (answered as ABORTED,
-- 409, never a 500):
--   * a new belief, or new evidence on a belief, whose scope the fence covers (each id it names
--     equals the belief's) or that is about the fenced subject (`entity:<user>` for a user,
--     `agent:<agent>` for an agent alone);
--   * for a fence naming a user, engagement state whose text names the user (a hypothesis, its
--     evidence lines, revisions and finding, an unknown): "names" is observations.names_user, the
--     user id as a whole word, case-insensitively.
-- Advisory locks close the race with the fence's request: a writer holds a shared lock on each id
-- it writes for (and on the org's engagement state) for its transaction, fence_subject the same
-- locks exclusively while it inserts its row. So a fence waits for the writes under way to commit
-- (the sweep then sees them), and a write that starts after it sees the fence. Locks are taken in
-- the order of their keys: writers and fences never deadlock.

CREATE TABLE observations.subject_fences (
    org_id     text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    erasure_id text NOT NULL CHECK (length(erasure_id) BETWEEN 1 AND 128),
    user_id    text NOT NULL DEFAULT '' CHECK (length(user_id) <= 256),
    agent_id   text NOT NULL DEFAULT '' CHECK (length(agent_id) <= 256),
    team_id    text NOT NULL DEFAULT '' CHECK (length(team_id) <= 256),
    fenced_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, erasure_id),
    CHECK (user_id <> '' OR agent_id <> '' OR team_id <> '')
);

ALTER TABLE observations.subject_fences ENABLE ROW LEVEL SECURITY;
CREATE POLICY subject_fences_tenant ON observations.subject_fences
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));

-- Whether `p_text` names the user `p_user`: the id as a whole word (no letter, digit or underscore
-- on either side), whatever its case.
CREATE FUNCTION observations.names_user(p_text text, p_user text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(p_user, '') <> '' AND coalesce(p_text, '') <> ''
       AND p_text ~* ('(^|[^[:alnum:]_])' || regexp_replace(p_user, '([^[:alnum:]_ ])', '\\\1', 'g') || '($|[^[:alnum:]_])')
$$;

-- The advisory lock keys of (kind, id) pairs with an id, distinct and in ascending order.
CREATE FUNCTION observations.fence_lock_keys(p_org text, p_kinds text[], p_ids text[]) RETURNS bigint[]
    LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(DISTINCT k.key ORDER BY k.key), '{}')
    FROM (
        SELECT hashtextextended('lore.observations.fence' || chr(31) || p_org || chr(31) || ids.kind || chr(31) || ids.id, 0)
        FROM unnest(p_kinds, p_ids) AS ids(kind, id)
        WHERE coalesce(ids.id, '') <> ''
    ) AS k(key)
$$;

CREATE FUNCTION observations.fence_subject(p_erasure text, p_user text, p_agent text, p_team text) RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
    tenant text := current_setting('lore.org_id', true);
    k bigint;
BEGIN
    FOREACH k IN ARRAY observations.fence_lock_keys(
        tenant, ARRAY['user', 'agent', 'team', 'engagement'],
        ARRAY[p_user, p_agent, p_team, CASE WHEN p_user <> '' THEN 'state' ELSE '' END]) LOOP
        PERFORM pg_advisory_xact_lock(k);
    END LOOP;
    INSERT INTO observations.subject_fences (org_id, erasure_id, user_id, agent_id, team_id)
        VALUES (tenant, p_erasure, p_user, p_agent, p_team)
        ON CONFLICT (org_id, erasure_id) DO NOTHING;
END $$;

CREATE FUNCTION observations.refuse_fenced(p_fence text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_fence IS NOT NULL THEN
        RAISE EXCEPTION 'this subject is being erased (erasure %): nothing is written for it until the erasure completes', p_fence
            USING ERRCODE = 'LR409', HINT = 'SUBJECT_ERASING';
    END IF;
END $$;

-- A write of a belief of this scope and subject.
CREATE FUNCTION observations.refuse_belief_while_erasing(
    p_org text, p_user text, p_agent text, p_team text, p_subject_type text, p_subject_id text
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
    fence text;
BEGIN
    FOREACH k IN ARRAY observations.fence_lock_keys(
        p_org, ARRAY['user', 'agent', 'team', 'user', 'agent'],
        ARRAY[p_user, p_agent, p_team,
              CASE WHEN p_subject_type = 'entity' THEN p_subject_id ELSE '' END,
              CASE WHEN p_subject_type = 'agent' THEN p_subject_id ELSE '' END]) LOOP
        PERFORM pg_advisory_xact_lock_shared(k);
    END LOOP;
    SELECT f.erasure_id INTO fence FROM observations.subject_fences f
    WHERE f.org_id = p_org
      AND (((f.user_id = '' OR f.user_id = p_user) AND (f.agent_id = '' OR f.agent_id = p_agent)
            AND (f.team_id = '' OR f.team_id = p_team))
           OR (f.user_id <> '' AND p_subject_type = 'entity' AND p_subject_id = f.user_id)
           OR (f.user_id = '' AND f.agent_id <> '' AND p_subject_type = 'agent' AND p_subject_id = f.agent_id))
    LIMIT 1;
    PERFORM observations.refuse_fenced(fence);
END $$;

-- A write of engagement state whose texts are `p_texts`.
CREATE FUNCTION observations.refuse_engagement_while_erasing(p_org text, p_texts text[]) RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
    fence text;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(k)
        FROM unnest(observations.fence_lock_keys(p_org, ARRAY['engagement'], ARRAY['state'])) AS k;
    SELECT f.erasure_id INTO fence FROM observations.subject_fences f, unnest(p_texts) AS t(text)
    WHERE f.org_id = p_org AND observations.names_user(t.text, f.user_id)
    LIMIT 1;
    PERFORM observations.refuse_fenced(fence);
END $$;

CREATE FUNCTION observations.belief_fence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM observations.refuse_belief_while_erasing(
        NEW.org_id, NEW.user_id, NEW.agent_id, NEW.team_id, NEW.subject_type, NEW.subject_id);
    RETURN NEW;
END $$;
CREATE TRIGGER observations_erasure_fence BEFORE INSERT ON observations.observations
    FOR EACH ROW EXECUTE FUNCTION observations.belief_fence();

CREATE FUNCTION observations.evidence_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    belief record;
BEGIN
    SELECT o.user_id, o.agent_id, o.team_id, o.subject_type, o.subject_id INTO belief
    FROM observations.observations o WHERE o.org_id = NEW.org_id AND o.id = NEW.observation_id;
    IF FOUND THEN
        PERFORM observations.refuse_belief_while_erasing(
            NEW.org_id, belief.user_id, belief.agent_id, belief.team_id, belief.subject_type, belief.subject_id);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER evidence_erasure_fence BEFORE INSERT ON observations.evidence
    FOR EACH ROW EXECUTE FUNCTION observations.evidence_fence();

CREATE FUNCTION observations.hypothesis_texts(p_org text, p_hypothesis uuid) RETURNS text[]
    LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(h.statement), '{}') FROM observations.hypotheses h
    WHERE h.org_id = p_org AND h.id = p_hypothesis
$$;

CREATE FUNCTION observations.engagement_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    texts text[];
BEGIN
    IF observations.is_erasure() THEN RETURN NEW; END IF;
    -- One branch per table: a record's fields are resolved only in the branch that reads them.
    IF TG_TABLE_NAME = 'hypotheses' THEN
        texts := ARRAY[NEW.statement, NEW.archive_note];
    ELSIF TG_TABLE_NAME = 'hypothesis_evidence' THEN
        texts := ARRAY[NEW.statement, NEW.source] || observations.hypothesis_texts(NEW.org_id, NEW.hypothesis_id);
    ELSIF TG_TABLE_NAME = 'hypothesis_revisions' THEN
        texts := ARRAY[NEW.statement, NEW.previous_statement, NEW.reason];
    ELSIF TG_TABLE_NAME = 'findings' THEN
        texts := ARRAY[NEW.statement, NEW.source] || observations.hypothesis_texts(NEW.org_id, NEW.hypothesis_id);
    ELSE
        texts := ARRAY[NEW.question, NEW.why_it_matters, NEW.resolution];
    END IF;
    PERFORM observations.refuse_engagement_while_erasing(NEW.org_id, texts);
    RETURN NEW;
END $$;
CREATE TRIGGER hypotheses_erasure_fence BEFORE INSERT OR UPDATE ON observations.hypotheses
    FOR EACH ROW EXECUTE FUNCTION observations.engagement_fence();
CREATE TRIGGER hypothesis_evidence_erasure_fence BEFORE INSERT ON observations.hypothesis_evidence
    FOR EACH ROW EXECUTE FUNCTION observations.engagement_fence();
CREATE TRIGGER hypothesis_revisions_erasure_fence BEFORE INSERT ON observations.hypothesis_revisions
    FOR EACH ROW EXECUTE FUNCTION observations.engagement_fence();
CREATE TRIGGER findings_erasure_fence BEFORE INSERT ON observations.findings
    FOR EACH ROW EXECUTE FUNCTION observations.engagement_fence();
CREATE TRIGGER unknowns_erasure_fence BEFORE INSERT OR UPDATE ON observations.unknowns
    FOR EACH ROW EXECUTE FUNCTION observations.engagement_fence();

-- Engagement rows stay append-only and final for everyone but erasure.
CREATE OR REPLACE FUNCTION observations.engagement_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND observations.is_erasure() THEN RETURN OLD; END IF;
    RAISE EXCEPTION '% rows are never changed or deleted', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE OR REPLACE FUNCTION observations.guard_hypothesis() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF observations.is_erasure() THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'hypotheses are never deleted: archive them' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status <> 'active' THEN
        RAISE EXCEPTION 'a % hypothesis is final', OLD.status USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.id, NEW.org_id, NEW.created_at, NEW.request_id) IS DISTINCT FROM (OLD.id, OLD.org_id, OLD.created_at, OLD.request_id) THEN
        RAISE EXCEPTION 'a hypothesis keeps its identity' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

-- Erasure of a user's engagement state, for the org of this transaction (called by the service in
-- EraseSubject's transaction, beside erase_subject): every hypothesis whose text names the user (its
-- statement, archive note or a revision) or whose finding names the user or cites one of the erased
-- sources goes with its evidence lines, revisions and finding; evidence lines of the other
-- hypotheses that name the user or cite an erased source go, and an active hypothesis that lost
-- some has its confidence recomputed from the lines left by the rule of docs/engagement.md
-- (domain.engagement.confidence_from, whose prior weight the caller passes); unknowns naming the
-- user go. Idempotent: a repeat finds nothing more.
CREATE FUNCTION observations.erase_engagement(p_user_id text, p_source_ids text[], p_prior_weight double precision)
    RETURNS TABLE (hypotheses_erased integer, evidence_erased integer, findings_erased integer, unknowns_erased integer)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    tenant text := current_setting('lore.org_id', true);
    sources text[] := coalesce(p_source_ids, '{}');
    doomed uuid[];
    touched uuid[];
    n_lines integer;
    n_more integer;
    n_findings integer;
    n_hypotheses integer;
    n_unknowns integer;
BEGIN
    IF coalesce(tenant, '') = '' THEN
        RAISE EXCEPTION 'lore.org_id is not set' USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT coalesce(array_agg(h.id), '{}') INTO doomed FROM observations.hypotheses h
    WHERE h.org_id = tenant
      AND (observations.names_user(h.statement, p_user_id) OR observations.names_user(h.archive_note, p_user_id)
           OR EXISTS (SELECT 1 FROM observations.hypothesis_revisions r
                      WHERE r.org_id = tenant AND r.hypothesis_id = h.id
                        AND (observations.names_user(r.statement, p_user_id)
                             OR observations.names_user(r.previous_statement, p_user_id)
                             OR observations.names_user(r.reason, p_user_id)))
           OR EXISTS (SELECT 1 FROM observations.findings f
                      WHERE f.org_id = tenant AND f.hypothesis_id = h.id
                        AND (observations.names_user(f.statement, p_user_id)
                             OR observations.names_user(f.source, p_user_id) OR f.source = ANY (sources))));
    WITH gone AS (
        DELETE FROM observations.hypothesis_evidence e
        WHERE e.org_id = tenant AND NOT (e.hypothesis_id = ANY (doomed))
          AND (observations.names_user(e.statement, p_user_id) OR observations.names_user(e.source, p_user_id)
               OR e.source = ANY (sources))
        RETURNING e.hypothesis_id
    )
    SELECT count(*)::integer, coalesce(array_agg(DISTINCT g.hypothesis_id), '{}') INTO n_lines, touched FROM gone g;
    DELETE FROM observations.hypothesis_evidence e WHERE e.org_id = tenant AND e.hypothesis_id = ANY (doomed);
    GET DIAGNOSTICS n_more = ROW_COUNT;
    DELETE FROM observations.hypothesis_revisions r WHERE r.org_id = tenant AND r.hypothesis_id = ANY (doomed);
    -- A hypothesis and its finding reference each other: both go in one statement.
    WITH findings AS (
        DELETE FROM observations.findings f WHERE f.org_id = tenant AND f.hypothesis_id = ANY (doomed) RETURNING 1
    ), hypotheses AS (
        DELETE FROM observations.hypotheses h WHERE h.org_id = tenant AND h.id = ANY (doomed) RETURNING 1
    )
    SELECT (SELECT count(*) FROM findings)::integer, (SELECT count(*) FROM hypotheses)::integer
        INTO n_findings, n_hypotheses;
    -- (S + k·prior) / (S + C + k) over the lines of the current epoch (as many as its revisions).
    UPDATE observations.hypotheses h SET confidence = least(1.0, greatest(0.0,
        (lines.support + p_prior_weight * h.prior) / (lines.support + lines.contradiction + p_prior_weight)))
    FROM (
        SELECT t.id,
               coalesce(sum(e.weight) FILTER (WHERE e.stance = 'support'), 0) AS support,
               coalesce(sum(e.weight) FILTER (WHERE e.stance = 'contradict'), 0) AS contradiction
        FROM unnest(touched) AS t(id)
        LEFT JOIN observations.hypothesis_evidence e
            ON e.org_id = tenant AND e.hypothesis_id = t.id
           AND e.epoch = (SELECT count(*) FROM observations.hypothesis_revisions r
                          WHERE r.org_id = tenant AND r.hypothesis_id = t.id)
        GROUP BY t.id
    ) AS lines
    WHERE h.org_id = tenant AND h.id = lines.id AND h.status = 'active';
    DELETE FROM observations.unknowns u
    WHERE u.org_id = tenant
      AND (observations.names_user(u.question, p_user_id) OR observations.names_user(u.why_it_matters, p_user_id)
           OR observations.names_user(u.resolution, p_user_id));
    GET DIAGNOSTICS n_unknowns = ROW_COUNT;
    RETURN QUERY SELECT n_hypotheses, n_lines + n_more, n_findings, n_unknowns;
END $$;
