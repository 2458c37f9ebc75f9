-- Each org's salience-order generation (ListMemories keyset paging): a decay run that rewrites
-- stored salience advances it, and a salience-ordered page token cut under another generation is
-- refused, since its order has moved under it. Orgs that never decayed have no row (generation 0).
CREATE TABLE memory.order_generations (
    org_id     text PRIMARY KEY CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    salience   bigint NOT NULL DEFAULT 0 CHECK (salience >= 0),
    changed_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE memory.order_generations ENABLE ROW LEVEL SECURITY;
CREATE POLICY order_generations_tenant ON memory.order_generations
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
