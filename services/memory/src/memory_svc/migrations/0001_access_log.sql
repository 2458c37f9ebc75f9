-- Which memories were actually used, by whom and why (ARCHITECTURE.md §3): a Recall that
-- records access, or RecordAccess for the items an assembled context kept.
CREATE TABLE memory.access_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id      text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    memory_id   uuid NOT NULL,
    user_id     text NOT NULL DEFAULT '',
    session_id  text NOT NULL DEFAULT '' CHECK (length(session_id) <= 256),
    reason      text NOT NULL CHECK (reason IN ('recall', 'assembled_context', 'prime', 'client')),
    principal   text NOT NULL DEFAULT '' CHECK (length(principal) <= 256),
    request_id  text NOT NULL DEFAULT '' CHECK (length(request_id) <= 256),
    accessed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX access_log_memory ON memory.access_log (org_id, memory_id, accessed_at DESC);
CREATE INDEX access_log_user ON memory.access_log (org_id, user_id) WHERE user_id <> '';
-- A retried RecordAccess (same request id) records each memory once.
CREATE UNIQUE INDEX access_log_request ON memory.access_log (org_id, request_id, memory_id) WHERE request_id <> '';

ALTER TABLE memory.access_log ENABLE ROW LEVEL SECURITY;
CREATE POLICY access_log_tenant ON memory.access_log
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
