-- Each org's belief-order generation (QueryObservations keyset paging): revalidation, the
-- background job that rewrites confidence and freshness, advances it, and a page token cut under
-- another generation is refused, since the order has moved under it. No row means generation 0.
CREATE TABLE observations.order_generations (
    org_id     text PRIMARY KEY CHECK (org_id ~ '^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$'),
    generation bigint NOT NULL DEFAULT 0 CHECK (generation >= 0),
    changed_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE observations.order_generations ENABLE ROW LEVEL SECURITY;
CREATE POLICY order_generations_tenant ON observations.order_generations
    USING (org_id = current_setting('lore.org_id', true))
    WITH CHECK (org_id = current_setting('lore.org_id', true));
