-- A session's request id is its requester's (ARCHITECTURE.md §2, docs/agent.md): unique per org and
-- requester, a digest of the caller's principal and of the user its credential is pinned to ('' for
-- an org-wide credential). Another caller's equal request id is another request: it starts its own
-- session and learns nothing of the first. Sessions started before keep '' and are no longer found
-- by their request id.
ALTER TABLE agent.sessions ADD COLUMN requester text NOT NULL DEFAULT '' CHECK (requester ~ '^[0-9a-f]{0,32}$');
DROP INDEX agent.sessions_request;
CREATE UNIQUE INDEX sessions_request ON agent.sessions (org_id, requester, request_id) WHERE request_id <> '';
