"""Throwaway certificate authorities for the mTLS tests, made with `cryptography` (no openssl binary)."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# What the tests dial: 127.0.0.1 (an IP SAN) and localhost.
LOCAL_NAMES = ("localhost", "127.0.0.1")


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


@dataclass(frozen=True)
class Identity:
    """A certificate and its key, PEM."""

    certificate: bytes
    key: bytes


class Authority:
    """A self-signed CA that issues service certificates valid as server and as client."""

    def __init__(self, common_name: str) -> None:
        self._key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self._certificate = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name))
            .issuer_name(_name(common_name))
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self._key.public_key()), critical=False)
            .sign(self._key, hashes.SHA256())
        )

    @property
    def certificate(self) -> bytes:
        return self._certificate.public_bytes(serialization.Encoding.PEM)

    def issue(self, common_name: str, names: tuple[str, ...] = LOCAL_NAMES) -> Identity:
        """What deploy/k8s/README.md asks of the Secret's tls.crt: the dialled names as SANs, both usages."""
        key = ec.generate_private_key(ec.SECP256R1())
        alternative_names: list[x509.GeneralName] = []
        for name in names:
            try:
                alternative_names.append(x509.IPAddress(ipaddress.ip_address(name)))
            except ValueError:
                alternative_names.append(x509.DNSName(name))
        now = datetime.datetime.now(datetime.UTC)
        certificate = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name))
            .issuer_name(self._certificate.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName(alternative_names), critical=False)
            .add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                critical=False,
            )
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()), critical=False)
            .sign(self._key, hashes.SHA256())
        )
        return Identity(certificate.public_bytes(serialization.Encoding.PEM), _pem_key(key))


def write_tls_files(directory: Path, authority: Authority, identity: Identity) -> dict[str, str]:
    """The three files as a Secret mount holds them, and the LORE_TLS_* settings naming them."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {"tls.crt": identity.certificate, "tls.key": identity.key, "ca.crt": authority.certificate}
    for name, content in files.items():
        (directory / name).write_bytes(content)
    return {
        "LORE_TLS_CERT_FILE": str(directory / "tls.crt"),
        "LORE_TLS_KEY_FILE": str(directory / "tls.key"),
        "LORE_TLS_CA_FILE": str(directory / "ca.crt"),
    }
