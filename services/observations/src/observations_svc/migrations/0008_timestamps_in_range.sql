-- Evidence times lie between 1900-01-01T00:00:00Z and the moment they were recorded plus five
-- minutes of clock skew (lore_runtime.timestamps; docs/operations.md "Stored times"). Evidence
-- recorded before that rule with an observed_at outside it (year 1, say) broke the hourly
-- revalidation of its belief: it moves to the nearest bound (1900-01-01, or the time it was
-- recorded), and the belief's derived times follow. Evidence is append-only; this repair is the
-- one exception, made with the guards off inside this migration's transaction. Idempotent.
ALTER TABLE observations.evidence DISABLE TRIGGER evidence_guard;
UPDATE observations.evidence SET observed_at = '1900-01-01T00:00:00Z' WHERE observed_at < '1900-01-01T00:00:00Z';
UPDATE observations.evidence SET observed_at = created_at WHERE observed_at > created_at + interval '5 minutes';
ALTER TABLE observations.evidence ENABLE TRIGGER evidence_guard;

ALTER TABLE observations.hypothesis_evidence DISABLE TRIGGER hypothesis_evidence_append_only;
UPDATE observations.hypothesis_evidence SET observed_at = '1900-01-01T00:00:00Z'
    WHERE observed_at < '1900-01-01T00:00:00Z';
UPDATE observations.hypothesis_evidence SET observed_at = recorded_at
    WHERE observed_at > recorded_at + interval '5 minutes';
ALTER TABLE observations.hypothesis_evidence ENABLE TRIGGER hypothesis_evidence_append_only;

UPDATE observations.observations SET last_supported_at = '1900-01-01T00:00:00Z'
    WHERE last_supported_at < '1900-01-01T00:00:00Z';
UPDATE observations.observations SET last_supported_at = updated_at
    WHERE last_supported_at > updated_at + interval '5 minutes';
-- Due long ago or in a far future computed from such evidence: due now, so revalidation recomputes it.
UPDATE observations.observations SET revalidation_due_at = now()
    WHERE revalidation_due_at < '1900-01-01T00:00:00Z' OR revalidation_due_at > '2999-12-31T23:59:59.999999Z';
