import stat

import pytest
from lore_cli.dev_key import DevKeyError, resolve_dev_key


def test_a_generated_key_is_kept_private_and_reused(tmp_path):
    first = resolve_dev_key({}, tmp_path)
    assert first.startswith("lore_dev_") and len(first) > 40
    assert stat.S_IMODE((tmp_path / "dev-api-key").stat().st_mode) == 0o600
    assert resolve_dev_key({}, tmp_path) == first


def test_the_configured_key_wins_and_is_not_written(tmp_path):
    assert resolve_dev_key({"LORE_DEV_API_KEY": "a-fixed-development-key"}, tmp_path) == "a-fixed-development-key"
    assert not (tmp_path / "dev-api-key").exists()


@pytest.mark.parametrize("value", ["short", "has spaces in the middle"])
def test_a_weak_or_malformed_configured_key_is_refused(tmp_path, value):
    with pytest.raises(DevKeyError):
        resolve_dev_key({"LORE_DEV_API_KEY": value}, tmp_path)
