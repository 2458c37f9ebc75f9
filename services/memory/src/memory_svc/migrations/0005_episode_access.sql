-- Episodes' uses are logged beside memories' (RecordEpisodeAccess): `kind` says which store
-- `memory_id` names. Episode and memory ids come from distinct UUIDv5 namespaces, so the unique
-- request index keeps making a retried call record each id once, whatever its kind.
ALTER TABLE memory.access_log
    ADD COLUMN kind text NOT NULL DEFAULT 'memory' CHECK (kind IN ('memory', 'episode'));
