-- A turn that asked to forget ("forget what I said about my address") keeps what that came to with
-- its result, so a retry with the same idempotency key answers the same `forgotten` list and status
-- (the records are archived already: searching again would find nothing).

ALTER TABLE agent.turn_results
    ADD COLUMN forget_status text NOT NULL DEFAULT '',
    ADD COLUMN forgotten jsonb NOT NULL DEFAULT '[]'::jsonb;
