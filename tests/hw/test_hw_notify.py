"""systemd notify protocol: READY=1 once governing, WATCHDOG=1 every tick, STOPPING=1 on exit.

A fake systemd: a real ``AF_UNIX`` datagram socket in a short tmp folder (socket paths are
limited to 108 bytes) or in the abstract namespace, passed as ``NOTIFY_SOCKET``.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.notify import Notifier, socket_address

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake_systemd() -> Iterator[tuple[socket.socket, str]]:
    d = tempfile.mkdtemp(prefix="tgn")
    path = os.path.join(d, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(procutil.DEADLINE_S)
    yield sock, path
    sock.close()
    shutil.rmtree(d)


def _messages(sock: socket.socket, until: str) -> list[str]:
    out = []
    while True:
        msg = sock.recv(4096).decode()
        out.append(msg)
        if msg.startswith(until):
            return out


def _start(tmp: Path, notify: str, *extra: str) -> subprocess.Popen[bytes]:
    fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)
    os.environ["NOTIFY_SOCKET"] = notify
    try:
        return procutil.start_run(tmp, *extra)
    finally:
        del os.environ["NOTIFY_SOCKET"]


def test_the_daemon_speaks_the_notify_protocol(tmp_path: Path, fake_systemd) -> None:  # type: ignore[no-untyped-def]
    sock, path = fake_systemd
    proc = _start(tmp_path, path)
    first = _messages(sock, "READY=1")
    assert first[-1].startswith("READY=1") and "STATUS=governing jetson-orin-nano" in first[-1]
    assert all(m == "WATCHDOG=1" for m in _messages(sock, "WATCHDOG=1") + _messages(sock, "WATCHDOG=1"))
    proc.send_signal(signal.SIGTERM)
    rest = _messages(sock, "STOPPING=1")
    assert set(rest[:-1]) <= {"WATCHDOG=1"}
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0


def test_abstract_namespace_sockets_are_understood(tmp_path: Path) -> None:
    name = f"thermogov-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(procutil.DEADLINE_S)
    try:
        proc = _start(tmp_path, "@" + name)
        assert _messages(sock, "READY=1")[-1].startswith("READY=1")
        proc.send_signal(signal.SIGTERM)
        _messages(sock, "STOPPING=1")
        proc.communicate(timeout=procutil.DEADLINE_S)
    finally:
        sock.close()
    assert socket_address("@x") == "\0x" and socket_address("/run/x") == "/run/x"


def test_the_workload_does_not_inherit_the_notify_socket(tmp_path: Path, fake_systemd) -> None:  # type: ignore[no-untyped-def]
    sock, path = fake_systemd
    fifo = tmp_path / "child-env"
    os.mkfifo(fifo)
    script = tmp_path / "env.py"
    script.write_text(f"import os\nopen({str(fifo)!r}, 'w').write(os.environ.get('NOTIFY_SOCKET', '-'))\n")
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    proc = _start(tmp_path, path, "--workload", f"cmd:{sys.executable} {script}")
    _messages(sock, "READY=1")
    ready, _, _ = select.select([rfd], [], [], procutil.DEADLINE_S)
    seen = os.read(rfd, 4096).decode() if ready else "timeout"
    os.close(rfd)
    proc.send_signal(signal.SIGTERM)
    _messages(sock, "STOPPING=1")
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert seen == "-"


def test_without_notify_socket_nothing_is_sent() -> None:
    env: dict[str, str] = {}
    n = Notifier(env)
    assert not n.enabled
    n.ready()
    n.watchdog()  # no socket, no error


def test_a_vanished_socket_is_reported_once_and_never_raises() -> None:
    errors: list[str] = []
    n = Notifier({"NOTIFY_SOCKET": "/nonexistent/notify"}, on_error=errors.append)
    for _ in range(3):
        n.watchdog()
    assert len(errors) == 1 and "WATCHDOG=1" in errors[0]


def test_the_unit_is_type_notify_with_a_watchdog_and_restores_after_stop() -> None:
    unit = (REPO / "hw" / "thermogov.service").read_text()
    keys = dict(
        line.split("=", 1) for line in unit.splitlines() if "=" in line and not line.lstrip().startswith("#")
    )
    assert keys["Type"] == "notify" and keys["NotifyAccess"] == "main"
    assert keys["WatchdogSec"].rstrip("s").isdigit() and keys["Restart"] == "on-failure"
    assert keys["ExecStopPost"].endswith("thermogov restore")
