"""Which package holds each Postgres schema's migrations (``<package>/migrations/NNNN_*.sql``).

Each service owns its schema; ``lore migrate`` applies them all, as the owner role.
"""

SCHEMAS: dict[str, str] = {
    "agent": "agent_svc",
    "gateway": "gateway_svc",
    "memory": "memory_svc",
    "observations": "observations_svc",
}
