from lore_runtime import service

from memory_svc.bootstrap import build
from memory_svc.config import Settings
from memory_svc.server import create_server


def main() -> None:
    service.run("memory", Settings, build, create_server, lambda settings: settings.addr)


if __name__ == "__main__":
    main()
