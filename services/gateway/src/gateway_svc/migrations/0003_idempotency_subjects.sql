-- Whom each idempotency record concerns (gateway_svc/idempotency_subjects.py): "user:<id>",
-- "agent:<id>", "team:<id>" for the scope ids its request or response names, "session:<id>" for a
-- session's routes. An erasure through the gateway (POST /v1/subjects:forget) deletes the records of
-- its subject and of the subject's sessions: the responses kept for replays hold their words.
-- Ids only; records written before this migration name nobody and expire with their TTL.
ALTER TABLE gateway.idempotency_records ADD COLUMN subjects text[] NOT NULL DEFAULT '{}';
-- Erasure looks records up by subject within an org.
CREATE INDEX idempotency_records_subjects ON gateway.idempotency_records USING gin (subjects);
