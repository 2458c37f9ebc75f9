"""Ports for servers started on this machine."""

from __future__ import annotations

import socket
import threading

# The kernel may hand a just-released ephemeral port out again at once. A caller that picks several
# ports before starting the servers (a gateway's and a metrics endpoint's) must get distinct ones,
# or one server answers on the address meant for another.
_handed_out: set[tuple[str, int]] = set()
_lock = threading.Lock()


def free_port(host: str = "127.0.0.1") -> int:
    """An ephemeral port chosen by the kernel (less collision-prone than scanning upwards), never one
    this process was given before."""
    with _lock:
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                sock.bind((host, 0))
                port = int(sock.getsockname()[1])
            if (host, port) not in _handed_out:
                _handed_out.add((host, port))
                return port
