from lore_runtime.settings import (
    EmbeddingServerSettings,
    env,
    service_settings,
)


class Settings(service_settings("observations", EmbeddingServerSettings, database="Postgres schema `observations`")):
    revalidation_interval_seconds: float = env(
        "LORE_REVALIDATION_INTERVAL_SECONDS",
        default=3600.0,
        description="period of the scheduled revalidation (one replica runs it); 0 turns it off",
        ge=0.0,
    )
