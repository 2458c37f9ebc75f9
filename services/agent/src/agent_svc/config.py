from lore_runtime.settings import (
    DEFAULT_ADDRESSES,
    EmbeddingServerSettings,
    IdSet,
    engagement_agents,
    env,
    service_settings,
)


# Embedding settings: episode summaries pick the central sentences with the packaged model.
class Settings(service_settings("agent", EmbeddingServerSettings, database="Postgres schema `agent`")):
    memory_addr: str = env("LORE_MEMORY_ADDR", default=DEFAULT_ADDRESSES["memory"])
    observations_addr: str = env("LORE_OBSERVATIONS_ADDR", default=DEFAULT_ADDRESSES["observations"])
    assembler_addr: str = env("LORE_ASSEMBLER_ADDR", default=DEFAULT_ADDRESSES["assembler"])
    # The optional language model (docs/language-model.md): replies and richer extraction.
    llm_base_url: str | None = env(
        "LORE_LLM_BASE_URL",
        default=None,
        description="OpenAI-compatible base URL; rule-based extraction, no reply, when unset",
    )
    llm_model: str = env("LORE_LLM_MODEL", default="gpt-4o-mini")
    llm_api_key: str | None = env("LORE_LLM_API_KEY", default=None)
    llm_timeout_ms: int = env("LORE_LLM_TIMEOUT_MS", default=20_000, ge=100, le=600_000)
    llm_reply_timeout_ms: int = env(
        "LORE_LLM_REPLY_TIMEOUT_MS",
        default=10_000,
        ge=100,
        le=600_000,
        description="the reply's deadline inside the turn; past it the turn answers with the context and no reply",
    )
    llm_concurrency: int = env(
        "LORE_LLM_CONCURRENCY", default=2, ge=1, le=64, description="extraction calls in flight to the model"
    )
    llm_max_tokens: int = env("LORE_LLM_MAX_TOKENS", default=1024, ge=16, le=32_768)
    # The durable job queue (reflection, episodes).
    jobs_enabled: bool = env("LORE_AGENT_JOBS_ENABLED", default=True, description="run the job worker in this process")
    job_concurrency: int = env("LORE_AGENT_JOB_CONCURRENCY", default=4, ge=1, le=64)
    job_max_attempts: int = env("LORE_AGENT_JOB_MAX_ATTEMPTS", default=8, ge=1, le=100)
    job_backoff_ms: int = env("LORE_AGENT_JOB_BACKOFF_MS", default=1_000, ge=10, le=3_600_000)
    job_history_days: float = env(
        "LORE_AGENT_JOB_HISTORY_DAYS", default=7.0, ge=0, description="pgqueuer's log and statistics kept (0: forever)"
    )
    turn_result_days: float = env(
        "LORE_AGENT_TURN_RESULT_DAYS",
        default=7.0,
        ge=0,
        description="how long a turn's result is kept for a retry to get it back (0: forever)",
    )
    job_heartbeat_seconds: float = env("LORE_AGENT_JOB_HEARTBEAT_SECONDS", default=30.0, ge=1, le=3_600)
    # Session boundaries.
    idle_session_minutes: float = env("LORE_IDLE_SESSION_MINUTES", default=30.0, gt=0)
    idle_scan_seconds: float = env("LORE_IDLE_SCAN_SECONDS", default=60.0, ge=0, description="0 disables the scan")
    # Daily digests: one per scope and day with sessions, ageing active -> warm -> archived.
    digest_interval_seconds: float = env(
        "LORE_DIGEST_INTERVAL_SECONDS", default=86_400.0, ge=0, description="0 disables the digests"
    )
    digest_warm_after_days: int = env("LORE_DIGEST_WARM_AFTER_DAYS", default=7, ge=1)
    digest_archive_after_days: int = env("LORE_DIGEST_ARCHIVE_AFTER_DAYS", default=30, ge=2)
    # Engagement state (docs/engagement.md): written only by the reflection of these agents' sessions.
    engagement_agents: IdSet = engagement_agents(
        "comma-separated agent ids whose reflection writes hypotheses and unknowns; none when empty"
    )
