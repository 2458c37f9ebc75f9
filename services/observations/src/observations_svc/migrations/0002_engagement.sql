-- Engagement state, one per org (ARCHITECTURE.md §4, docs/engagement.md): the week,
-- hypotheses with their evidence lines and revisions, findings, unknowns. The row in
-- `engagements` is created by the org's first write, never by a read. Evidence lines,
-- revisions and findings are append-only, and a promoted or archived hypothesis is final,
-- even for direct SQL run as the service's role.

CREATE TABLE observations.engagements (
    org_id          text PRIMARY KEY CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    week_number     integer NOT NULL DEFAULT 1 CHECK (week_number >= 1),
    week_started_at timestamptz NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);

CREATE TABLE observations.hypotheses (
    id           uuid PRIMARY KEY,
    org_id       text NOT NULL REFERENCES observations.engagements (org_id),
    statement    text NOT NULL CHECK (length(btrim(statement)) BETWEEN 1 AND 500),
    confidence   double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    -- The confidence set by the last revision (0.5 at formation): the rule's prior.
    prior        double precision NOT NULL CHECK (prior BETWEEN 0 AND 1),
    status       text NOT NULL CHECK (status IN ('active', 'promoted', 'archived')),
    archive_note text NOT NULL DEFAULT '' CHECK (length(archive_note) <= 1000),
    finding_id   uuid,
    request_id   text NOT NULL DEFAULT '' CHECK (length(request_id) <= 128),
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    UNIQUE (org_id, id),
    CHECK ((status = 'archived') = (btrim(archive_note) <> '')),
    CHECK ((status = 'promoted') = (finding_id IS NOT NULL))
);
CREATE UNIQUE INDEX hypotheses_request ON observations.hypotheses (org_id, request_id) WHERE request_id <> '';
CREATE INDEX hypotheses_status ON observations.hypotheses (org_id, status, updated_at DESC);

CREATE TABLE observations.hypothesis_evidence (
    id            uuid PRIMARY KEY,
    org_id        text NOT NULL,
    hypothesis_id uuid NOT NULL,
    statement     text NOT NULL CHECK (length(btrim(statement)) BETWEEN 1 AND 500),
    stance        text NOT NULL CHECK (stance IN ('support', 'contradict')),
    weight        double precision NOT NULL CHECK (weight > 0 AND weight <= 10),
    source        text NOT NULL DEFAULT '' CHECK (length(source) <= 200),
    observed_at   timestamptz NOT NULL,
    recorded_at   timestamptz NOT NULL,
    -- How many revisions the hypothesis had when the line was added (older lines are reviewed).
    epoch         integer NOT NULL CHECK (epoch >= 0),
    request_id    text NOT NULL DEFAULT '' CHECK (length(request_id) <= 128),
    FOREIGN KEY (org_id, hypothesis_id) REFERENCES observations.hypotheses (org_id, id)
);
CREATE UNIQUE INDEX hypothesis_evidence_request
    ON observations.hypothesis_evidence (org_id, request_id) WHERE request_id <> '';
CREATE INDEX hypothesis_evidence_hypothesis ON observations.hypothesis_evidence (org_id, hypothesis_id, recorded_at, id);

CREATE TABLE observations.hypothesis_revisions (
    org_id              text NOT NULL,
    hypothesis_id       uuid NOT NULL,
    -- 1 for the first revision: the hypothesis's epoch after it.
    seq                 integer NOT NULL CHECK (seq >= 1),
    previous_statement  text NOT NULL,
    statement           text NOT NULL CHECK (length(btrim(statement)) BETWEEN 1 AND 500),
    previous_confidence double precision NOT NULL CHECK (previous_confidence BETWEEN 0 AND 1),
    confidence          double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    reason              text NOT NULL CHECK (length(btrim(reason)) BETWEEN 1 AND 1000),
    revised_at          timestamptz NOT NULL,
    PRIMARY KEY (org_id, hypothesis_id, seq),
    FOREIGN KEY (org_id, hypothesis_id) REFERENCES observations.hypotheses (org_id, id)
);

CREATE TABLE observations.findings (
    id            uuid PRIMARY KEY,
    org_id        text NOT NULL,
    hypothesis_id uuid NOT NULL,
    statement     text NOT NULL CHECK (length(btrim(statement)) BETWEEN 1 AND 500),
    source        text NOT NULL DEFAULT '' CHECK (length(source) <= 200),
    recorded_at   timestamptz NOT NULL,
    UNIQUE (org_id, id),
    -- A hypothesis becomes at most one finding.
    UNIQUE (org_id, hypothesis_id),
    FOREIGN KEY (org_id, hypothesis_id) REFERENCES observations.hypotheses (org_id, id)
);
CREATE INDEX findings_recorded ON observations.findings (org_id, recorded_at DESC, id);
ALTER TABLE observations.hypotheses
    ADD FOREIGN KEY (org_id, finding_id) REFERENCES observations.findings (org_id, id);

CREATE TABLE observations.unknowns (
    id             uuid PRIMARY KEY,
    org_id         text NOT NULL REFERENCES observations.engagements (org_id),
    question       text NOT NULL CHECK (length(btrim(question)) BETWEEN 1 AND 1000),
    why_it_matters text NOT NULL CHECK (length(btrim(why_it_matters)) BETWEEN 1 AND 1000),
    status         text NOT NULL CHECK (status IN ('open', 'resolved')),
    resolution     text NOT NULL DEFAULT '' CHECK (length(resolution) <= 1000),
    request_id     text NOT NULL DEFAULT '' CHECK (length(request_id) <= 128),
    created_at     timestamptz NOT NULL,
    resolved_at    timestamptz,
    CHECK ((status = 'resolved') = (resolved_at IS NOT NULL AND btrim(resolution) <> ''))
);
CREATE UNIQUE INDEX unknowns_request ON observations.unknowns (org_id, request_id) WHERE request_id <> '';
CREATE INDEX unknowns_status ON observations.unknowns (org_id, status, created_at DESC);

CREATE FUNCTION observations.engagement_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are never changed or deleted', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER hypothesis_evidence_append_only BEFORE UPDATE OR DELETE ON observations.hypothesis_evidence
    FOR EACH ROW EXECUTE FUNCTION observations.engagement_append_only();
CREATE TRIGGER hypothesis_revisions_append_only BEFORE UPDATE OR DELETE ON observations.hypothesis_revisions
    FOR EACH ROW EXECUTE FUNCTION observations.engagement_append_only();
CREATE TRIGGER findings_append_only BEFORE UPDATE OR DELETE ON observations.findings
    FOR EACH ROW EXECUTE FUNCTION observations.engagement_append_only();

CREATE FUNCTION observations.guard_hypothesis() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
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
CREATE TRIGGER hypotheses_guard BEFORE UPDATE OR DELETE ON observations.hypotheses
    FOR EACH ROW EXECUTE FUNCTION observations.guard_hypothesis();

ALTER TABLE observations.engagements ENABLE ROW LEVEL SECURITY;
CREATE POLICY engagements_tenant ON observations.engagements
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
ALTER TABLE observations.hypotheses ENABLE ROW LEVEL SECURITY;
CREATE POLICY hypotheses_tenant ON observations.hypotheses
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
ALTER TABLE observations.hypothesis_evidence ENABLE ROW LEVEL SECURITY;
CREATE POLICY hypothesis_evidence_tenant ON observations.hypothesis_evidence
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
ALTER TABLE observations.hypothesis_revisions ENABLE ROW LEVEL SECURITY;
CREATE POLICY hypothesis_revisions_tenant ON observations.hypothesis_revisions
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
ALTER TABLE observations.findings ENABLE ROW LEVEL SECURITY;
CREATE POLICY findings_tenant ON observations.findings
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
ALTER TABLE observations.unknowns ENABLE ROW LEVEL SECURITY;
CREATE POLICY unknowns_tenant ON observations.unknowns
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
