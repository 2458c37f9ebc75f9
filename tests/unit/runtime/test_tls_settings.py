"""LORE_TLS_* (all three or none, read at start), the connection-age options and the health listener's
address: what a service refuses at start, and what it hands to gRPC."""

from __future__ import annotations

import pytest
from lore_runtime.server import connection_age_options
from lore_runtime.settings import DialSettings, ServerSettings, SettingsError, load_settings
from memory_svc.config import Settings as MemorySettings

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.runtime.certificates import Authority, write_tls_files

STORES = {
    "LORE_DATABASE_URL": "postgresql://lore@db/lore",
    "LORE_REDIS_URL": "redis://redis:6379/0",
    **SERVICE_TOKEN_ENV,
}


@pytest.fixture(scope="module")
def tls_env(tmp_path_factory) -> dict[str, str]:
    authority = Authority("unit-ca")
    return write_tls_files(tmp_path_factory.mktemp("tls"), authority, authority.issue("memory"))


def problems(model: type, environ: dict[str, str]) -> list[str]:
    with pytest.raises(SettingsError) as refused:
        load_settings(model, environ)
    return refused.value.problems


def test_no_tls_files_means_plaintext():
    assert load_settings(ServerSettings, SERVICE_TOKEN_ENV).mutual_tls is None
    assert load_settings(DialSettings, {}).mutual_tls is None


def test_all_three_files_are_read_at_start(tls_env):
    tls = load_settings(MemorySettings, {**STORES, **tls_env}).mutual_tls
    assert tls is not None
    assert tls.certificate_chain.startswith(b"-----BEGIN CERTIFICATE-----")
    assert b"PRIVATE KEY-----" in tls.private_key
    assert tls.root_certificates.startswith(b"-----BEGIN CERTIFICATE-----")
    assert "KEY" not in repr(tls), "the key never reaches a log line"


@pytest.mark.parametrize("missing", ["LORE_TLS_CERT_FILE", "LORE_TLS_KEY_FILE", "LORE_TLS_CA_FILE"])
def test_some_but_not_all_files_is_refused_naming_the_missing_one(tls_env, missing):
    partial = {key: value for key, value in tls_env.items() if key != missing}
    (problem,) = problems(MemorySettings, {**STORES, **partial})
    assert problem.startswith(f"{', '.join(partial)} set but {missing} not: mutual TLS needs all three")


def test_unreadable_or_wrong_files_are_refused_each_by_name(tls_env, tmp_path):
    not_pem = tmp_path / "not.pem"
    not_pem.write_text("hello")
    environ = {**tls_env, "LORE_TLS_KEY_FILE": str(tmp_path / "absent.key"), "LORE_TLS_CA_FILE": str(not_pem)}
    (problem,) = problems(DialSettings, environ)
    assert f"LORE_TLS_KEY_FILE: cannot read {tmp_path / 'absent.key'} (No such file or directory)" in problem
    assert f"LORE_TLS_CA_FILE: {not_pem} holds no PEM 'BEGIN CERTIFICATE'" in problem
    # A certificate where the key should be is refused too.
    (swapped,) = problems(DialSettings, {**tls_env, "LORE_TLS_KEY_FILE": tls_env["LORE_TLS_CERT_FILE"]})
    assert swapped.startswith("LORE_TLS_KEY_FILE:") and "PRIVATE KEY" in swapped


def test_the_gateway_reads_the_same_variables(tls_env):
    from gateway_svc.config import Settings as GatewaySettings

    assert load_settings(GatewaySettings, {**STORES, **tls_env}).mutual_tls is not None
    (problem,) = problems(GatewaySettings, {**STORES, "LORE_TLS_CA_FILE": tls_env["LORE_TLS_CA_FILE"]})
    assert "mutual TLS needs all three" in problem


def test_connections_age_out_after_five_minutes_by_default_and_calls_in_flight_are_never_cut():
    assert connection_age_options(load_settings(ServerSettings, SERVICE_TOKEN_ENV)) == [
        ("grpc.max_connection_age_ms", 300_000)
    ]
    aged = load_settings(
        ServerSettings,
        {
            **SERVICE_TOKEN_ENV,
            "LORE_GRPC_MAX_CONNECTION_AGE_SECONDS": "60",
            "LORE_GRPC_MAX_CONNECTION_AGE_GRACE_SECONDS": "30",
        },
    )
    assert connection_age_options(aged) == [
        ("grpc.max_connection_age_ms", 60_000),
        ("grpc.max_connection_age_grace_ms", 30_000),
    ]
    never = {**SERVICE_TOKEN_ENV, "LORE_GRPC_MAX_CONNECTION_AGE_SECONDS": "0"}
    assert connection_age_options(load_settings(ServerSettings, never)) == []
    assert connection_age_options(None) == []
    assert problems(ServerSettings, {"LORE_GRPC_MAX_CONNECTION_AGE_SECONDS": "-1"})


def test_each_service_names_its_own_health_listener():
    settings = load_settings(MemorySettings, {**STORES, "LORE_MEMORY_HEALTH_ADDR": "0.0.0.0:8086"})
    assert settings.health_addr == "0.0.0.0:8086"
    assert load_settings(MemorySettings, {**STORES, "LORE_AGENT_HEALTH_ADDR": "0.0.0.0:8086"}).health_addr is None
    (problem,) = problems(MemorySettings, {**STORES, "LORE_MEMORY_HEALTH_ADDR": "8086"})
    assert problem.startswith("LORE_MEMORY_HEALTH_ADDR: ") and "host:port" in problem
