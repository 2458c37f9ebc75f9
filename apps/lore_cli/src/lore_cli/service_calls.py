"""How an operator command reaches a service: its address and the tenant metadata of the org it acts for.

Operator commands never open a store: the embedded Qdrant engine allows one process per store and
Postgres rows sit behind the services' rules, so every chore is an admin RPC of the owning service
(as ``lore reindex`` does it). The org comes from the command line and travels as tenant metadata,
exactly as the gateway sends a credential's org. The services trust that metadata only from a caller
holding the service credential (lore_runtime/service_auth.py): ``dial`` sends ``LORE_SERVICE_TOKEN``, else
the local stack's token file (lore_cli/service_token.py), and where the services require mutual TLS it
presents the certificate named by the same ``LORE_TLS_*`` settings: run it where those are, e.g.
``kubectl exec`` into a Lore pod.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import grpc
from lore_runtime.grpc_errors import error_info_of
from lore_runtime.request_context import RequestContext
from lore_runtime.service_auth import TOKEN_VARIABLE, token_interceptors
from lore_runtime.settings import DEFAULT_ADDRESSES, DialSettings, SettingsError, load_settings
from lore_runtime.tls import open_channel

from lore_cli.service_token import FILE_NAME, local_tokens

PRINCIPAL = "lore-cli"
# The org of the local stack (`lore up` prints its dev key for it).
DEFAULT_ORG = "dev"


def address(environ: Mapping[str, str], service: str) -> str:
    """``LORE_<SERVICE>_ADDR`` (or the default), with a wildcard host dialled on loopback."""
    host, _, port = (environ.get(f"LORE_{service.upper()}_ADDR") or DEFAULT_ADDRESSES[service]).rpartition(":")
    return f"{'127.0.0.1' if host in ('0.0.0.0', '', '::') else host}:{port}"


def dial(environ: Mapping[str, str], where: str) -> grpc.aio.Channel:
    """A channel to a service at ``where``: mutual TLS when ``LORE_TLS_*`` are set, else plaintext;
    every call carries the service token. Exits with status 2 and the problems, as a service does,
    when those settings are wrong."""
    try:
        settings = load_settings(DialSettings, environ)
    except SettingsError as error:
        print(f"lore: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    tokens = settings.service_tokens or local_tokens(environ)
    return open_channel(where, settings.mutual_tls, interceptors=token_interceptors(tokens))


def tenant(org: str) -> tuple[tuple[str, str], ...]:
    return RequestContext(org_id=org, principal=PRINCIPAL).metadata()


def field_of(error: grpc.aio.AioRpcError) -> str:
    """The request field an INVALID_ARGUMENT names (ErrorInfo metadata), or ''."""
    info = error_info_of(error)
    return info.metadata.get("field", "") if info is not None else ""


def report_rpc_error(command: str, service: str, where: str, error: grpc.aio.AioRpcError) -> int:
    """Print what went wrong on stderr (how to fix it when the service is not there); returns 1."""
    if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        print(
            f"{command}: the {service} service at {where} is unreachable ({error.code().name}: {error.details()}); "
            f"start it (`lore up`) or point LORE_{service.upper()}_ADDR at it",
            file=sys.stderr,
        )
    elif error.code() is grpc.StatusCode.UNAUTHENTICATED:
        print(
            f"{command}: the {service} service at {where} refused this command's credential ({error.details()}); "
            f"set {TOKEN_VARIABLE} to the services' token (`lore up` keeps it in LORE_DATA_DIR/{FILE_NAME}), "
            "or run it where the services' LORE_TLS_* files are",
            file=sys.stderr,
        )
    else:
        print(f"{command}: {error.code().name}: {error.details()}", file=sys.stderr)
    return 1
