-- A turn's stored result is read only when a client retries the turn with the same idempotency
-- key, yet it holds the whole assembled context: measured at ~6.6 KB per exchange, about two
-- thirds of Postgres at scale (docs/scaling.md). The agent deletes results older than
-- LORE_AGENT_TURN_RESULT_DAYS; a retry after that gets a freshly assembled result.

CREATE INDEX turn_results_created_at ON agent.turn_results (created_at);

-- Every org's results older than p_before, at most p_limit at a time (short transactions): the
-- retention job runs as a system principal, while row-level security scopes the app role to one org.
CREATE FUNCTION agent.prune_turn_results(p_before timestamptz, p_limit integer)
    RETURNS integer
    LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    WITH doomed AS (
        SELECT turn_id FROM agent.turn_results WHERE created_at < p_before ORDER BY created_at LIMIT p_limit
    ), deleted AS (
        DELETE FROM agent.turn_results r USING doomed WHERE r.turn_id = doomed.turn_id RETURNING 1
    )
    SELECT count(*)::integer FROM deleted
$$;
