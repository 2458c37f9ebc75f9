"""The `lore` commands that call services present the service credential: LORE_SERVICE_TOKEN, else the
local stack's token file; without one they are refused and say which setting to fix."""

from lore_cli import doctor
from lore_cli.service_token import FILE_NAME

from tests.grpc_harness import SERVICE_TOKEN
from tests.integration.cli.test_org_transfer_cli import lore

NO_TOKEN = {"LORE_SERVICE_TOKEN": ""}  # empty: unset


async def test_a_command_finds_the_token_in_the_data_dir_when_the_variable_is_unset(services, tmp_path):
    (tmp_path / FILE_NAME).write_text(SERVICE_TOKEN + "\n")
    env = {**NO_TOKEN, "LORE_AGENT_ADDR": services["agent"].address, "LORE_DATA_DIR": str(tmp_path)}

    code, out, err = await lore(env, "jobs", "list", "--org", "org-token-file")

    assert code == 0, err
    assert out.splitlines()[0].split()[0] == "kind"


async def test_a_command_without_the_token_is_refused_and_names_the_setting(services, tmp_path):
    env = {**NO_TOKEN, "LORE_MEMORY_ADDR": services["memory"].address, "LORE_DATA_DIR": str(tmp_path)}

    code, _, err = await lore(env, "decay", "run", "--org", "org-no-token")

    assert code == 1
    assert "refused this command's credential" in err and "LORE_SERVICE_TOKEN" in err, err


async def test_doctor_says_whether_the_services_accept_this_shells_credential(services, tmp_path):
    addresses = {f"LORE_{name.upper()}_ADDR": service.address for name, service in services.items()}
    base = {**addresses, "LORE_DATA_DIR": str(tmp_path)}

    def credential(findings):
        return next(finding for finding in findings if finding.subject == "service credential")

    accepted = credential(await doctor.check_services({**base, "LORE_SERVICE_TOKEN": SERVICE_TOKEN}))
    assert accepted.status == doctor.OK and "accepted by the memory service" in accepted.detail

    wrong = credential(await doctor.check_services({**base, "LORE_SERVICE_TOKEN": "w" * 40}))
    assert wrong.status == doctor.FAIL and "refused by the memory service" in wrong.detail
    assert "LORE_SERVICE_TOKEN" in wrong.fix

    missing = credential(await doctor.check_services(base))
    assert missing.status == doctor.FAIL and "no LORE_SERVICE_TOKEN" in missing.detail
