-- Every time a caller gives lies between 1900-01-01T00:00:00Z and 2999-12-31T23:59:59Z
-- (lore_runtime.timestamps; docs/operations.md "Stored times"). A turn imported before that rule
-- with a created_at outside it (year 1, say) could never be reflected: the memory service refuses
-- the time. Such a turn moves to the nearest bound. Turns are append-only; this repair is the one
-- exception, made with the guard off inside this migration's transaction. Idempotent.
ALTER TABLE agent.turns DISABLE TRIGGER turns_append_only;
UPDATE agent.turns SET created_at = '1900-01-01T00:00:00Z' WHERE created_at < '1900-01-01T00:00:00Z';
UPDATE agent.turns SET created_at = '2999-12-31T23:59:59.999999Z' WHERE created_at > '2999-12-31T23:59:59.999999Z';
ALTER TABLE agent.turns ENABLE TRIGGER turns_append_only;
