"""Since when a sensor is waited for: the published entry and its line (session 24a).

``status`` said *what* a waiting sensor is looked for as (session 23b) but not since when: a GPU
zone waited for 2 s at a boot and one waited for 3 days (its module never loads) read the same.
The daemon publishes, per sensor in ``temperature_c.waiting``, what it is looked for as, the
seconds it has been waited for (the daemon's monotonic clock: a wall-clock step does not change
them) and the wall-clock time the wait began (``time.time()`` read then, for a reader's journal
search).  ``status`` and ``doctor`` (which reads a running daemon's state) print the same line.
A daemon of session 23b published the string alone: :func:`entry` reads both forms.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from thermogov.interfaces import ThermogovError


class Waited(NamedTuple):
    looked_for: str
    waited_s: float | None  # None: an older daemon's entry (what alone)
    since_unix: float | None


def published(looked_for: str, since_s: float, since_unix: float, now_s: float) -> dict[str, object]:
    """The state document's entry of one sensor waited for since ``since_s`` (daemon clock)."""
    return {
        "looked_for": looked_for,
        "waited_s": round(max(now_s - since_s, 0.0), 1),
        "since_unix": round(since_unix, 3),
    }


def _finite(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def entry(value: Any) -> Waited | None:
    """One published entry, either form (session 23b's string, this one's object); None if neither."""
    if isinstance(value, str):
        return Waited(value, None, None)
    if isinstance(value, Mapping) and isinstance(value.get("looked_for"), str):
        return Waited(value["looked_for"], _finite(value.get("waited_s")), _finite(value.get("since_unix")))
    return None


def since_text(w: Waited) -> str:
    """``for 73 s, since 2026-12-06 12:00:01 UTC`` (empty for an older daemon's entry)."""
    if w.waited_s is None:
        return ""
    text = f" for {w.waited_s:.0f} s"
    if w.since_unix is not None:
        # A finite number past time_t or year 9999 (a damaged or hand-made state file) is shown
        # without its start: gmtime's OverflowError ended `status` and `doctor` (session 25r).
        with contextlib.suppress(OverflowError, OSError, ValueError):
            text += f", since {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(w.since_unix))}"
    return text


def line(name: str, value: Any) -> str | None:
    """``status``'s line of one sensor waited for."""
    w = entry(value)
    return None if w is None else f"waiting for {name} ({w.looked_for}){since_text(w)}"


class RunningWaits(NamedTuple):
    pid: int
    waits: dict[str, Waited]


def running_waits(path: Path | None, board: str, said: list[str] | None = None) -> RunningWaits | None:
    """What a live daemon governing ``board`` publishes as waited for (``doctor``); None when no
    daemon publishes there, its state is stale or unreadable, or it governs another profile.
    ``said``: gets why a state file that is there could not be read (session 25l: before, a
    hostile or corrupt one was passed over in silence, as if no daemon ran)."""
    from thermogov.client import current, default_state_path  # the client's checks
    from thermogov.interfaces import RuntimeFailure, ThermogovError

    try:
        s = current(path)
    except (ThermogovError, RuntimeFailure, OSError) as e:  # no daemon, or not its state
        p = path if path is not None else default_state_path()
        if said is not None and os.path.lexists(p):  # there but not read: said; none: no daemon
            said.append(f"state file not read: {' '.join(str(e).split())}")
        return None
    if s.board != board or s.stale:
        return None
    raw = s.raw.get("temperature_c", {})
    waiting = raw.get("waiting") if isinstance(raw, Mapping) else None
    if not isinstance(waiting, Mapping):
        return None
    return RunningWaits(s.pid, {str(n): w for n, v in waiting.items() if (w := entry(v)) is not None})


def check_state_option(path: Path) -> ThermogovError | None:
    """The refusal of a ``doctor --state`` the user gave that no state file can be read at
    (exit 2 after the report, one line), as ``status --state`` has it: a FIFO, a device, a link
    loop, a path through a file, a file that is not a thermogov state (binary, truncated, too
    large or deep, a field of the wrong kind); None when it reads.  A missing or unreadable file
    is no running daemon, not a mistake in the path: no refusal (hostile round 28h; before,
    every such file was only the report's "state file not read" line, and exit 0)."""
    from thermogov.client import NoState, StateFormatError, current
    from thermogov.interfaces import ConfigError

    try:
        current(path)
    except NoState:
        return None
    except StateFormatError as e:
        return ConfigError(f"--state: {' '.join(str(e).split())}")
    return None
