"""Mutual TLS between Lore's services: the one place that reads ``LORE_TLS_*``.

Three files, all or none: this process's certificate chain, its private key, and the CA that signs
every Lore service's certificate. With them, each gRPC server listens with TLS and *requires* a
client certificate from that CA, and each channel presents the same certificate: one identity per
deployment (or one per service, signed by the same CA), no per-caller authorisation beyond "signed
by our CA". Without them everything stays plaintext, as on a developer's machine.

The files are read once, when the settings are loaded (at start): a rotated certificate takes
effect on the next restart (Kubernetes updates a mounted Secret in place, a rollout picks it up).
The certificate must name the host the clients dial (``lore-memory`` …, or 127.0.0.1 locally):
gRPC checks it against the target's host.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from pydantic import AliasChoices, BaseModel, Field, PrivateAttr, model_validator

CERT_VARIABLE, KEY_VARIABLE, CA_VARIABLE = "LORE_TLS_CERT_FILE", "LORE_TLS_KEY_FILE", "LORE_TLS_CA_FILE"
# What each file must hold: a wrong file is refused at start, not at the first handshake.
_PEM_MARKERS = {
    CERT_VARIABLE: "-----BEGIN CERTIFICATE-----",
    KEY_VARIABLE: "PRIVATE KEY-----",
    CA_VARIABLE: "-----BEGIN CERTIFICATE-----",
}


@dataclass(frozen=True, repr=False)
class MutualTls:
    """The PEM bytes of one process's identity and of the CA it trusts (repr hides the key)."""

    certificate_chain: bytes
    private_key: bytes
    root_certificates: bytes

    def server_credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials(
            [(self.private_key, self.certificate_chain)],
            root_certificates=self.root_certificates,
            require_client_auth=True,
        )

    def channel_credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            root_certificates=self.root_certificates,
            private_key=self.private_key,
            certificate_chain=self.certificate_chain,
        )

    def __repr__(self) -> str:
        return "MutualTls(<certificate, key and CA>)"


def _file(variable: str, description: str) -> Any:
    return Field(None, validation_alias=AliasChoices(variable), description=description)


class TlsSettings(BaseModel):
    """A settings mixin (``ServerSettings`` and the gateway's settings include it): the three files,
    checked and read together; ``mutual_tls`` is None when none is set."""

    tls_cert_file: str | None = _file(CERT_VARIABLE, "PEM certificate (chain) of this process; mTLS when set")
    tls_key_file: str | None = _file(KEY_VARIABLE, "PEM private key of that certificate")
    tls_ca_file: str | None = _file(CA_VARIABLE, "PEM CA that signs every Lore service's certificate")
    _mutual_tls: MutualTls | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _read_all_or_none(self) -> TlsSettings:
        paths = {CERT_VARIABLE: self.tls_cert_file, KEY_VARIABLE: self.tls_key_file, CA_VARIABLE: self.tls_ca_file}
        missing = [variable for variable, path in paths.items() if not path]
        if len(missing) == len(paths):
            return self
        if missing:
            given = [variable for variable in paths if variable not in missing]
            raise ValueError(
                f"{', '.join(given)} set but {', '.join(missing)} not: mutual TLS needs all three "
                f"({CERT_VARIABLE}, {KEY_VARIABLE}, {CA_VARIABLE}), or none for plaintext"
            )
        contents, problems = {}, []
        for variable, path in paths.items():
            try:
                contents[variable] = _read_pem(variable, str(path))
            except ValueError as error:
                problems.append(str(error))
        if problems:
            raise ValueError("; ".join(problems))
        self._mutual_tls = MutualTls(contents[CERT_VARIABLE], contents[KEY_VARIABLE], contents[CA_VARIABLE])
        return self

    @property
    def mutual_tls(self) -> MutualTls | None:
        return self._mutual_tls


def _read_pem(variable: str, path: str) -> bytes:
    try:
        content = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"{variable}: cannot read {path} ({error.strerror or error})") from None
    if _PEM_MARKERS[variable].encode() not in content:
        raise ValueError(f"{variable}: {path} holds no PEM '{_PEM_MARKERS[variable].strip('-')}'")
    return content


def add_port(server: grpc.aio.Server, address: str, tls: MutualTls | None) -> int:
    """Bind ``address`` with mTLS when configured, else plaintext; the port bound (0: failed)."""
    if tls is None:
        return server.add_insecure_port(address)
    return server.add_secure_port(address, tls.server_credentials())


def open_channel(
    target: str,
    tls: MutualTls | None,
    *,
    options: Sequence[tuple[str, Any]] = (),
    interceptors: Sequence[grpc.aio.ClientInterceptor] | None = None,
) -> grpc.aio.Channel:
    """A channel presenting this process's certificate when mTLS is configured, else plaintext."""
    if tls is None:
        return grpc.aio.insecure_channel(target, options=list(options), interceptors=interceptors)
    return grpc.aio.secure_channel(target, tls.channel_credentials(), options=list(options), interceptors=interceptors)
