"""What another local account can do with the local stack's files and stores: a probe run as ``nobody``.

The test process (root in CI) lists what there is: every file and directory under a data
directory, the Postgres sockets, the Valkey ports (the embedded Postgres listens on no TCP port:
``tcp_listeners`` shows it). A child process (forked, then
switched to ``nobody`` with ``setgroups``/``setgid``/``setuid``) tries to read each file, list each
directory, log in to Postgres without a password and run Redis commands without one, and reports
every attempt that succeeded, so a test asserts that list is empty. The child speaks the wire
protocols with plain sockets, as an intruder would, and exits without running any cleanup.
"""

from __future__ import annotations

import json
import os
import pwd
import socket
import stat
import struct
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ACCOUNT = "nobody"
REDIS_COMMANDS = (["KEYS", "*"], ["LRANGE", "lore", "0", "-1"], ["CONFIG", "GET", "dir"], ["FLUSHALL"])


@dataclass
class Targets:
    files: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    postgres_sockets: list[str] = field(default_factory=list)
    redis_ports: list[tuple[str, int]] = field(default_factory=list)


def under(root: Path) -> Targets:
    """Every file, directory and Postgres socket under ``root`` (listed by the test's own account)."""
    targets = Targets(dirs=[str(root)])
    for directory, subdirectories, files in os.walk(root):
        targets.dirs.extend(str(Path(directory) / name) for name in subdirectories)
        for name in files:
            path = Path(directory) / name
            mode = path.lstat().st_mode
            if stat.S_ISSOCK(mode) and name.startswith(".s.PGSQL."):
                targets.postgres_sockets.append(str(path))
            elif stat.S_ISREG(mode):
                targets.files.append(str(path))
    return targets


def open_ancestors_to_traverse(path: Path) -> None:
    """Let other accounts pass through ``path``'s parents (pytest makes its base directory 0700), so a
    probe meets the data directory's own modes rather than a parent that hides it."""
    for parent in path.resolve().parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)


def what_another_account_can_do(targets: Targets) -> list[str]:
    """The attempts of ``nobody`` that succeeded (an empty list is what the stack owes)."""
    assert os.geteuid() == 0, "switching to another account needs root (CI runs the suite as root)"
    account = pwd.getpwnam(ACCOUNT)
    reading, writing = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork() in a threaded process: the child only probes
        pid = os.fork()
    if pid == 0:  # the child: become nobody, probe, report, leave without cleanup
        status = 1
        try:
            os.close(reading)
            os.setgroups([])
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)
            with os.fdopen(writing, "w") as report:
                json.dump(_probe(targets), report)
            status = 0
        finally:
            os._exit(status)
    os.close(writing)
    with os.fdopen(reading) as report:
        answer = report.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and answer, "the probe as nobody failed"
    return json.loads(answer)


def tcp_listeners(pid: int) -> list[str]:
    """The TCP addresses process ``pid`` listens on."""
    import psutil

    return [
        f"{connection.laddr.ip}:{connection.laddr.port}"
        for connection in psutil.Process(pid).net_connections(kind="inet")
        if connection.status == psutil.CONN_LISTEN
    ]


def _probe(targets: Targets) -> list[str]:
    assert os.geteuid() != 0
    succeeded = []
    for path in targets.files:
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            succeeded.append(f"read {path}")
        except OSError:
            pass
    for path in targets.dirs:
        try:
            os.listdir(path)
            succeeded.append(f"listed {path}")
        except OSError:
            pass
    for path in targets.postgres_sockets:
        if _talk(socket.AF_UNIX, path, _postgres_lets_in):
            succeeded.append(f"logged in to Postgres through {path} without a password")
    for host, port in targets.redis_ports:
        for command in REDIS_COMMANDS:
            if _talk(socket.AF_INET, (host, port), lambda sock, command=command: _redis_answers(sock, command)):
                succeeded.append(f"Redis on {host}:{port} answered {' '.join(command)} without a password")
    return succeeded


def _talk(family: int, address: object, conversation: Callable[[socket.socket], bool]) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(address)
            return conversation(sock)
    except OSError:
        return False


def _postgres_lets_in(sock: socket.socket) -> bool:
    """A StartupMessage (protocol 3.0) as the superuser: AuthenticationOk (``R``, 0) means let in unasked."""
    body = struct.pack("!i", 196608) + b"user\0postgres\0database\0postgres\0\0"
    sock.sendall(struct.pack("!i", len(body) + 4) + body)
    reply = sock.recv(9)
    return len(reply) == 9 and reply[:1] == b"R" and struct.unpack("!i", reply[5:9])[0] == 0


def _redis_answers(sock: socket.socket, command: list[str]) -> bool:
    request = f"*{len(command)}\r\n" + "".join(f"${len(part)}\r\n{part}\r\n" for part in command)
    sock.sendall(request.encode())
    reply = sock.recv(65536)
    return bool(reply) and not reply.startswith(b"-")
