"""free_port: the kernel may give a just-released port out again; a process never gets it twice."""

from __future__ import annotations

import socket

import pytest
from lore_devstack import net


class ScriptedSocket:
    """A socket whose kernel-chosen port comes from a script."""

    ports: list[int] = []

    def __init__(self, *_args: object) -> None:
        pass

    def __enter__(self) -> ScriptedSocket:
        return self

    def __exit__(self, *_exc: object) -> None:
        pass

    def bind(self, _address: tuple[str, int]) -> None:
        pass

    def getsockname(self) -> tuple[str, int]:
        return ("127.0.0.1", ScriptedSocket.ports.pop(0))


def test_a_port_the_kernel_repeats_is_not_handed_out_twice(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(net, "_handed_out", set())
    monkeypatch.setattr(net.socket, "socket", ScriptedSocket)
    ScriptedSocket.ports = [40001, 40001, 40001, 40002]
    assert [net.free_port(), net.free_port()] == [40001, 40002]


def test_the_ports_are_real_and_distinct():
    ports = [net.free_port() for _ in range(50)]
    assert len(set(ports)) == 50
    for port in ports[:3]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", port))
