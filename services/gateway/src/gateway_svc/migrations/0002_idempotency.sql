-- Idempotency-Key records: the first response to a POST, replayed to its retries (gateway_svc/idempotency.py).
-- A key is its caller's namespace: the same key from another principal or org is another record.
CREATE TABLE gateway.idempotency_records (
    org_id        text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    principal     text NOT NULL CHECK (length(principal) BETWEEN 1 AND 128),
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
    PRIMARY KEY (org_id, principal, key),
    CHECK (state = 'in_progress' OR (status_code IS NOT NULL AND body IS NOT NULL))
);
CREATE INDEX idempotency_records_expiry ON gateway.idempotency_records (expires_at);

-- A second wall behind the WHERE clauses: the service role sees its tenant's records only.
ALTER TABLE gateway.idempotency_records ENABLE ROW LEVEL SECURITY;
CREATE POLICY idempotency_records_tenant ON gateway.idempotency_records
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));

-- Expired records of every tenant go, a bounded batch at a time, as the schema owner (the
-- service role sees one tenant only). Returns how many went.
CREATE FUNCTION gateway.purge_expired_idempotency_records(p_limit integer)
    RETURNS integer
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
    WITH gone AS (
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
    SELECT count(*)::integer FROM gone
$$;
