"""A journal restore of the L4T fan judged by the rival rule (session 21f).

Why: a fan left to another writer mid-run (:class:`thermogov.hw.fan.HwFan`, jtop or a user) is
dropped from the journal by a rewrite; a ``kill -9`` before that rewrite, or a rewrite that
failed (a warning), leaves the fan journaled, and ``thermogov restore`` then wrote the board's
earlier settings over that writer.  The run records the values each fan attribute may read as
thermogov's own (:meth:`thermogov.hw.lastcaps.LastCaps.fan_wrote`); a restore puts the fan
back only while every attribute still reads one of them, and otherwise leaves the whole fan
as it reads and says so (the duty and the mode are one choice: the daemon's rule).

The rule is the daemon's (session 21d made it one for the L4T fan and a hwmon ``pwm1`` fan): a
journal whose speed is ``target_pwm`` or ``pwm1`` is judged; one governed through a cooling
device's ``cur_state`` is put back as before (step_wise moves that state too, and the daemon
does not judge such a fan: its per-state duty rule was withdrawn, hw/fan.py).  Without a record
of the journal's run (none kept, or another boot, root or run) the fan is put back as journaled, as before: nothing can tell a rival from thermogov's
last duty then, and a fan stuck at a fixed duty with the kernel's curve off, the clocks
restored to full, is the worse of the two mistakes.
"""

from __future__ import annotations

import contextlib

from thermogov.hw.l4tfan import CONTROL, TARGET
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

SPEEDS = (TARGET, "pwm1")  # the judged fans' speed attributes (hw/fan.py)
MODES = (CONTROL, "pwm1_enable")  # and who drives that speed


def _name(rel: str) -> str:
    return rel.rstrip("/").rsplit("/", 1)[-1]


def fan_rival(tree: SysfsTree, attrs: list[tuple[str, int]], ours: dict[str, tuple[int, ...]] | None) -> str:
    """Why the journaled fan ``attrs`` (attribute, value of before) must be left alone, or "".

    ``ours``: the run's record of what each attribute may read as thermogov's (None: no record).
    An attribute never written by the run must read as journaled, except the speed while the
    mode was never written (the kernel's curve moves it then, as the daemon's rule allows)."""
    names = {_name(rel): rel for rel, _ in attrs}
    speed = next((names[n] for n in SPEEDS if n in names), None)
    if ours is None or speed is None:
        return ""
    mode = next((names[n] for n in MODES if n in names), None)
    for rel, before in attrs:
        if rel == speed and rel not in ours and (mode is None or mode not in ours):
            continue
        want = ours.get(rel, (before,))
        with contextlib.suppress(SensorError):
            raw = tree.read_int(rel)
            if raw not in want:
                whose = "thermogov last wrote" if rel in ours else "thermogov found it"
                shown = " or ".join(str(v) for v in want)
                return (
                    f"fan: {tree.show(rel)} reads {raw}, not {shown} as {whose}: another writer drives "
                    "the fan (jtop, fancontrol, a user); left as that writer set it"
                )
    return ""
