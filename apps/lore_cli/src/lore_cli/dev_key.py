"""The local stack's development API key (ARCHITECTURE.md §7).

``LORE_DEV_API_KEY`` (16+ characters) fixes its value across restarts; otherwise one is
generated on first start and its plaintext kept in ``LORE_DATA_DIR/dev-api-key`` with
mode 0600, so every later start prints the same key.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

MIN_LENGTH = 16
FILE_NAME = "dev-api-key"


class DevKeyError(Exception):
    """LORE_DEV_API_KEY is set to something unusable."""


def resolve_dev_key(environ: Mapping[str, str], data_dir: Path) -> str:
    configured = environ.get("LORE_DEV_API_KEY", "")
    if configured:
        if len(configured) < MIN_LENGTH or any(char.isspace() for char in configured):
            raise DevKeyError(f"LORE_DEV_API_KEY must be at least {MIN_LENGTH} characters, without spaces")
        return configured
    path = data_dir / FILE_NAME
    if path.exists():
        stored = path.read_text().strip()
        if len(stored) >= MIN_LENGTH:
            return stored
    key = "lore_dev_" + secrets.token_urlsafe(32)
    data_dir.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key + "\n")
    os.chmod(path, 0o600)
    return key
