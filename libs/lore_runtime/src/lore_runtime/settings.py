"""Typed settings read from ``LORE_*`` environment variables.

Each service declares a frozen pydantic model whose fields name their variables with
``env(...)``; ``load_settings`` validates a whole environment at once and reports every
missing or malformed variable together, so a misconfigured process fails at start-up with
one clear message instead of at its first request. Nothing reads ``os.environ`` at import
time: callers pass the mapping (``os.environ`` in ``__main__``, a dict in tests).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from typing import Annotated, Any, TypeVar

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
)

from lore_runtime.redaction import ALL_KINDS, Kind, parse_kinds
from lore_runtime.service_auth import ServiceCredentialSettings, ServiceTokenSettings
from lore_runtime.tls import TlsSettings

DEFAULT_ADDRESSES = {
    "memory": "127.0.0.1:50051",
    "observations": "127.0.0.1:50052",
    "assembler": "127.0.0.1:50053",
    "agent": "127.0.0.1:50054",
    "gateway": "127.0.0.1:8080",
}

# Where ``lore up`` serves each gRPC service's /metrics (the gateway serves its own on its HTTP port).
# A process started any other way serves none unless ``LORE_<SVC>_METRICS_ADDR`` is set: several
# instances on one machine (tests, replicas) never fight over a port.
LOCAL_METRICS_ADDRESSES = {
    "memory": "127.0.0.1:9461",
    "observations": "127.0.0.1:9462",
    "assembler": "127.0.0.1:9463",
    "agent": "127.0.0.1:9464",
}


class SettingsError(Exception):
    """The environment does not describe a runnable service; ``problems`` lists why."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid configuration:\n" + "\n".join(f"  - {p}" for p in problems))
        self.problems = problems


class LoreSettings(BaseModel):
    """Base of every service's settings: immutable, unknown keys ignored (it is an env)."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=False)


def env(*names: str, default: Any = ..., description: str = "", **bounds: float) -> Any:
    """A field read from the first of ``names`` that is set (later names are fallbacks);
    ``bounds`` are pydantic's numeric constraints (``ge``, ``gt``, ``le``, ``lt``)."""
    return Field(default, validation_alias=AliasChoices(*names), description=description, **bounds)


S = TypeVar("S", bound=LoreSettings)
E = TypeVar("E")


def load_settings(model: type[S], environ: Mapping[str, str]) -> S:
    # Empty strings mean "unset", as they do for most twelve-factor tools.
    values = {key: value for key, value in environ.items() if key.startswith("LORE_") and value != ""}
    try:
        return model.model_validate(values)
    except ValidationError as error:
        raise SettingsError([_describe(model, problem) for problem in error.errors()]) from None


def _describe(model: type[LoreSettings], problem: Mapping[str, Any]) -> str:
    if not problem.get("loc"):  # a check across fields (e.g. the TLS files) names its variables itself
        return str(problem.get("msg")).removeprefix("Value error, ")
    # pydantic reports the first alias of the field; name all the variables that set it.
    location = str(problem["loc"][0]) if problem.get("loc") else "?"
    variables = location
    for field in model.model_fields.values():
        choices = field.validation_alias.choices if isinstance(field.validation_alias, AliasChoices) else []
        if location in choices:
            variables = " or ".join(str(choice) for choice in choices)
    if problem.get("type") == "missing":
        return f"{variables} is required"
    return f"{variables}: {problem.get('msg')}"


def _comma_separated(value: object) -> object:
    return frozenset(part.strip() for part in value.split(",") if part.strip()) if isinstance(value, str) else value


# Ids in one variable, comma-separated: "aria, ada" -> {"aria", "ada"}; empty -> none.
IdSet = Annotated[frozenset[str], BeforeValidator(_comma_separated)]


# The kinds of secret redacted (lore_runtime/redaction.py): "card,iban,…", "all" or "none".
RedactKinds = Annotated[frozenset[Kind], BeforeValidator(parse_kinds)]


def redact_kinds() -> Any:
    """``LORE_REDACT``: the kinds of secret replaced by placeholders in every request's text and every
    log line (lore_runtime/redaction.py); every kind by default, ``none`` for none."""
    return env(
        "LORE_REDACT",
        default=ALL_KINDS,
        description="secrets replaced before anything is kept: card,iban,password,api_key,ssn,nino; all; none",
    )


def engagement_agents(description: str) -> Any:
    """``LORE_ENGAGEMENT_AGENTS``: the agents that use engagement state (docs/engagement.md); none by default."""
    return env("LORE_ENGAGEMENT_AGENTS", default=frozenset(), description=description)


def service_database_url(service: str, description: str = "") -> Any:
    """``LORE_<SVC>_DATABASE_URL``, else ``LORE_DATABASE_URL`` (ARCHITECTURE.md §7)."""
    return env(f"LORE_{service.upper()}_DATABASE_URL", "LORE_DATABASE_URL", description=description)


def service_address(service: str) -> Any:
    return env(f"LORE_{service.upper()}_ADDR", default=DEFAULT_ADDRESSES[service])


def service_metrics_address(service: str) -> Any:
    return env(
        f"LORE_{service.upper()}_METRICS_ADDR",
        default=None,
        description="host:port of the Prometheus /metrics page (port 0: any free one); none when unset",
    )


def service_health_address(service: str) -> Any:
    return env(
        f"LORE_{service.upper()}_HEALTH_ADDR",
        default=None,
        description="host:port of a plaintext listener serving only grpc.health.v1 (probes under mTLS); none if unset",
    )


def redis_timeout() -> Any:
    """``LORE_REDIS_TIMEOUT_SECONDS``: every Redis call's deadline (lore_runtime/stores.py ``open_redis``)."""
    return env(
        "LORE_REDIS_TIMEOUT_SECONDS",
        default=1.0,
        description="deadline of every Redis call; a stalled Redis answers UNAVAILABLE after it",
        gt=0,
        le=30,
    )


class ServerSettings(LoreSettings, ServiceCredentialSettings):
    """What every gRPC server process needs besides its own stores; each service names its own
    ``metrics_addr`` and ``health_addr`` variables (and its ``addr``, ``database_url``) through
    ``service_settings``; ``LORE_TLS_*`` come from ``TlsSettings`` (lore_runtime/tls.py), and
    ``LORE_SERVICE_TOKEN`` (required without TLS) from lore_runtime/service_auth.py."""

    metrics_addr: str | None = None
    health_addr: str | None = None

    @field_validator("metrics_addr", "health_addr")
    @classmethod
    def _host_and_port(cls, value: str | None) -> str | None:
        _host, separator, port = (value or "").rpartition(":")
        if value is not None and not (separator and port.isdigit() and int(port) <= 65535):
            raise ValueError("must be host:port, e.g. 0.0.0.0:9090 or 127.0.0.1:0")
        return value

    log_level: str = env("LORE_LOG_LEVEL", default="INFO")
    redact: RedactKinds = redact_kinds()
    drain_seconds: float = env("LORE_DRAIN_SECONDS", default=2.0, description="NOT_SERVING before stopping")
    stop_grace_seconds: float = env("LORE_STOP_GRACE_SECONDS", default=10.0)
    dependency_check_seconds: float = env("LORE_DEPENDENCY_CHECK_SECONDS", default=5.0)
    # GOAWAY after this long (gRPC adds +-10% jitter): clients re-resolve the headless Service's DNS
    # and spread onto replicas added since; in-flight calls finish on the old connection.
    grpc_max_connection_age_seconds: float = env(
        "LORE_GRPC_MAX_CONNECTION_AGE_SECONDS", default=300.0, ge=0, description="0: connections never age out"
    )
    grpc_max_connection_age_grace_seconds: float | None = env(
        "LORE_GRPC_MAX_CONNECTION_AGE_GRACE_SECONDS",
        default=None,
        gt=0,
        description="then close it even with calls in flight; unset: never (a reindex stream may run for hours)",
    )


class DialSettings(LoreSettings, TlsSettings, ServiceTokenSettings):
    """What a process that only calls Lore's services (the operator CLI) reads: the TLS files and the
    service token (optional here: the CLI falls back on the local stack's token file)."""


class EmbeddingServerSettings(ServerSettings):
    """A server that embeds text (memory, observations, the agent for episode summaries): the model it
    uses, packaged by default."""

    embeddings_base_url: str | None = env(
        "LORE_EMBEDDINGS_BASE_URL",
        default=None,
        description="OpenAI-compatible /v1/embeddings; the packaged model when unset",
    )
    embeddings_model: str | None = env("LORE_EMBEDDINGS_MODEL", default=None)
    embeddings_api_key: str | None = env("LORE_EMBEDDINGS_API_KEY", default=None)
    embeddings_threads: int | None = env(
        "LORE_EMBEDDINGS_THREADS",
        default=None,
        description="threads of one packaged-model run; the process's CPUs (at most 4) when unset",
        ge=1,
        le=64,
    )
    embedding_cache_size: int = env(
        "LORE_EMBEDDING_CACHE_SIZE",
        default=1024,
        description="query embeddings a searching service keeps (an LRU, ~1.5 KiB each: agents ask the same"
        " thing again); 0 turns it off",
        ge=0,
    )

    async def open_embedder(self, stack: AsyncExitStack, opener: Callable[..., Awaitable[E]]) -> E:
        """The configured model, opened by ``opener`` (``lore_embeddings.open_embedder``, which
        lore_runtime does not depend on) and closed when ``stack`` unwinds."""
        return await opener(
            stack,
            self.embeddings_base_url,
            self.embeddings_model,
            self.embeddings_api_key,
            intra_op_threads=self.embeddings_threads,
        )

    async def open_query_embedder(self, stack: AsyncExitStack, opener: Callable[..., Awaitable[E]]) -> E:
        """``open_embedder`` for a service whose searches embed queries: ``opener``
        (``lore_embeddings.open_query_embedder``) puts an LRU of ``LORE_EMBEDDING_CACHE_SIZE`` in front."""
        return await opener(
            stack,
            self.embeddings_base_url,
            self.embeddings_model,
            self.embeddings_api_key,
            intra_op_threads=self.embeddings_threads,
            cache_size=self.embedding_cache_size,
        )


SS = TypeVar("SS", bound=ServerSettings)


def service_settings(service: str, base: type[SS], database: str | None = None) -> type[SS]:
    """``base`` with the fields a service names after itself: ``addr`` (``LORE_<SVC>_ADDR``),
    ``metrics_addr``, ``health_addr`` and, when ``database`` describes its use, ``database_url``."""
    fields: dict[str, Any] = {
        "addr": (str, service_address(service)),
        "metrics_addr": (str | None, service_metrics_address(service)),
        "health_addr": (str | None, service_health_address(service)),
    }
    if database is not None:
        fields["database_url"] = (str, service_database_url(service, database))
    return create_model(f"{service.title()}{base.__name__}", __base__=base, __module__=base.__module__, **fields)
