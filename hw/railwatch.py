"""An input rail that goes bad mid-run, and comes back: said once, never per tick.

``doctor`` and ``run``'s start say a rail that reads no power at start (hw/doctor.py
``power_warnings``).  A rail can also go bad later, after good reads: an INA3221 whose I2C bus
stalls (the driver's read fails), a chip reset that reads 0, a wrong shunt value after a
device-tree overlay.  Each tick then reads as unknown (``power_w`` empty, ``None`` to a
power-aware policy: hw/telemetry.py), which the trace shows but nothing said.

:class:`RailWatch` is told of each change of state only (the telemetry compares a flag per
tick, nothing more), and says the first bad read with its file(s) and value, and the first
good one after it.  A rail that flaps (bad and good by turns, every tick) would still write a
line per change: a bad read is said at most once per ``repeat_s`` (30 s, the daemon's own
repeat interval for identical lines), the ones in between counted into the next line said,
and a recovery is said only after a bad read that was.
"""

from __future__ import annotations

from collections.abc import Callable

REPEAT_S = 30.0


class RailWatch:
    """The lines of one rail's changes between usable and unusable readings."""

    def __init__(
        self,
        label: str,
        files: str,
        log: Callable[[str], None],
        clock: Callable[[], float],
        repeat_s: float = REPEAT_S,
    ) -> None:
        self._label = label
        self._files = files  # the rail's file(s) as the board shows them (telemetry.rail_files)
        self._log = log
        self._clock = clock  # the runner's time of the tick, in s
        self._repeat_s = repeat_s
        self._said_at: float | None = None  # when the last bad read was said
        self._unsaid = 0  # bad reads since then, not said
        self._bad_said = False  # the current bad spell was said

    def went_bad(self, why: str) -> None:
        """A bad read after a good one (or the first read of the run, when not said at start)."""
        now = self._clock()
        if self._said_at is not None and now - self._said_at < self._repeat_s:
            self._unsaid += 1
            self._bad_said = False
            return
        more = f"; it went bad {self._unsaid} more times since the last line" if self._unsaid else ""
        self._log(
            f"warning: board power is unreadable from t={now:.1f} s ({self._files}: {why}); the "
            f"trace's power_w is empty and a power-aware policy sees none until it reads again{more}"
        )
        self._said_at, self._unsaid, self._bad_said = now, 0, True

    def came_back(self, watts: float) -> None:
        """A good read after a bad one."""
        if self._bad_said:
            self._log(f"board power readable again at t={self._clock():.1f} s ({self._label}: {watts:.2f} W)")
        self._bad_said = False
