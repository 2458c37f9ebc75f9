import stat

from lore_cli.backends import Backends
from lore_cli.service_token import FILE_NAME, ensure_local_token, local_tokens
from lore_cli.up import child_environment


def test_lore_up_generates_a_private_token_once_and_reuses_it(tmp_path):
    first = ensure_local_token(tmp_path)
    assert len(first) >= 32
    assert stat.S_IMODE((tmp_path / FILE_NAME).stat().st_mode) == 0o600
    assert ensure_local_token(tmp_path) == first
    assert local_tokens({"LORE_DATA_DIR": str(tmp_path)}).current == first


def test_a_damaged_token_file_is_replaced_and_an_absent_one_means_no_local_token(tmp_path):
    assert local_tokens({"LORE_DATA_DIR": str(tmp_path)}) is None
    (tmp_path / FILE_NAME).write_text("short\n")
    assert local_tokens({"LORE_DATA_DIR": str(tmp_path)}) is None
    assert ensure_local_token(tmp_path) != "short"


def _backends() -> Backends:
    return Backends("postgresql://app@h/db", "postgresql://owner@h/db", "redis://h", None, ())


def test_the_children_of_lore_up_get_the_data_dirs_token_unless_one_is_set(tmp_path):
    env = child_environment({}, _backends(), tmp_path)
    assert env["LORE_SERVICE_TOKEN"] == (tmp_path / FILE_NAME).read_text().strip()
    assert child_environment({}, _backends(), tmp_path)["LORE_SERVICE_TOKEN"] == env["LORE_SERVICE_TOKEN"]
    configured = "a-configured-service-token-" + "c" * 32
    assert (
        child_environment({"LORE_SERVICE_TOKEN": configured}, _backends(), tmp_path)["LORE_SERVICE_TOKEN"] == configured
    )
