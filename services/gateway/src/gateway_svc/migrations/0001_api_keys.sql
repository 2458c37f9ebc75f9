-- API keys: random secrets stored only as SHA-256 digests.
CREATE TABLE gateway.api_keys (
    id           uuid PRIMARY KEY,
    org_id       text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    principal    text NOT NULL CHECK (length(principal) BETWEEN 1 AND 128),
    name         text NOT NULL DEFAULT '',
    key_hash     bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    scopes       text[] NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_keys_org ON gateway.api_keys (org_id, created_at DESC);

-- A second wall behind the WHERE clauses: the service role sees its tenant's keys only.
ALTER TABLE gateway.api_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY api_keys_tenant ON gateway.api_keys
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));

-- Authentication happens before the tenant is known: resolve one digest to one live key,
-- as the schema owner, and nothing else.
CREATE FUNCTION gateway.resolve_api_key(p_key_hash bytea)
    RETURNS TABLE (id uuid, org_id text, principal text, scopes text[])
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
    SELECT k.id, k.org_id, k.principal, k.scopes
    FROM gateway.api_keys AS k
    WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL
$$;
