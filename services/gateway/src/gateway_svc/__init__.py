"""Lore REST gateway: the public JSON API in front of the gRPC services."""
