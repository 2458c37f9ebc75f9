-- A memory reflection learnt again is reinforced as a use (usecases/restate.py): reason 'restated'.
ALTER TABLE memory.access_log DROP CONSTRAINT access_log_reason_check;
ALTER TABLE memory.access_log
    ADD CONSTRAINT access_log_reason_check
    CHECK (reason IN ('recall', 'assembled_context', 'prime', 'client', 'restated'));
