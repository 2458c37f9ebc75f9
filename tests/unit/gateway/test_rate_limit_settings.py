"""Rate-limit settings: per-scope overrides parse, and a malformed one names the variable."""

import pytest
from gateway_svc.domain.rate_limits import RateLimit, parse_limit, parse_limits
from lore_runtime.errors import InvalidArgument


def test_overrides_per_scope_with_an_optional_burst() -> None:
    assert parse_limits("memories:write=10:20, admin=0.5") == {
        "memories:write": RateLimit(10.0, 20),
        "admin": RateLimit(0.5, 1),
    }
    assert parse_limits("") == {}
    assert parse_limit("0").unlimited and not parse_limit("50:100").unlimited


@pytest.mark.parametrize("text", ["memories:write", "=5:5", "memories:write=fast", "admin=-1:2", "admin=5:0"])
def test_a_malformed_override_names_the_setting(text: str) -> None:
    with pytest.raises(InvalidArgument) as raised:
        parse_limits(text)
    assert raised.value.metadata["field"] == "LORE_RATE_LIMITS"
