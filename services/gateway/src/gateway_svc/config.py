from lore_runtime.settings import DEFAULT_ADDRESSES, LoreSettings, env, service_address, service_database_url


class Settings(LoreSettings):
    addr: str = service_address("gateway")
    log_level: str = env("LORE_LOG_LEVEL", default="INFO")
    database_url: str = service_database_url("gateway", "Postgres schema `gateway` (API keys)")
    max_body_bytes: int = env("LORE_MAX_BODY_BYTES", default=2 * 1024 * 1024)
    rpc_timeout_seconds: float = env("LORE_RPC_TIMEOUT_SECONDS", default=30.0)
    memory_addr: str = env("LORE_MEMORY_ADDR", default=DEFAULT_ADDRESSES["memory"])
    observations_addr: str = env("LORE_OBSERVATIONS_ADDR", default=DEFAULT_ADDRESSES["observations"])
    assembler_addr: str = env("LORE_ASSEMBLER_ADDR", default=DEFAULT_ADDRESSES["assembler"])
    agent_addr: str = env("LORE_AGENT_ADDR", default=DEFAULT_ADDRESSES["agent"])
    status_timeout_seconds: float = env("LORE_STATUS_TIMEOUT_SECONDS", default=2.0)
    # Rate limits per credential and scope (gateway_svc/rate_limits.py), counted in Redis.
    redis_url: str | None = env("LORE_REDIS_URL", default=None, description="rate-limit counters; no limits when unset")
    rate_limit: str = env("LORE_RATE_LIMIT", default="50:100", description="requests/s:burst per credential and scope")
    rate_limits: str = env("LORE_RATE_LIMITS", default="", description="per-scope overrides: scope=rate:burst,…")

    @property
    def host(self) -> str:
        return self.addr.rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.addr.rsplit(":", 1)[1])

    def upstreams(self) -> dict[str, str]:
        return {
            "memory": self.memory_addr,
            "observations": self.observations_addr,
            "assembler": self.assembler_addr,
            "agent": self.agent_addr,
        }
