"""Numbered SQL migrations per schema, applied once, in order, by the schema's owner role.

Each service ships ``migrations/NNNN_name.sql`` inside its package and calls
``migrate(owner_dsn, schema, discover(package))`` at start-up or from ``lore migrate``.
"""

from lore_migrations.discovery import Migration, discover
from lore_migrations.errors import MigrationError
from lore_migrations.runner import MigrationReport, migrate

__all__ = ["Migration", "MigrationError", "MigrationReport", "discover", "migrate"]
