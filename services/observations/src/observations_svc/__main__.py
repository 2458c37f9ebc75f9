from lore_runtime import service

from observations_svc.bootstrap import build
from observations_svc.config import Settings
from observations_svc.server import create_server


def main() -> None:
    service.run("observations", Settings, build, create_server, lambda settings: settings.addr)


if __name__ == "__main__":
    main()
