"""Embedded back ends for tests and ``lore up``: a Postgres with pgvector and a Redis-protocol server.

Nothing here is meant for production: the servers run as child processes of the caller and
the database roles get fixed development passwords unless told otherwise. They are still their
owner's alone: directories 0700, files 0600, a Postgres that asks every connection for a password
and a Valkey that answers nothing but PING without one (lore_devstack/private.py).
"""

from lore_devstack.database import DatabaseUrls, prepare_database
from lore_devstack.net import free_port
from lore_devstack.postgres import EmbeddedPostgres
from lore_devstack.redis import EmbeddedRedis

__all__ = ["DatabaseUrls", "EmbeddedPostgres", "EmbeddedRedis", "free_port", "prepare_database"]
