from lore_runtime.settings import ServerSettings, env, service_address, service_database_url


class Settings(ServerSettings):
    addr: str = service_address("observations")
    database_url: str = service_database_url("observations", "Postgres schema `observations`")
    embeddings_base_url: str | None = env(
        "LORE_EMBEDDINGS_BASE_URL",
        default=None,
        description="OpenAI-compatible /v1/embeddings; the packaged model when unset",
    )
    embeddings_model: str | None = env("LORE_EMBEDDINGS_MODEL", default=None)
    embeddings_api_key: str | None = env("LORE_EMBEDDINGS_API_KEY", default=None)
    revalidation_interval_seconds: float = env(
        "LORE_REVALIDATION_INTERVAL_SECONDS",
        default=3600.0,
        description="period of the scheduled revalidation (one replica runs it); 0 turns it off",
        ge=0.0,
    )
