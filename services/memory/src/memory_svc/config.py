from lore_runtime.settings import (
    EmbeddingServerSettings,
    env,
    redis_timeout,
    service_settings,
)
from pydantic import field_validator

from memory_svc.domain.model import MemoryType
from memory_svc.domain.salience import episode_half_life, parse_half_lives


class Settings(service_settings("memory", EmbeddingServerSettings, database="Postgres schema `memory` (access log)")):
    redis_url: str = env("LORE_REDIS_URL", description="working memory and session leases")
    redis_timeout_seconds: float = redis_timeout()
    qdrant_url: str | None = env("LORE_QDRANT_URL", default=None, description="Qdrant server; embedded when unset")
    qdrant_api_key: str | None = env("LORE_QDRANT_API_KEY", default=None)
    data_dir: str = env("LORE_DATA_DIR", default=".lore", description="embedded Qdrant's files live below it")
    optimize_interval_seconds: float = env(
        "LORE_QDRANT_OPTIMIZE_SECONDS",
        default=300.0,
        description="embedded Qdrant: background index optimisation period",
    )
    optimize_in_child: bool = env(
        "LORE_QDRANT_OPTIMIZE_IN_CHILD",
        default=True,
        description="embedded Qdrant: optimise a copy of each shard in a child process and swap it in,"
        " and so a purge's compaction (false: both in the service's process, which holds calls meanwhile)",
    )
    optimize_niceness: int = env(
        "LORE_QDRANT_OPTIMIZE_NICE",
        default=10,
        description="embedded Qdrant: the niceness added to the optimising child process",
        ge=0,
        le=19,
    )
    working_memory_turns: int = env(
        "LORE_WORKING_MEMORY_TURNS", default=20, description="turns kept per session (1..200)"
    )
    working_memory_ttl_seconds: float = env(
        "LORE_WORKING_MEMORY_TTL_SECONDS",
        default=86400.0,
        description="idle time before a session's working memory expires",
    )
    consolidation_threshold: float = env(
        "LORE_CONSOLIDATION_THRESHOLD",
        default=0.92,
        description="cosine above which two items of one scope and type are folded (0.8..1)",
        ge=0.8,
        lt=1.0,
    )
    maintenance_interval_seconds: float = env(
        "LORE_MAINTENANCE_INTERVAL_SECONDS",
        default=86400.0,
        description="period of the decay + consolidation job (one replica runs it); 0 turns it off",
        ge=0.0,
    )
    erasure_purge_delay_seconds: float = env(
        "LORE_ERASURE_PURGE_DELAY_SECONDS",
        default=60.0,
        description="how soon after an erasure the stores' files are rewritten without the erased data",
        ge=0.0,
    )
    access_flush_seconds: float = env(
        "LORE_ACCESS_FLUSH_SECONDS",
        default=0.25,
        description="how often the uses recorded behind Recall's and RecordAccess's answers are written"
        " (a crash loses at most this much)",
        gt=0.0,
        le=60.0,
    )
    access_buffer_size: int = env(
        "LORE_ACCESS_BUFFER_SIZE",
        default=10_000,
        description="uses waiting to be written at most; more are dropped and counted",
        ge=1,
    )
    # Seed 001: every memory type fades with a 30-day half-life unless overridden here.
    half_life_days: str = env(
        "LORE_HALF_LIFE_DAYS",
        default="",
        description="per-type salience half-life overrides in days: type=days,… (default 30 for every type;"
        " episodes' key is `episode`)",
    )

    @field_validator("half_life_days")
    @classmethod
    def _parsable_half_lives(cls, value: str) -> str:
        parse_half_lives(value)  # refused at start, not on the first decay run; names the bad entry
        return value

    @property
    def half_lives(self) -> dict[MemoryType, float]:
        return parse_half_lives(self.half_life_days)

    @property
    def episode_half_life_days(self) -> float:
        return episode_half_life(self.half_life_days)
