-- Idempotency-Key records per caller (gateway_svc/api/idempotency.py): a key is the namespace of its
-- org, principal AND the user its credential is pinned to ('' for an org-wide credential), so two
-- keys or tokens of one principal pinned to different users never share an answer.
--
-- A new table rather than a new primary key on the old one: a gateway of the previous release keeps
-- writing gateway.idempotency_records with ON CONFLICT (org_id, principal, key) during a rolling
-- upgrade, which needs that table's key as it is. This release reads and writes only the new table;
-- the old one is left to the previous release's pods, erased by both, purged until a later release
-- drops it.
CREATE TABLE gateway.caller_idempotency_records (
    org_id        text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    principal     text NOT NULL CHECK (length(principal) BETWEEN 1 AND 128),
    -- A pinned user follows a Scope's userId rule (gateway.api_keys.user_id); '' is org-wide.
    user_id       text NOT NULL DEFAULT '' CHECK (length(user_id) <= 128),
    key           text NOT NULL CHECK (key ~ '^[\x20-\x7e]{1,255}$'),
    method        text NOT NULL,
    path          text NOT NULL,
    -- sha256 of method, path, query string and body: a retry must send the same request.
    request_hash  bytea NOT NULL CHECK (length(request_hash) = 32),
    state         text NOT NULL CHECK (state IN ('in_progress', 'completed')),
    status_code   smallint CHECK (status_code BETWEEN 100 AND 599),
    content_type  text,
    body          bytea,
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    -- Whom the record concerns (0003_idempotency_subjects.sql): an erasure deletes it.
    subjects      text[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (org_id, principal, user_id, key),
    CHECK (state = 'in_progress' OR (status_code IS NOT NULL AND body IS NOT NULL))
);
CREATE INDEX caller_idempotency_records_expiry ON gateway.caller_idempotency_records (expires_at);
CREATE INDEX caller_idempotency_records_subjects ON gateway.caller_idempotency_records USING gin (subjects);

-- A second wall behind the WHERE clauses: the service role sees its tenant's records only.
ALTER TABLE gateway.caller_idempotency_records ENABLE ROW LEVEL SECURITY;
CREATE POLICY caller_idempotency_records_tenant ON gateway.caller_idempotency_records
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));

-- The live records kept so far answer their retries as before. Which user a pinned caller's record
-- was made for was never written down, so every one of them joins its principal's org-wide
-- namespace: an org-wide credential of that principal, which may read every user's records anyway,
-- could replay it; the pinned caller's own retry runs again (the services' idempotency applies).
INSERT INTO gateway.caller_idempotency_records
    (org_id, principal, user_id, key, method, path, request_hash, state, status_code, content_type, body,
     created_at, expires_at, subjects)
SELECT org_id, principal, '', key, method, path, request_hash, state, status_code, content_type, body,
       created_at, expires_at, subjects
FROM gateway.idempotency_records
WHERE expires_at > now();

-- Expired records go from both tables, a bounded batch of each at a time, as the schema owner: the
-- previous release calls this function by the same name, so it keeps its signature.
CREATE OR REPLACE FUNCTION gateway.purge_expired_idempotency_records(p_limit integer)
    RETURNS integer
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
    WITH gone AS (
        DELETE FROM gateway.caller_idempotency_records
        WHERE ctid = ANY (ARRAY(
            SELECT r.ctid FROM gateway.caller_idempotency_records AS r
            WHERE r.expires_at < now()
            ORDER BY r.expires_at
            LIMIT least(greatest(p_limit, 0), 1000)
            FOR UPDATE SKIP LOCKED
        ))
        RETURNING 1
    ), gone_before AS (
        DELETE FROM gateway.idempotency_records
        WHERE ctid = ANY (ARRAY(
            SELECT r.ctid FROM gateway.idempotency_records AS r
            WHERE r.expires_at < now()
            ORDER BY r.expires_at
            LIMIT least(greatest(p_limit, 0), 1000)
            FOR UPDATE SKIP LOCKED
        ))
        RETURNING 1
    )
    SELECT ((SELECT count(*) FROM gone) + (SELECT count(*) FROM gone_before))::integer
$$;
