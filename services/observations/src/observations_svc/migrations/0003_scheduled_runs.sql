-- Which replica runs each scheduled job (revalidation), and how its last run went
-- (lore_runtime.scheduled). Not tenant data: the job visits every org as a system principal.
CREATE TABLE observations.scheduled_runs (
    job              text PRIMARY KEY CHECK (job ~ '^[a-z][a-z0-9_]{0,63}$'),
    holder           text NOT NULL DEFAULT '',
    lease_until      timestamptz NOT NULL DEFAULT '-infinity',
    last_started_at  timestamptz,
    last_finished_at timestamptz,
    last_status      text NOT NULL DEFAULT 'never' CHECK (last_status IN ('never', 'running', 'ok', 'failed')),
    last_result      jsonb NOT NULL DEFAULT '{}',
    last_error       text NOT NULL DEFAULT '' CHECK (length(last_error) <= 2000)
);
