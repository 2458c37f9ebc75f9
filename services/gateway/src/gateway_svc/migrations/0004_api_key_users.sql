-- A key may act for one user only (#25): like a JWT carrying the user claim, such a key is pinned
-- to that user (gateway_svc/api/user_pin.py). '' is an org-wide key, as every key made before is.
-- The rule is a Scope's userId's: at most 128 characters, no white space at either end.
ALTER TABLE gateway.api_keys ADD COLUMN user_id text NOT NULL DEFAULT ''
    CHECK (length(user_id) <= 128 AND user_id !~ '^\s|\s$');

-- The resolution returns the key's user too. A gateway of the previous release names its columns
-- (SELECT id, org_id, principal, scopes FROM ...), so it keeps working during a rolling upgrade.
DROP FUNCTION gateway.resolve_api_key(bytea);
CREATE FUNCTION gateway.resolve_api_key(p_key_hash bytea)
    RETURNS TABLE (id uuid, org_id text, principal text, scopes text[], user_id text)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
    SELECT k.id, k.org_id, k.principal, k.scopes, k.user_id
    FROM gateway.api_keys AS k
    WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL
$$;
