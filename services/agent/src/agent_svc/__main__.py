from lore_runtime import service

from agent_svc.bootstrap import build
from agent_svc.config import Settings
from agent_svc.server import create_server


def main() -> None:
    service.run("agent", Settings, build, create_server, lambda settings: settings.addr)


if __name__ == "__main__":
    main()
