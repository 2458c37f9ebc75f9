"""Finding a package's migrations: ``NNNN_name.sql`` files read through importlib.resources.

Reading through importlib.resources (not the file system) keeps migrations working when
the service is installed as a wheel or zipped; the checksum lets the runner notice a
migration that was edited after it had been applied somewhere.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources

from lore_migrations.errors import MigrationError

FILE_NAME = re.compile(r"^(?P<version>\d{4})_(?P<name>[a-z0-9][a-z0-9_]*)\.sql$")


@dataclass(frozen=True)
class Migration:
    """One SQL script; ``checksum`` is the sha256 of its text with line endings normalised."""

    version: int
    name: str
    sql: str
    checksum: str

    @classmethod
    def from_sql(cls, version: int, name: str, sql: str) -> Migration:
        """Build a migration from text, computing its checksum (handy in tests and generated sets)."""
        return cls(version=version, name=name, sql=sql, checksum=checksum(sql))


def checksum(sql: str) -> str:
    """sha256 of the script, ignoring CRLF versus LF so a Windows checkout does not look edited."""
    return hashlib.sha256(sql.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def discover(package: str, folder: str = "migrations") -> list[Migration]:
    """The migrations in ``package``/``folder``, sorted by version.

    Every ``.sql`` file there must be named ``NNNN_name.sql`` (four digits, lower-case
    name); versions must be unique and positive. Other files (``__init__.py``, READMEs)
    are ignored.
    """
    try:
        root = resources.files(package).joinpath(folder)
    except ModuleNotFoundError as error:
        raise MigrationError(f"cannot discover migrations: package {package!r} is not importable") from error
    if not root.is_dir():
        raise MigrationError(f"cannot discover migrations: {package}/{folder} is not a directory")

    by_version: dict[int, Migration] = {}
    for entry in root.iterdir():
        if not entry.is_file() or not entry.name.endswith(".sql"):
            continue
        match = FILE_NAME.match(entry.name)
        if match is None:
            raise MigrationError(
                f"bad migration file name {package}/{folder}/{entry.name!r}: expected NNNN_name.sql "
                "(four digits, an underscore, lower-case letters, digits and underscores)"
            )
        version = int(match["version"])
        if version == 0:
            raise MigrationError(f"bad migration file name {package}/{folder}/{entry.name!r}: version 0000 is reserved")
        if version in by_version:
            raise MigrationError(
                f"duplicate migration version {version:04d} in {package}/{folder}: "
                f"{by_version[version].name!r} and {match['name']!r}"
            )
        by_version[version] = Migration.from_sql(version, match["name"], entry.read_text(encoding="utf-8"))
    return [by_version[version] for version in sorted(by_version)]
