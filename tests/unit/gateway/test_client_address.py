"""The client address failed authentications count against: the socket's peer,
unless that peer is a trusted proxy, and then the first untrusted hop of X-Forwarded-For read from
the right; an IPv6 client counts per /64."""

import pytest
from gateway_svc.api.auth.auth_failures import client_address, parse_networks
from gateway_svc.config import Settings
from lore_runtime.settings import SettingsError, load_settings

from tests.grpc_harness import SERVICE_TOKEN_ENV

TRUSTED = parse_networks("10.0.0.0/8, 192.168.1.7, fd00::/8")


def _scope(peer: str | None, *forwarded: str) -> dict:
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded]
    return {"type": "http", "client": (peer, 443) if peer else None, "headers": headers}


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("203.0.113.9", (), "203.0.113.9"),
        ("203.0.113.9", ("198.51.100.1",), "203.0.113.9"),  # an untrusted peer's header is ignored
        ("10.1.2.3", ("198.51.100.1",), "198.51.100.1"),
        ("10.1.2.3", ("1.1.1.1, 198.51.100.1, 10.0.0.5",), "198.51.100.1"),  # proxies skipped, spoof left ignored
        ("10.1.2.3", ("1.1.1.1", "198.51.100.1"), "198.51.100.1"),  # several headers are one list
        ("192.168.1.7", ("10.0.0.4",), "10.0.0.4"),  # only proxies: the farthest one
        ("10.1.2.3", ("not-an-ip, 198.51.100.1",), "198.51.100.1"),
        ("10.1.2.3", ("198.51.100.1, garbage",), "10.1.2.3"),  # an unreadable hop ends what is believed
        ("10.1.2.3", (), "10.1.2.3"),
        ("2001:db8:1:2:3:4:5:6", (), "2001:db8:1:2::/64"),
        ("fd00::1", ("2001:db8:aa:bb::1",), "2001:db8:aa:bb::/64"),
        ("::ffff:10.1.2.3", ("198.51.100.1",), "198.51.100.1"),  # a v4-mapped peer is its v4 address
        (None, ("198.51.100.1",), "unknown"),
    ],
)
def test_the_client_address(peer, forwarded, client):
    assert client_address(_scope(peer, *forwarded), TRUSTED) == client


def test_without_trusted_proxies_x_forwarded_for_is_never_believed():
    assert client_address(_scope("127.0.0.1", "198.51.100.1"), ()) == "127.0.0.1"


def test_trusted_proxies_parse_addresses_and_networks_and_refuse_garbage():
    assert [str(network) for network in parse_networks(" 10.0.0.0/8 ,::1,")] == ["10.0.0.0/8", "::1/128"]
    assert parse_networks("") == ()
    with pytest.raises(ValueError):
        parse_networks("10.0.0.0/33")


@pytest.mark.parametrize(
    ("variable", "value"), [("LORE_TRUSTED_PROXIES", "10.0.0.0/8,ingress"), ("LORE_AUTH_FAILURE_LIMIT", "often")]
)
def test_a_malformed_setting_is_refused_at_start_naming_it(variable, value):
    environ = {**SERVICE_TOKEN_ENV, "LORE_DATABASE_URL": "postgresql://x@localhost/db", variable: value}
    with pytest.raises(SettingsError) as raised:
        load_settings(Settings, environ)
    assert variable in str(raised.value)
