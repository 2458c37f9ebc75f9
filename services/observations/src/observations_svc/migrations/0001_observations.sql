-- Knowledge observations (ARCHITECTURE.md §4): what an agent currently believes, the raw
-- evidence behind it, and a supersession chain that never rewrites the past. The rules of
-- docs/observations.md are enforced here too, so even the service's own role (lore_app)
-- cannot break them with direct SQL; only erase_subject (SECURITY DEFINER, owned by the
-- migration role) gets around them, and it leaves a tombstone.

CREATE FUNCTION observations.search_document(summary text, detail text, tags text[]) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN to_tsvector('english'::regconfig, summary || ' ' || detail || ' ' || array_to_string(tags, ' '));

CREATE TABLE observations.observations (
    id                        uuid PRIMARY KEY,
    org_id                    text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    agent_id                  text NOT NULL DEFAULT '' CHECK (agent_id ~ '^([A-Za-z0-9][A-Za-z0-9._@/-]{0,127})?$'),
    kind                      text NOT NULL CHECK (kind IN ('operator_preference', 'project_state', 'world_fact',
                                                            'self_model', 'relationship_fact', 'tooling_state')),
    subject_type              text NOT NULL CHECK (subject_type IN ('entity', 'project', 'tool', 'agent', 'global')),
    subject_id                text NOT NULL DEFAULT '',
    slot                      text NOT NULL CHECK (slot ~ '^[a-z0-9_.-]{1,64}$'),
    canonical_key             text NOT NULL,
    summary                   text NOT NULL CHECK (length(btrim(summary)) BETWEEN 1 AND 1000),
    detail                    text NOT NULL DEFAULT '' CHECK (length(detail) <= 4000),
    tags                      text[] NOT NULL DEFAULT '{}' CHECK (cardinality(tags) <= 20),
    confidence                double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    confidence_components     jsonb NOT NULL,
    freshness                 double precision NOT NULL CHECK (freshness BETWEEN 0 AND 1),
    last_supported_at         timestamptz,
    revalidation_due_at       timestamptz NOT NULL,
    status                    text NOT NULL CHECK (status IN ('active', 'stale', 'superseded', 'invalidated')),
    supersedes_observation_id uuid,
    embedding                 halfvec(384) NOT NULL,
    -- Stored, so ranking a match reads the vector instead of re-parsing the text of every row.
    search_text               tsvector GENERATED ALWAYS AS (observations.search_document(summary, detail, tags)) STORED,
    created_at                timestamptz NOT NULL,
    updated_at                timestamptz NOT NULL,
    -- Global subjects have no id; every other subject has one without ':' so the key is unambiguous.
    CHECK ((subject_type = 'global' AND subject_id = '')
           OR (subject_type <> 'global' AND subject_id ~ '^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$')),
    -- The key is the code-built `<subject_type>:<subject_id>:<kind>:<slot>` (global: `global:<kind>:<slot>`).
    CHECK (canonical_key = CASE WHEN subject_type = 'global' THEN 'global:' || kind || ':' || slot
                                ELSE subject_type || ':' || subject_id || ':' || kind || ':' || slot END),
    CHECK (supersedes_observation_id IS DISTINCT FROM id),
    UNIQUE (org_id, id),
    -- The only observation-to-observation link, and never across orgs.
    FOREIGN KEY (org_id, supersedes_observation_id) REFERENCES observations.observations (org_id, id)
);

-- One current belief (active or stale) per (org, agent, key): the last wall behind the advisory lock.
CREATE UNIQUE INDEX observations_one_current
    ON observations.observations (org_id, agent_id, canonical_key) WHERE status IN ('active', 'stale');
-- A belief is superseded at most once: the chain is a line, walkable both ways.
CREATE UNIQUE INDEX observations_superseded_once
    ON observations.observations (supersedes_observation_id) WHERE supersedes_observation_id IS NOT NULL;
CREATE INDEX observations_kind_status ON observations.observations (org_id, agent_id, kind, status);
CREATE INDEX observations_key ON observations.observations (org_id, agent_id, canonical_key);
CREATE INDEX observations_revalidation ON observations.observations (org_id, agent_id, revalidation_due_at);
CREATE INDEX observations_ranked
    ON observations.observations (org_id, agent_id, confidence DESC, freshness DESC, id);
CREATE INDEX observations_subject ON observations.observations (org_id, subject_type, subject_id);
-- "What do we believe about this subject", best first, read straight off the index.
CREATE INDEX observations_subject_ranked
    ON observations.observations (org_id, agent_id, subject_type, subject_id, confidence DESC, freshness DESC, id);
-- Embeddings are unit vectors, so the inner product orders like the cosine and is cheaper.
-- Searches set hnsw.iterative_scan so an org filter never starves the result list.
CREATE INDEX observations_embedding ON observations.observations USING hnsw (embedding halfvec_ip_ops);

CREATE INDEX observations_full_text ON observations.observations USING gin (search_text);

CREATE TABLE observations.evidence (
    id                 uuid PRIMARY KEY,
    org_id             text NOT NULL,
    observation_id     uuid NOT NULL,
    stance             text NOT NULL CHECK (stance IN ('support', 'contradict', 'context')),
    weight             double precision NOT NULL CHECK (weight > 0 AND weight <= 10),
    -- Raw sources only: there is deliberately no 'observation' source type.
    source_type        text NOT NULL CHECK (source_type IN ('memory_item', 'message', 'episode', 'entity')),
    source_id          text NOT NULL CHECK (length(source_id) BETWEEN 1 AND 256),
    excerpt            text NOT NULL DEFAULT '' CHECK (length(excerpt) <= 2000),
    observed_at        timestamptz NOT NULL,
    operator_confirmed boolean NOT NULL DEFAULT false,
    created_at         timestamptz NOT NULL,
    FOREIGN KEY (org_id, observation_id) REFERENCES observations.observations (org_id, id)
);
CREATE INDEX evidence_observation ON observations.evidence (org_id, observation_id, created_at);
CREATE INDEX evidence_source ON observations.evidence (org_id, source_id);

-- Erasures: who, when, which subject, how much. No content.
CREATE TABLE observations.tombstones (
    id                  uuid PRIMARY KEY,
    org_id              text NOT NULL,
    subject_type        text NOT NULL,
    subject_id          text NOT NULL,
    principal           text NOT NULL,
    request_id          text NOT NULL DEFAULT '',
    observations_erased integer NOT NULL CHECK (observations_erased >= 0),
    evidence_erased     integer NOT NULL CHECK (evidence_erased >= 0),
    erased_at           timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tombstones_request ON observations.tombstones (org_id, request_id) WHERE request_id <> '';

-- Inside erase_subject current_user is the tables' owner, a role lore_app can never become.
CREATE FUNCTION observations.is_erasure() RETURNS boolean
    LANGUAGE sql STABLE
    RETURN current_user = (SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'observations.observations'::regclass);

CREATE FUNCTION observations.guard_observation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF observations.is_erasure() THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'observations are never deleted (only erase_subject may)' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.id, NEW.org_id, NEW.agent_id, NEW.kind, NEW.subject_type, NEW.subject_id, NEW.slot, NEW.canonical_key,
        NEW.summary, NEW.supersedes_observation_id, NEW.created_at)
       IS DISTINCT FROM
       (OLD.id, OLD.org_id, OLD.agent_id, OLD.kind, OLD.subject_type, OLD.subject_id, OLD.slot, OLD.canonical_key,
        OLD.summary, OLD.supersedes_observation_id, OLD.created_at) THEN
        RAISE EXCEPTION 'a change of belief is a new observation: identity, subject, key and summary are immutable'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status = 'superseded' AND NEW.status <> 'superseded' THEN
        RAISE EXCEPTION 'superseded is terminal' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER observations_guard BEFORE UPDATE OR DELETE ON observations.observations
    FOR EACH ROW EXECUTE FUNCTION observations.guard_observation();

-- Evidence is append-only (contradicting evidence above all), and points at raw sources only.
-- A source id that spells a uuid in any form Postgres accepts (case, braces, hyphens) is compared
-- as a uuid, so the check is a primary-key probe rather than a scan of the org's rows.
CREATE FUNCTION observations.guard_evidence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    digits text := translate(lower(btrim(NEW.source_id)), '{}-', '');
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF digits ~ '^[0-9a-f]{32}$' AND EXISTS (SELECT 1 FROM observations.observations o
                   WHERE o.id = digits::uuid AND o.org_id = NEW.org_id) THEN
            RAISE EXCEPTION 'evidence points at raw sources, never at an observation'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' AND observations.is_erasure() THEN RETURN OLD; END IF;
    RAISE EXCEPTION 'evidence is never changed or deleted (only erase_subject may delete it)'
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER evidence_guard BEFORE INSERT OR UPDATE OR DELETE ON observations.evidence
    FOR EACH ROW EXECUTE FUNCTION observations.guard_evidence();

CREATE FUNCTION observations.guard_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF observations.is_erasure() THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    RAISE EXCEPTION 'tombstones are written only by erase_subject and never changed'
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER tombstones_guard BEFORE INSERT OR UPDATE OR DELETE ON observations.tombstones
    FOR EACH ROW EXECUTE FUNCTION observations.guard_tombstone();

-- Erasure (ARCHITECTURE.md §2) for the org of this transaction (lore.org_id): a subject's
-- observations with all their evidence, plus any evidence pointing at the erased sources
-- (and, for an entity, at its canonical name). Idempotent: a replayed request id returns
-- its first tombstone; otherwise a repeat erases nothing and records zero counts.
CREATE FUNCTION observations.erase_subject(
    p_subject_type text, p_subject_id text, p_source_ids text[], p_principal text, p_request_id text
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
        WHERE o.org_id = tenant AND o.subject_type = p_subject_type AND o.subject_id = p_subject_id;
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

ALTER TABLE observations.observations ENABLE ROW LEVEL SECURITY;
CREATE POLICY observations_tenant ON observations.observations
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
ALTER TABLE observations.evidence ENABLE ROW LEVEL SECURITY;
CREATE POLICY evidence_tenant ON observations.evidence
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
ALTER TABLE observations.tombstones ENABLE ROW LEVEL SECURITY;
CREATE POLICY tombstones_tenant ON observations.tombstones
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));

-- The lexical side of SearchObservations. Under row-level security the planner may not evaluate
-- a non-leakproof operator such as tsvector @@ tsquery inside an index scan, so as lore_app every
-- full-text search would read the whole table. This function runs as the tables' owner (no RLS)
-- and applies the tenant filter itself, from the same setting the policies read.
CREATE FUNCTION observations.lexical_matches(
    p_query text, p_agent_id text, p_kinds text[], p_statuses text[], p_min_confidence float8, p_limit integer
) RETURNS TABLE (id uuid, lexical real)
    -- ROWS: at most p_limit (≤ 200), so the planner joins the result by primary key, not by a scan.
    LANGUAGE sql STABLE SECURITY DEFINER ROWS 100 SET search_path = pg_catalog, pg_temp AS $$
    WITH matches AS (
        SELECT o.id, o.search_text FROM observations.observations o
        WHERE o.org_id = current_setting('lore.org_id', true) AND o.agent_id = p_agent_id
          AND (cardinality(p_kinds) = 0 OR o.kind = ANY (p_kinds)) AND o.status = ANY (p_statuses)
          AND (p_min_confidence IS NULL OR o.confidence >= p_min_confidence)
          AND o.search_text @@ websearch_to_tsquery('english', p_query)
        -- Ranking reads every match from the heap: bounded, so a query of common words costs
        -- the same as a rare one (docs/observations.md, Search).
        LIMIT 500
    )
    SELECT m.id, ts_rank_cd(m.search_text, websearch_to_tsquery('english', p_query)) AS lexical
    FROM matches m ORDER BY lexical DESC LIMIT p_limit
$$;

-- The scheduled revalidation acts one org at a time; RLS hides the list of orgs from lore_app,
-- so this names them (ids only) for orgs with active beliefs past their revalidation date.
CREATE FUNCTION observations.orgs_due_for_revalidation(p_now timestamptz) RETURNS SETOF text
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT DISTINCT o.org_id FROM observations.observations o
    WHERE o.status = 'active' AND o.revalidation_due_at <= p_now
$$;
