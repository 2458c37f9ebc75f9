from lore_runtime import blas


def main() -> None:
    # Before anything imports numpy (lore_runtime/blas.py says why), hence the imports below.
    blas.use_one_thread()
    from lore_runtime import service

    from assembler_svc.bootstrap import build
    from assembler_svc.config import Settings
    from assembler_svc.server import create_server

    service.run("assembler", Settings, build, create_server, lambda settings: settings.addr)


if __name__ == "__main__":
    main()
