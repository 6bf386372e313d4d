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
from collections.abc import Sequence

from thermogov.hw.nvpmodelconf import CONF_REL, ConfError, read_conf_text
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


# -- Session 28r: a Super power mode under a profile that is not, or the reverse --------------------
_MODE_HEADER = re.compile(r"<\s*POWER_MODEL\b([^>]*)>")
_ATTR = re.compile(r"\b(ID|NAME)=(\S+)")


def mode_names(text: str) -> dict[int, str]:
    """Each ``< POWER_MODEL ID=N NAME=X >`` header of nvpmodel's configuration: {N: X}.  Only the
    headers are read (a name is said, nothing acts on it): a file the strict parser of
    hw/nvpmodelconf.py refuses still names its modes."""
    out: dict[int, str] = {}
    for m in _MODE_HEADER.finditer(text):
        attrs = dict(_ATTR.findall(m.group(1)))
        ident, name = attrs.get("ID", ""), attrs.get("NAME", "")
        if ident.isdigit() and name and name.isprintable():
            out.setdefault(int(ident), name[:40])
    return out


def _says_super(name: str) -> bool:
    return "super" in re.split(r"[^a-z0-9]+", name.lower())


def super_mismatch(tree: SysfsTree, board_name: str, profiles: Sequence[str]) -> str:
    """One line when nvpmodel's mode and the profile disagree on "Super" (else ""); read only.

    The Orin Nano "Super" is a firmware and power-mode unlock of the same module (JetPack 6.2's
    modes end in ``MAXN_SUPER``; the profile ``jetson-orin-nano-super`` describes what they let
    run: higher OPP tops, a 25 W budget).  The rule, for any profile: a profile is a Super one
    when a word of its name is ``super``; the board runs Super firmware when a mode of
    ``/etc/nvpmodel.conf`` has such a name.  Said when the mode nvpmodel recorded
    (``/var/lib/nvpmodel/status``, :func:`read_power_mode`) is a Super mode and the profile is
    not, or the profile is a Super one and no mode of the configuration is (a lower mode of a
    Super board, 15 W, is the profile's own board and is not said).  The mode is never changed."""
    try:
        names = mode_names(read_conf_text(tree))
    except ConfError:
        return ""
    if not names:
        return ""
    mode = read_power_mode(tree)
    now = names.get(mode) if mode is not None else None
    if _says_super(board_name):
        if any(_says_super(n) for n in names.values()):
            return ""
        bases = [p for p in profiles if not _says_super(p) and board_name.startswith(_base(p))]
        other = f"choose {' or '.join(bases)} with --board" if bases else "choose a profile without Super"
        return (
            f"board profile {board_name} is a Super one but /{CONF_REL} defines no *SUPER mode "
            f"(firmware before the Super unlock?): its OPP tops and budget are above this board's; {other}"
        )
    if now is None or not _says_super(now):
        return ""
    supers = [p for p in profiles if _says_super(p) and board_name.startswith(_base(p))]
    other = f"choose {' or '.join(supers)} with --board" if supers else "choose a Super profile with --board"
    return (
        f"nvpmodel mode {mode} is {now} (/{STATUS_REL}, /{CONF_REL}), a Super mode, but board profile "
        f"{board_name} is not a Super one: its OPP tops and budget are below what the mode lets run; {other}"
    )


def _base(profile: str) -> str:
    """A profile's name without its ``super`` words (``jetson-orin-nano-super`` -> ``jetson-orin-nano``)."""
    return "-".join(w for w in profile.split("-") if w.lower() != "super")


class SuperWatch:
    """Session 29r: :func:`super_mismatch` again after an ``nvpmodel -m`` mid-run, said once.

    The start's line (28r) said nothing of a mode changed later: a board switched to
    ``MAXN_SUPER`` under the plain profile ran the whole run governed against tops and a budget
    below what the mode lets run, unsaid.  On the limit watch's cadence (once a second) the
    status file is read (:func:`read_power_mode`: a ``stat`` and a read of a few bytes); only
    when the mode it records differs from the last one read is the rule asked again (the
    configuration read once more), and a line is said when the rule gives one not said before
    in this run (the start's included).  A status that stops reading, or a mode back to one
    already judged, says nothing.  Only on a board whose nvpmodel configuration named modes
    at start (a Jetson with nvpmodel): elsewhere nothing is read.  Read only, as the start's."""

    def __init__(self, tree: SysfsTree, board_name: str, profiles: Sequence[str], said: str = "") -> None:
        self._tree = tree
        self._board = board_name
        self._profiles = tuple(profiles)
        self._said = {said} if said else set()
        try:
            self._active = bool(mode_names(read_conf_text(tree)))
        except ConfError:
            self._active = False
        self._mode = read_power_mode(tree) if self._active else None

    def look(self) -> list[str]:
        """The line to say when nvpmodel's mode changed since the last look into a mismatch."""
        if not self._active:
            return []
        mode = read_power_mode(self._tree)
        if mode is None or mode == self._mode:
            return []
        was, self._mode = self._mode, mode
        line = super_mismatch(self._tree, self._board, self._profiles)
        if not line or line in self._said:
            return []
        self._said.add(line)
        since = f"from {was} " if was is not None else ""
        return [f"warning: nvpmodel mode changed {since}to {mode} during the run: {line}"]
