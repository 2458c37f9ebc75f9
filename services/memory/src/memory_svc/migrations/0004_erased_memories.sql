-- The ids of memories ForgetSubject erased. Ids are deterministic (a UUIDv5 of org, scope and the
-- write's idempotency key), so a write replayed after the erasure would re-create the item: Remember
-- refuses ids listed here. An id is a one-way hash: it holds nothing of the erased person's data.
CREATE TABLE memory.erased_memories (
    org_id    text NOT NULL CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    memory_id uuid NOT NULL,
    erased_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, memory_id)
);

ALTER TABLE memory.erased_memories ENABLE ROW LEVEL SECURITY;
CREATE POLICY erased_memories_tenant ON memory.erased_memories
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
