"""Session 22t: a member that is offline again at exit is not counted as rejoined.

At exit, a member that went away mid-run and is back rejoins its domain so the restore puts
back its window of before (:meth:`LateMembers.recall_at_exit`).  When its files answer EBUSY
(offline again between the look that saw it back and the read), the join's verdict is "wait":
nothing was joined.  Session 21's ``recall_at_exit`` took any verdict but "" as a join: it
returned "wait" among the trace tags of members that joined and forgot the member, unlike the
running daemon's look (``_adopt``), which keeps a waiting member and tags nothing.
"""

from __future__ import annotations

import errno
import types
from collections.abc import Sequence

from thermogov.hw.departures import Departed
from thermogov.hw.lateclusters import LateMembers
from thermogov.hw.limits import LimitFiles
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError

P4 = "sys/devices/system/cpu/cpufreq/policy4"
FILES = LimitFiles("policy4", f"{P4}/scaling_min_freq", f"{P4}/scaling_max_freq", "", 1000)


class _Busy:
    """The member's limits as the kernel answers for a policy whose CPUs are all offline."""

    def read_int(self, rel: str) -> int:
        e = ActuatorError(f"{rel}: Device or resource busy")
        e.__cause__ = OSError(errno.EBUSY, "Device or resource busy")
        raise e


class _BackAtExit(LateMembers):
    """One departed member whose files are at its place again (the look before the exit saw it)."""

    looks = 0

    def _setup(self, domains: Sequence[object]) -> None:
        self._departed["policy4"] = Departed(original=(115200, 1497600), capped=(115200, 729600))
        self._held["policy4"] = types.SimpleNamespace(io=_Busy())  # type: ignore[assignment]

    def _back(self, label: str) -> tuple[LimitFiles, Sequence[int]] | None:
        self.looks += 1
        return FILES, (115200000, 729600000, 1497600000)


def test_a_member_offline_again_at_exit_is_no_join_and_stays_departed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    said: list[str] = []
    members = _BackAtExit(SysfsTree(tmp_path), [], lambda: None, said.append)
    assert members.recall_at_exit() == []  # no trace tag: nothing joined
    assert members.recall_at_exit() == []  # still departed: the member is looked at again
    assert members.looks == 2
    assert said == []
