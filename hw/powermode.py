"""The operator's power mode on a Jetson: nvpmodel's status file, read at start and at exit.

nvpmodel caps the same limit files thermogov owns (a lower mode writes a lower
``scaling_max_freq`` and the GPU's ``max_freq``, and may shrink the GPU's OPP list).  From the
limit files alone a mode change cannot be told from a kernel thermal clamp
(:mod:`thermogov.hw.limitwatch`), so exit restore wrote the values of before over it and
undid the operator's choice, with a warning.  nvpmodel itself records the mode it set: stock
L4T keeps it in ``/var/lib/nvpmodel/status`` as a line such as ``pmode:0002 fmode:...`` (the
mode persists across power cycles and ``nvpmodel -q`` reports it: NVIDIA's L4T Development
Guide, "Power Management for Jetson Nano and Jetson TX1 Devices", "Supported Modes and Power
Efficiency", https://docs.nvidia.com/jetson/archives/l4t-archived/l4t-3271/Tegra%20Linux%20Driver%20Package%20Development%20Guide/power_management_nano.html;
the file's path and its ``pmode:NNNN`` form are not in those pages: they are what public
scripts read, e.g. almond-bot/axol pull request 220 and innate-inc/innate-os pull request 513
on GitHub, so treat them as observed, not specified).

The file is read, never written, through the sysfs root's :class:`SysfsTree` (so tests use a
fake tree and a path leading outside the root is refused).  A file that is missing,
unreadable or not in that form gives no mode, and then nothing changes: restore behaves as
before.  Only two readable, different modes count as a change.  Only a regular file is opened:
nvpmodel writes one, and the daemon runs as root, for which opening a FIFO releases its blocked
writer and opening a device node can act (a watchdog device starts counting when opened:
the kernel's Documentation/watchdog/watchdog-api.rst), so a status path that names anything
else gives no mode without being opened.
"""

from __future__ import annotations

import os
import re
import stat

from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

STATUS_REL = "var/lib/nvpmodel/status"
_PMODE = re.compile(r"pmode:([0-9]{1,6})(?:\s|$)")


def read_power_mode(tree: SysfsTree) -> int | None:
    """nvpmodel's current mode id, or None when the status file gives none (see module doc)."""
    try:
        if not stat.S_ISREG(os.stat(tree.resolve(STATUS_REL)).st_mode):
            return None
        text = tree.read_text(STATUS_REL)
    except (SensorError, OSError):
        return None
    m = _PMODE.match(text)
    return int(m.group(1)) if m else None


class PowerModeWatch:
    """The mode read at start, compared with the mode read at exit."""

    def __init__(self, tree: SysfsTree) -> None:
        self._tree = tree
        self.at_start = read_power_mode(tree)
        # The mode the journal's limits belong to: the one found at start until the limit watch
        # adopts a change (hw/limitwatch.py), then that one (hw/journal.py, ``power_mode``).
        self.journaled = self.at_start
        self._last_change: int | None = None

    def changed(self) -> tuple[int, int] | None:
        """(mode at start, mode now) when both are readable and differ, else None."""
        if self.at_start is None:
            return None
        now = read_power_mode(self._tree)
        if now is None or now == self.at_start:
            return None
        self._last_change = now
        return self.at_start, now

    def adopt(self) -> None:
        """The windows the last change seen (:meth:`changed`) set are now what restore puts back:
        the journal written next says they belong to that mode.  Called before that write, so
        the windows and the mode go to disk together."""
        if self._last_change is not None:
            self.journaled = self._last_change

    @property
    def last_change(self) -> int | None:
        """The mode of the last change :meth:`changed` saw (None before one)."""
        return self._last_change

    def where(self) -> str:
        return self._tree.show(STATUS_REL)
