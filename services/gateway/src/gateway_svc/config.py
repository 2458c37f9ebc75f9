from pathlib import Path

from lore_runtime.errors import InvalidArgument
from lore_runtime.service_auth import ServiceCredentialSettings
from lore_runtime.settings import (
    DEFAULT_ADDRESSES,
    LoreSettings,
    RedactKinds,
    env,
    redact_kinds,
    redis_timeout,
    service_address,
    service_database_url,
)
from pydantic import SecretStr, ValidationInfo, field_validator

from gateway_svc.api.auth.auth_failures import Network, parse_networks
from gateway_svc.api.auth.jwt_verifier import rs256_public_keys
from gateway_svc.api.json.json_limits import DEFAULT_MAX_DEPTH, HIGHEST_MAX_DEPTH
from gateway_svc.domain.rate_limits import parse_limit, parse_limits


class Settings(LoreSettings, ServiceCredentialSettings):
    # ServiceCredentialSettings: LORE_TLS_* or LORE_SERVICE_TOKEN, what the services ask of every call.
    addr: str = service_address("gateway")
    log_level: str = env("LORE_LOG_LEVEL", default="INFO")
    # The secrets kept out of idempotency records and log lines (the services redact what they receive).
    redact: RedactKinds = redact_kinds()
    database_url: str = service_database_url("gateway", "Postgres schema `gateway` (API keys)")
    max_body_bytes: int = env("LORE_MAX_BODY_BYTES", default=2 * 1024 * 1024)
    body_timeout_seconds: float = env(
        "LORE_BODY_TIMEOUT_SECONDS",
        default=10.0,
        description="a request body must arrive within this of its headers, else 408 (api/http/body_timeout.py)",
        gt=0,
    )
    max_json_depth: int = env(
        "LORE_MAX_JSON_DEPTH",
        default=DEFAULT_MAX_DEPTH,
        description="deepest nesting of a JSON body",
        ge=8,
        le=HIGHEST_MAX_DEPTH,
    )
    idempotency_ttl_seconds: int = env(
        "LORE_IDEMPOTENCY_TTL_SECONDS", default=86400, description="how long an Idempotency-Key is replayed", gt=0
    )
    rpc_timeout_seconds: float = env("LORE_RPC_TIMEOUT_SECONDS", default=30.0)
    memory_addr: str = env("LORE_MEMORY_ADDR", default=DEFAULT_ADDRESSES["memory"])
    observations_addr: str = env("LORE_OBSERVATIONS_ADDR", default=DEFAULT_ADDRESSES["observations"])
    assembler_addr: str = env("LORE_ASSEMBLER_ADDR", default=DEFAULT_ADDRESSES["assembler"])
    agent_addr: str = env("LORE_AGENT_ADDR", default=DEFAULT_ADDRESSES["agent"])
    status_timeout_seconds: float = env("LORE_STATUS_TIMEOUT_SECONDS", default=2.0)
    # Rate limits per credential and scope (gateway_svc/adapters/redis_rate_limits.py), counted in Redis.
    redis_url: str | None = env("LORE_REDIS_URL", default=None, description="rate-limit counters; no limits when unset")
    redis_timeout_seconds: float = redis_timeout()
    rate_limit: str = env("LORE_RATE_LIMIT", default="50:100", description="requests/s:burst per credential and scope")
    rate_limits: str = env("LORE_RATE_LIMITS", default="", description="per-scope overrides: scope=rate:burst,…")
    # Failed authentications per client address (gateway_svc/api/auth/auth_failures.py), counted in Redis.
    auth_failure_limit: str = env(
        "LORE_AUTH_FAILURE_LIMIT", default="1:50", description="failed authentications/s:burst per client address"
    )
    trusted_proxies: str = env(
        "LORE_TRUSTED_PROXIES", default="", description="CIDRs of proxies whose X-Forwarded-For is believed"
    )
    # Credentials (gateway_svc/api/auth/auth.py). A revoked API key stops working within the cache's lifetime.
    api_key_cache_seconds: float = env(
        "LORE_API_KEY_CACHE_SECONDS", default=10.0, description="how long a key lookup is reused", ge=0, le=10
    )
    # Bearer JWTs are verified only when a secret or public keys are set (else they are looked up as API keys).
    jwt_hs256_secret: SecretStr | None = env(
        "LORE_JWT_HS256_SECRET", default=None, description="HS256 secret, at least 32 bytes"
    )
    jwt_public_keys: str | None = env(
        "LORE_JWT_PUBLIC_KEYS", default=None, description="PEM text, or a PEM file's path: RS256 public keys"
    )
    jwt_audience: str | None = env(
        "LORE_JWT_AUDIENCE", default=None, description="required aud (needed with JWT settings)", validate_default=True
    )
    jwt_issuer: str | None = env("LORE_JWT_ISSUER", default=None, description="required iss, when set")
    jwt_org_claim: str = env("LORE_JWT_ORG_CLAIM", default="org_id", description="the org's claim", min_length=1)
    jwt_user_claim: str = env(
        "LORE_JWT_USER_CLAIM",
        default="user_id",
        description="a token with this claim may act only for that user (gateway_svc/api/auth/user_pin.py)",
        min_length=1,
    )
    jwt_leeway_seconds: float = env("LORE_JWT_LEEWAY_SECONDS", default=30.0, description="clock skew", ge=0, le=300)

    @field_validator("rate_limit", "rate_limits", "auth_failure_limit")
    @classmethod
    def _parsable_limits(cls, value: str, info: ValidationInfo) -> str:
        # Refused at start, not on the first request.
        try:
            if info.field_name == "rate_limits":
                parse_limits(value)
            else:
                parse_limit(value)
        except InvalidArgument:
            example = "memories:write=10:20,admin=1" if info.field_name == "rate_limits" else "50:100 (0: unlimited)"
            shape = "scope=rate[:burst],…" if info.field_name == "rate_limits" else "rate[:burst]"
            raise ValueError(f"{value!r} is not {shape}, e.g. {example}") from None
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: str) -> str:
        try:
            parse_networks(value)
        except ValueError as error:
            raise ValueError(f"not a comma-separated list of CIDRs or addresses: {error}") from None
        return value

    @property
    def trusted_networks(self) -> tuple[Network, ...]:
        return parse_networks(self.trusted_proxies)

    @field_validator("jwt_hs256_secret")
    @classmethod
    def _long_enough(cls, secret: SecretStr | None) -> SecretStr | None:
        if secret is not None and len(secret.get_secret_value().encode("utf-8")) < 32:
            raise ValueError("an HS256 secret needs at least 32 bytes")
        return secret

    @field_validator("jwt_public_keys")
    @classmethod
    def _readable_rsa_keys(cls, value: str | None) -> str | None:
        if value is None or "-----BEGIN" in value:
            pem = value
        else:
            try:
                pem = Path(value).read_text(encoding="ascii")
            except (OSError, UnicodeDecodeError) as error:
                raise ValueError(f"neither PEM text nor a readable PEM file: {error}") from None
        if pem is not None:
            rs256_public_keys(pem)  # raises ValueError naming the key at fault
        return pem

    @field_validator("jwt_audience")
    @classmethod
    def _audience_with_jwt(cls, audience: str | None, info: ValidationInfo) -> str | None:
        configured = info.data.get("jwt_hs256_secret") is not None or info.data.get("jwt_public_keys") is not None
        if configured and not audience:
            raise ValueError("LORE_JWT_AUDIENCE is required when LORE_JWT_HS256_SECRET or LORE_JWT_PUBLIC_KEYS is set")
        return audience

    @property
    def jwt_enabled(self) -> bool:
        return self.jwt_hs256_secret is not None or self.jwt_public_keys is not None

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
