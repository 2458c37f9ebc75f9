"""The shared runtime of Lore's gRPC services.

Nothing here reads the environment or opens a connection at import time: services call
these helpers from their own bootstrap.
"""
