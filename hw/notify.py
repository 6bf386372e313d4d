"""The systemd notify protocol (sd_notify(3)), with the standard library only.

Under ``Type=notify`` with ``WatchdogSec=``, systemd considers the unit started only after
``READY=1`` and kills it (then ``ExecStopPost`` restores the board and ``Restart=`` starts it
again) when no ``WATCHDOG=1`` arrives within the watchdog period: a daemon hung in a sysfs read
or a deadlock cannot leave the board throttled, or unthrottled, while looking alive.

A message is one datagram on the ``AF_UNIX`` socket named by ``$NOTIFY_SOCKET``: a path, or an
abstract-namespace name written with a leading ``@`` (sd_notify(3), "NOTIFY_SOCKET").  Outside
systemd the variable is unset and every call is a no-op.  The variable is removed from the
environment once read, so a ``cmd:`` workload cannot speak for the daemon.  A failed send is
reported once and never stops governing: losing the watchdog is systemd's to act on.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, MutableMapping

ENV = "NOTIFY_SOCKET"


def socket_address(value: str) -> str:
    """``@name`` -> the abstract address ``\\0name``; a path stays a path."""
    return "\0" + value[1:] if value.startswith("@") else value


class Notifier:
    def __init__(
        self,
        env: MutableMapping[str, str] | None = None,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        env = os.environ if env is None else env
        value = env.pop(ENV, "")
        self._addr = socket_address(value) if value else ""
        self._sock: socket.socket | None = None
        self._on_error = on_error
        self._failed = False
        if self._addr:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def send(self, message: str) -> None:
        sock = self._sock
        if sock is None:
            return
        try:
            sock.sendto(message.encode(), self._addr)
        except OSError as e:
            if not self._failed and self._on_error is not None:
                self._on_error(f"systemd notify: cannot send {message!r} to {ENV} ({e.strerror})")
            self._failed = True

    def ready(self, status: str = "") -> None:
        self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def watchdog(self) -> None:
        if self._sock is not None:  # every control tick: outside systemd, not even a call
            self.send("WATCHDOG=1")

    def stopping(self) -> None:
        self.send("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
