from lore_runtime.settings import (
    DEFAULT_ADDRESSES,
    IdSet,
    ServerSettings,
    engagement_agents,
    env,
    service_settings,
)

from assembler_svc.domain.priming import PrimeLimits


class Settings(service_settings("assembler", ServerSettings)):
    memory_addr: str = env("LORE_MEMORY_ADDR", default=DEFAULT_ADDRESSES["memory"])
    observations_addr: str = env("LORE_OBSERVATIONS_ADDR", default=DEFAULT_ADDRESSES["observations"])
    source_timeout_ms: int = env(
        "LORE_ASSEMBLER_SOURCE_TIMEOUT_MS",
        default=800,
        description="deadline of each source of the fan-out; a slower source is reported unavailable",
        ge=10,
        le=60_000,
    )
    weight_similarity: float = env("LORE_ASSEMBLER_WEIGHT_SIMILARITY", default=0.4, ge=0.0, le=10.0)
    weight_recency: float = env("LORE_ASSEMBLER_WEIGHT_RECENCY", default=0.3, ge=0.0, le=10.0)
    weight_importance: float = env("LORE_ASSEMBLER_WEIGHT_IMPORTANCE", default=0.3, ge=0.0, le=10.0)
    min_score: float = env(
        "LORE_ASSEMBLER_MIN_SCORE", default=0.3, description="candidates scoring less are dropped", ge=0.0, le=1.0
    )
    duplicate_cosine: float = env(
        "LORE_ASSEMBLER_DUPLICATE_COSINE",
        default=0.85,
        description="two candidates closer than this are near-duplicates (the newest is kept)",
        gt=0.0,
        le=1.0,
    )
    share_unused_budget: bool = env(
        "LORE_ASSEMBLER_SHARE_UNUSED_BUDGET",
        default=True,
        description="tokens a section leaves unused go to the sections that ran out (not to ones a caller set)",
    )
    prime_episodes: int = env("LORE_PRIME_EPISODES", default=3, description="episodes in a Prime", ge=0, le=100)
    prime_threads: int = env("LORE_PRIME_THREADS", default=5, description="open threads in a Prime", ge=0, le=100)
    prime_facts: int = env("LORE_PRIME_FACTS", default=10, description="salient facts in a Prime", ge=0, le=100)
    prime_min_salience: float = env(
        "LORE_PRIME_MIN_SALIENCE",
        default=0.3,
        description="episodes under this salience are not primed",
        ge=0.0,
        le=1.0,
    )
    profile_max_tokens: int = env(
        "LORE_ASSEMBLER_PROFILE_MAX_TOKENS",
        default=300,
        description="what a user profile may grow to with what is known (from 100 tokens), in a context "
        "taken from the memories section's share",
        ge=20,
        le=4_000,
    )
    engagement_agents: IdSet = engagement_agents(
        "comma-separated agent ids whose contexts show the engagement state; none when empty"
    )

    def prime_limits(self) -> PrimeLimits:
        return PrimeLimits(self.prime_episodes, self.prime_threads, self.prime_facts, self.prime_min_salience)
