from lore_runtime.settings import (
    EmbeddingServerSettings,
    env,
    service_address,
    service_database_url,
    service_health_address,
    service_metrics_address,
)


class Settings(EmbeddingServerSettings):
    addr: str = service_address("observations")
    metrics_addr: str | None = service_metrics_address("observations")
    health_addr: str | None = service_health_address("observations")
    database_url: str = service_database_url("observations", "Postgres schema `observations`")
    revalidation_interval_seconds: float = env(
        "LORE_REVALIDATION_INTERVAL_SECONDS",
        default=3600.0,
        description="period of the scheduled revalidation (one replica runs it); 0 turns it off",
        ge=0.0,
    )
