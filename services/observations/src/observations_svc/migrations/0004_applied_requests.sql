-- Replays of Observe, ConfirmObservation and ContradictObservation: a request id seen before
-- returns the observation the first call produced, with its outcome, and writes nothing.
-- Checked and recorded inside the write's own transaction, under the canonical key's lock.
CREATE TABLE observations.applied_requests (
    org_id         text NOT NULL,
    request_id     text NOT NULL CHECK (request_id <> '' AND length(request_id) <= 128),
    method         text NOT NULL CHECK (method IN ('observe', 'confirm', 'contradict')),
    observation_id uuid NOT NULL,
    outcome        text NOT NULL CHECK (outcome IN ('created', 'supported', 'contradicted', 'superseded')),
    applied_at     timestamptz NOT NULL,
    PRIMARY KEY (org_id, request_id)
);

ALTER TABLE observations.applied_requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY applied_requests_tenant ON observations.applied_requests
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
