-- Daily digests (docs/agent.md): the scopes with a session active in a period, across orgs. The
-- digest job runs as a system principal, then works inside one org at a time.
CREATE FUNCTION agent.active_scopes(p_from timestamptz, p_to timestamptz)
    RETURNS TABLE (org_id text, user_id text, agent_id text, team_id text)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    SELECT DISTINCT s.org_id, s.user_id, s.agent_id, s.team_id FROM agent.sessions s
    WHERE s.started_at < p_to AND s.last_active_at >= p_from
    ORDER BY 1, 2, 3, 4
$$;
