"""The service credential's settings and tokens (lore_runtime/service_auth.py): what a service refuses
at start, what it accepts, what a client sends."""

import pytest
from agent_svc.config import Settings as AgentSettings
from assembler_svc.config import Settings as AssemblerSettings
from gateway_svc.config import Settings as GatewaySettings
from lore_runtime.server import create_grpc_server
from lore_runtime.service_auth import TOKEN_KEY, ServiceTokens
from lore_runtime.settings import DialSettings, ServerSettings, SettingsError, load_settings
from memory_svc.config import Settings as MemorySettings
from observations_svc.config import Settings as ObservationsSettings

STORES = {"LORE_DATABASE_URL": "postgresql://lore@db/lore", "LORE_REDIS_URL": "redis://redis:6379/0"}
CURRENT, PREVIOUS = "current-service-token-" + "1" * 32, "previous-service-token-" + "2" * 32


@pytest.mark.parametrize(
    "model", [ServerSettings, MemorySettings, ObservationsSettings, AssemblerSettings, AgentSettings, GatewaySettings]
)
def test_a_service_or_the_gateway_without_token_or_tls_is_refused_at_start_naming_the_setting(model):
    with pytest.raises(SettingsError) as refused:
        load_settings(model, STORES)
    (problem,) = refused.value.problems
    assert problem.startswith("LORE_SERVICE_TOKEN is required")
    assert load_settings(model, {**STORES, "LORE_SERVICE_TOKEN": CURRENT}).service_tokens.current == CURRENT


def test_the_cli_may_dial_without_a_token_and_falls_back_on_the_token_file():
    assert load_settings(DialSettings, {}).service_tokens is None


@pytest.mark.parametrize("token", ["short", "has spaces but is long enough to count " + "x" * 10, "ünïcödé" * 6])
def test_a_weak_or_unsendable_token_is_refused(token):
    with pytest.raises(SettingsError) as refused:
        load_settings(ServerSettings, {"LORE_SERVICE_TOKEN": token})
    assert "LORE_SERVICE_TOKEN" in str(refused.value) and "at least 32" in str(refused.value)


def test_a_previous_token_needs_a_current_one():
    with pytest.raises(SettingsError) as refused:
        load_settings(ServerSettings, {"LORE_SERVICE_TOKEN_PREVIOUS": PREVIOUS})
    assert "LORE_SERVICE_TOKEN_PREVIOUS is set but LORE_SERVICE_TOKEN is not" in str(refused.value)


def test_during_a_rotation_both_tokens_are_accepted_and_sent():
    tokens = load_settings(
        ServerSettings, {"LORE_SERVICE_TOKEN": CURRENT, "LORE_SERVICE_TOKEN_PREVIOUS": PREVIOUS}
    ).service_tokens
    assert tokens.accepts([CURRENT]) and tokens.accepts([PREVIOUS]) and tokens.accepts(["other", PREVIOUS])
    assert not tokens.accepts(["x" * 40]) and not tokens.accepts([])
    assert tokens.metadata() == ((TOKEN_KEY, CURRENT), (TOKEN_KEY, PREVIOUS))
    assert ServiceTokens(CURRENT).metadata() == ((TOKEN_KEY, CURRENT),)
    assert not ServiceTokens(CURRENT).accepts([PREVIOUS])
    assert CURRENT not in repr(tokens) and CURRENT not in repr(
        load_settings(ServerSettings, {"LORE_SERVICE_TOKEN": CURRENT})
    )


def test_a_server_cannot_be_built_without_the_credential_it_checks():
    with pytest.raises(ValueError, match="service credential"):
        create_grpc_server("127.0.0.1:0", [])
