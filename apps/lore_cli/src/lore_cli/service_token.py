"""The local stack's service token: the credential its gRPC services ask of every caller.

``lore up`` generates one on first start into ``LORE_DATA_DIR/service-token`` (mode 0600, reused on
every later start) and gives it to its children as ``LORE_SERVICE_TOKEN``, unless that is already set.
The services listen on loopback, where any local user can connect: the file's mode is what keeps
other users out. The commands that call services (``lore reindex``, ``lore org export`` …) send
``LORE_SERVICE_TOKEN`` when set, else this file's token.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from lore_runtime.service_auth import ServiceTokens, check_token

FILE_NAME = "service-token"


def data_dir(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("LORE_DATA_DIR") or ".lore")


def _stored(path: Path) -> str | None:
    try:
        return check_token(path.read_text().strip())
    except (OSError, ValueError):
        return None


def ensure_local_token(directory: Path) -> str:
    """The token kept in ``directory``, generated (0600) when there is none yet."""
    path = directory / FILE_NAME
    stored = _stored(path)
    if stored is not None:
        return stored
    token = secrets.token_urlsafe(32)
    directory.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(token + "\n")
    os.chmod(path, 0o600)  # a file that existed keeps its mode through O_CREAT
    return token


def local_tokens(environ: Mapping[str, str]) -> ServiceTokens | None:
    """The local stack's token (``LORE_DATA_DIR/service-token``), when ``lore up`` wrote one."""
    stored = _stored(data_dir(environ) / FILE_NAME)
    return ServiceTokens(stored) if stored is not None else None
