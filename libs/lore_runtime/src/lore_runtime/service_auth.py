"""The service credential: what a caller of a Lore gRPC port must hold before its org metadata counts.

A service trusts the ``x-lore-org-id`` / ``x-lore-principal`` metadata only from a caller holding the
deployment's service credential: a client certificate signed by the CA where mutual TLS is on
(``LORE_TLS_*``: the handshake refuses anyone else, lore_runtime/tls.py), otherwise a shared token sent
as ``x-lore-service-token`` metadata (``LORE_SERVICE_TOKEN``). A call carrying neither is refused
UNAUTHENTICATED before its tenant is read; health and reflection stay open to probes.

Secure by default: a server (and the gateway, whose calls would all be refused) does not start with
neither TLS nor a token configured; the settings error names ``LORE_SERVICE_TOKEN``.

Rotation without downtime: ``LORE_SERVICE_TOKEN_PREVIOUS`` is accepted as well and, while set, also
sent (as a second value of the same key). Rolling the pair (new, old) out everywhere keeps every call
working whichever pods are already restarted (a new pod's call carries the old token the old pods
know; an old pod's call carries the old token the new pods accept); a second rollout without
``LORE_SERVICE_TOKEN_PREVIOUS`` retires the old token. Tokens are compared in constant time.
"""

from __future__ import annotations

import hmac
import logging
import string
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import grpc
from pydantic import AliasChoices, BaseModel, Field, SecretStr, field_validator, model_validator

from lore_runtime import errors, grpc_errors
from lore_runtime.interceptors import GuardingInterceptor, abort_with
from lore_runtime.tls import TlsSettings

log = logging.getLogger(__name__)

TOKEN_KEY = "x-lore-service-token"
TOKEN_VARIABLE, PREVIOUS_VARIABLE = "LORE_SERVICE_TOKEN", "LORE_SERVICE_TOKEN_PREVIOUS"
MIN_TOKEN_CHARS = 32
# gRPC metadata values are printable ASCII; spaces would be trimmed by proxies.
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + string.punctuation)
# A caller sends at most current + previous; more values are not looked at.
_MAX_PRESENTED = 4


def check_token(value: str) -> str:
    """``value`` as a usable token, or ValueError saying what a token must be."""
    if len(value) < MIN_TOKEN_CHARS or not set(value) <= _TOKEN_CHARS:
        raise ValueError(
            f"a service token has at least {MIN_TOKEN_CHARS} printable ASCII characters without spaces "
            "(e.g. `openssl rand -hex 32`)"
        )
    return value


@dataclass(frozen=True, repr=False)
class ServiceTokens:
    """The token this process sends and accepts, and the previous one during a rotation (repr hides both)."""

    current: str
    previous: str | None = None

    def __post_init__(self) -> None:
        for token in self.all():
            check_token(token)

    def all(self) -> tuple[str, ...]:
        if self.previous is None or self.previous == self.current:
            return (self.current,)
        return (self.current, self.previous)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple((TOKEN_KEY, token) for token in self.all())

    def accepts(self, presented: Iterable[str]) -> bool:
        matched = False
        for value in list(presented)[:_MAX_PRESENTED]:
            for token in self.all():
                # Every pair compared, in constant time: no early exit tells which part matched.
                matched |= hmac.compare_digest(value.encode(), token.encode())
        return matched

    def __repr__(self) -> str:
        return "ServiceTokens(<hidden>)"


class ServiceTokenSettings(BaseModel):
    """A settings mixin: ``LORE_SERVICE_TOKEN`` and ``LORE_SERVICE_TOKEN_PREVIOUS``."""

    service_token: SecretStr | None = Field(
        None, validation_alias=AliasChoices(TOKEN_VARIABLE), description="shared token of internal gRPC calls"
    )
    service_token_previous: SecretStr | None = Field(
        None, validation_alias=AliasChoices(PREVIOUS_VARIABLE), description="also accepted (and sent) while rotating"
    )

    @field_validator("service_token", "service_token_previous")
    @classmethod
    def _usable(cls, token: SecretStr | None) -> SecretStr | None:
        if token is not None:
            check_token(token.get_secret_value())
        return token

    @model_validator(mode="after")
    def _previous_needs_current(self) -> ServiceTokenSettings:
        if self.service_token_previous is not None and self.service_token is None:
            raise ValueError(f"{PREVIOUS_VARIABLE} is set but {TOKEN_VARIABLE} is not: a rotation needs both")
        return self

    @property
    def service_tokens(self) -> ServiceTokens | None:
        if self.service_token is None:
            return None
        previous = self.service_token_previous
        return ServiceTokens(
            self.service_token.get_secret_value(), previous.get_secret_value() if previous is not None else None
        )


class ServiceCredentialSettings(TlsSettings, ServiceTokenSettings):
    """Settings of a process that serves or calls Lore's gRPC services: mutual TLS or a token, required."""

    @model_validator(mode="after")
    def _some_credential(self) -> ServiceCredentialSettings:
        if self.mutual_tls is None and self.service_token is None:
            raise ValueError(
                f"{TOKEN_VARIABLE} is required: internal gRPC calls must carry a credential. Set it to the same "
                f"secret (at least {MIN_TOKEN_CHARS} characters, e.g. `openssl rand -hex 32`) for every service "
                "and the gateway, or set LORE_TLS_* for mutual TLS (`lore up` generates one for you)"
            )
        return self


def _presented_tokens(metadata: Iterable[tuple[str, str | bytes]] | None) -> list[str]:
    return [value for key, value in metadata or () if key.lower() == TOKEN_KEY and isinstance(value, str)]


def _verified_certificate(context: grpc.aio.ServicerContext) -> bool:
    """A client certificate the TLS handshake verified (the port requires one signed by the CA)."""
    auth = context.auth_context() or {}
    return auth.get("transport_security_type") == [b"ssl"] and bool(auth.get("x509_pem_cert"))


class ServiceCredentialInterceptor(GuardingInterceptor):
    """Refuses, UNAUTHENTICATED, every non-exempt call without the service credential: a verified client
    certificate when ``mutual_tls``, else one of ``tokens`` in ``x-lore-service-token``."""

    def __init__(self, tokens: ServiceTokens | None, *, mutual_tls: bool) -> None:
        if tokens is None and not mutual_tls:
            raise ValueError(f"a Lore gRPC server needs {TOKEN_VARIABLE} or LORE_TLS_*: it would accept no caller")

        @asynccontextmanager
        async def guard(context: grpc.aio.ServicerContext, method: str) -> AsyncIterator[None]:
            if mutual_tls and _verified_certificate(context):
                yield
                return
            presented = _presented_tokens(context.invocation_metadata())
            if tokens is not None and tokens.accepts(presented):
                yield
                return
            reason = "INVALID_SERVICE_CREDENTIAL" if presented else "MISSING_SERVICE_CREDENTIAL"
            log.warning("refused %s from %s: %s", method, context.peer(), reason)
            error = errors.Unauthenticated(
                "internal calls need the service credential (LORE_SERVICE_TOKEN in x-lore-service-token metadata, "
                "or a client certificate where mutual TLS is on)",
                reason=reason,
            )
            await abort_with(context, grpc_errors.to_status(error))

        super().__init__(guard)


class _SendsTokens:
    """Adds the service token(s) to an outgoing call's metadata."""

    def __init__(self, tokens: ServiceTokens) -> None:
        self._pairs = tokens.metadata()

    def _details(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        if TOKEN_KEY not in metadata:
            for key, value in self._pairs:
                metadata.add(key, value)
        return grpc.aio.ClientCallDetails(
            method=details.method,
            timeout=details.timeout,
            metadata=metadata,
            credentials=details.credentials,
            wait_for_ready=details.wait_for_ready,
        )


# One class per call kind: a grpc.aio channel files an interceptor under the first kind it implements only.
class _UnaryUnary(_SendsTokens, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._details(client_call_details), request)


class _UnaryStream(_SendsTokens, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._details(client_call_details), request)


class _StreamUnary(_SendsTokens, grpc.aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(self, continuation, client_call_details, request_iterator):  # type: ignore[no-untyped-def]
        return await continuation(self._details(client_call_details), request_iterator)


class _StreamStream(_SendsTokens, grpc.aio.StreamStreamClientInterceptor):
    async def intercept_stream_stream(self, continuation, client_call_details, request_iterator):  # type: ignore[no-untyped-def]
        return await continuation(self._details(client_call_details), request_iterator)


def token_interceptors(tokens: ServiceTokens | None) -> list[grpc.aio.ClientInterceptor]:
    """Client interceptors sending ``tokens`` on every call of a channel, whatever its kind; none without."""
    if tokens is None:
        return []
    return [kind(tokens) for kind in (_UnaryUnary, _UnaryStream, _StreamUnary, _StreamStream)]
