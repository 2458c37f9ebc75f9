import os
import sys

import uvicorn
from lore_runtime.logs import configure_logging
from lore_runtime.redaction import Redactor
from lore_runtime.settings import SettingsError, load_settings
from lore_runtime.telemetry import instrument_http_app, setup_telemetry

from gateway_svc.config import Settings
from gateway_svc.server import create_app


def main() -> None:
    try:
        settings = load_settings(Settings, os.environ)
    except SettingsError as error:
        print(f"lore-gateway: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    configure_logging("gateway", settings.log_level, redactor=Redactor(settings.redact))
    provider = setup_telemetry("gateway")
    app = create_app(settings, tracer_provider=provider)
    instrument_http_app(app, provider)
    # uvicorn handles SIGTERM/SIGINT: it stops accepting, finishes in-flight requests, runs the lifespan exit.
    # proxy_headers off: uvicorn would believe X-Forwarded-For from 127.0.0.1 (any local process);
    # the client's address is the gateway's to decide, under LORE_TRUSTED_PROXIES (auth_failures.py).
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,
        timeout_graceful_shutdown=10,
        proxy_headers=False,
    )


if __name__ == "__main__":
    main()
