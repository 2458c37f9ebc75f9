-- An erasure's request id is its requester's, as a session's is (0008): unique per org and
-- requester (a digest of the caller's principal and pinned user). Another caller's equal request id
-- is another request: it records its own erasure and learns nothing of the first. Erasures requested
-- before keep '' and are no longer found by their request id; asking again records a new erasure,
-- which is harmless (erasure is idempotent).
ALTER TABLE agent.erasures ADD COLUMN requester text NOT NULL DEFAULT '' CHECK (requester ~ '^[0-9a-f]{0,32}$');
DROP INDEX agent.erasures_request;
CREATE UNIQUE INDEX erasures_request ON agent.erasures (org_id, requester, request_id) WHERE request_id <> '';
