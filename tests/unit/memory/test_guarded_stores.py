"""The guarded stores stand for the ports everywhere the service runs: a port method they lack is
an AttributeError on the first call in production (the use-case tests use the fakes directly)."""

from __future__ import annotations

import pytest
from memory_svc.usecases.episode_ports import EpisodeIndex
from memory_svc.usecases.guarded_stores import GuardedEpisodeIndex, GuardedMemoryIndex
from memory_svc.usecases.memory_ports import MemoryCatalog, MemoryIndex


def port_methods(*ports: type) -> set[str]:
    return {name for port in ports for name in vars(port) if not name.startswith("_") and callable(vars(port)[name])}


@pytest.mark.parametrize(
    ("guarded", "ports"),
    [(GuardedMemoryIndex, (MemoryIndex, MemoryCatalog)), (GuardedEpisodeIndex, (EpisodeIndex,))],
)
def test_every_port_method_goes_through_the_guard(guarded: type, ports: tuple[type, ...]) -> None:
    missing = {name for name in port_methods(*ports) if not hasattr(guarded, name)}

    assert port_methods(*ports) and not missing
