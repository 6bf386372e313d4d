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
judges it by the duties of its device tree, hw/fanlevels.py).  Session 23c: the run records
the duties its looks confirmed (``f`` line of the hwmon's ``pwm1``), and a restore after a
``kill -9`` judges ``pwm1`` by them as the daemon does at a clean exit (:func:`_cooling_device`).
Session 24c: a run that confirmed no duty (killed in its first seconds, a board without
``cooling-levels``, no record) is judged by the fan alone, doubt going to cooling
(:func:`_unconfirmed`).

Session 22a, two of 21f's leftovers:

* a duty the driver clamped to a ``pwm_cap`` lowered mid-run is thermogov's own: the L4T driver
  clamps every ``target_pwm`` write to the cap and, when the cap is lowered, the duty in force
  (``target_pwm_store``, ``pwm_cap_store``: ``min(cap, next_target_pwm)``), so a ``kill -9``
  between thermogov's write over the new cap and the record of its read-back leaves the file at
  the cap, neither recorded value.  A reading equal to a recorded value clamped to the cap read
  now is ours, and the fan is put back; the journaled duty is written as it is, the driver
  clamping it to the cap in force like every write (the cap is another owner's, not lifted);
* without a record of the run (none kept, torn, another lock dir the journal does not name)
  nothing can tell another writer from thermogov's last duty.  The fan is put back to its
  kernel's automatic control where that is known safe and was the board's at start: the L4T
  fan journaled with ``temp_control`` 1 gets ``temp_control`` 1 only (the kernel's curve drives
  ``target_pwm`` from there; a write of the journaled duty could land over another writer's).
  A fan without such a mode (a hwmon ``pwm1`` fan: pwm-fan's ``pwm1_enable`` modes only choose
  what a duty of 0 does, Documentation/hwmon/pwm-fan.rst; the L4T fan found with its curve off)
  is left as it reads, and the line says what thermogov found and how to put it back by hand.
  One exception, the lead's (session 22): a speed reading BELOW its value at start is put back
  whole, because whoever wrote it, the fan as found cools more than the fan as it reads, and a
  restore must never leave the board with less cooling than thermogov found (a higher speed,
  which only cools more, is the one left to a possible other writer).
"""

from __future__ import annotations

import contextlib
import os

from thermogov.hw.fan import discover_fan
from thermogov.hw.fanlevels import cooling_levels, proven
from thermogov.hw.l4tfan import CAP, CONTROL, CONTROL_MAX, TARGET, clamped_to_cap
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

SPEEDS = (TARGET, "pwm1")  # the judged fans' speed attributes (hw/fan.py)
MODES = (CONTROL, "pwm1_enable")  # and who drives that speed
STATE = "cur_state"  # a cooling-device fan's speed: judged by its pwm1 (session 23c)


def _name(rel: str) -> str:
    return rel.rstrip("/").rsplit("/", 1)[-1]


def _clamped(tree: SysfsTree, rel: str, raw: int, want: tuple[int, ...]) -> bool:
    """``raw`` is one of ``want`` as the L4T driver clamps it to the ``pwm_cap`` in force now."""
    if _name(rel) != TARGET:
        return False
    try:
        cap = tree.read_int(f"{rel.rstrip('/').rsplit('/', 1)[0]}/{CAP}")
    except SensorError:
        return False
    return clamped_to_cap(raw, want, cap)


def _cooling_device(
    tree: SysfsTree, attrs: list[tuple[str, int]], state_rel: str, ours: dict[str, tuple[int, ...]]
) -> tuple[list[tuple[str, int]], str]:
    """A fan governed through its cooling device's ``cur_state``, judged as the daemon judges it
    at a clean exit (session 23c): ``pwm1`` other than the device tree's duty of the state it
    reads, where the run saw the driver keep that duty, or no duty of a table the run proved, is
    another writer's and the fan is left; otherwise the found state is put back (step_wise moves
    the state too, so the state itself says nothing)."""
    pwm = next((rel for rel in ours if _name(rel) == "pwm1"), None)
    if pwm is None:  # the run confirmed no duty (or kept no record of them): session 24c
        return _unconfirmed(tree, attrs, state_rel)
    seen = ours[pwm]
    try:
        top = tree.read_int(f"{state_rel.rstrip('/').rsplit('/', 1)[0]}/max_state")
        levels = cooling_levels(tree, pwm.rsplit("/", 1)[0], top)
        state, duty = tree.read_int(state_rel), tree.read_int(pwm)
    except SensorError:  # a failed read says nothing about another writer
        return attrs, ""
    if levels is None or not 0 <= state < len(levels) or duty == levels[state]:
        return attrs, ""
    if levels[state] in seen:
        want = f"{levels[state]}, the duty of cur_state {state} in the device tree's cooling-levels"
    elif proven(levels, seen) and duty not in levels:
        want = f"any duty of the device tree's cooling-levels ({'/'.join(map(str, levels))})"
    else:
        return attrs, ""
    return [], (
        f"fan: {tree.show(pwm)} reads {duty} at cur_state {state}, not {want}, which thermogov's run "
        "saw the driver keep: another writer drives the fan (jtop, fancontrol, a user); left as that "
        "writer set it"
    )


def _unconfirmed(
    tree: SysfsTree, attrs: list[tuple[str, int]], state_rel: str
) -> tuple[list[tuple[str, int]], str]:
    """A cooling-device fan whose run confirmed no duty (killed in its first seconds, no
    ``cooling-levels``, no record): session 24c.  Nothing tells another ``pwm1`` writer from
    thermogov's last state by the run, so the fan itself is asked, and doubt goes to cooling:

    * ``cur_state`` at or below the state found: the found state is put back (the kernel's own
      choice, and never less cooling than now: 22a's rule for a fan read slower than found);
    * above it, with the device tree's ``cooling-levels`` readable and ``pwm1`` reading other
      than the level of the state read: the driver writes only its levels, so a ``pwm1`` writer
      set it (or the table is another build's): left as it reads, more cooling than found, to
      the kernel's governor (its next state change) and the writer, and said with the found
      state to put back by hand.  Otherwise (the driver's own duty, or no table) as before."""
    state_found = dict(attrs).get(state_rel)
    cdev = state_rel.rstrip("/").rsplit("/", 1)[0]
    try:
        state = tree.read_int(state_rel)
        if state_found is None or state <= state_found:
            return attrs, ""
        pwm = _cdev_pwm(tree, cdev)
        levels = (
            cooling_levels(tree, pwm.rsplit("/", 1)[0], tree.read_int(f"{cdev}/max_state")) if pwm else None
        )
        duty = tree.read_int(pwm) if pwm and levels else None
    except SensorError:  # a failed read says nothing about another writer
        return attrs, ""
    if levels is None or duty is None or not 0 <= state < len(levels) or duty == levels[state]:
        return attrs, ""
    return [], (
        f"fan: {tree.show(state_rel)} reads {state}, above the {state_found} found, with "
        f"{tree.show(pwm or '')} {duty}, not {levels[state]}, its duty in the device tree's cooling-levels, "
        "and thermogov's run confirmed no duty: another writer may drive the fan; left as it reads "
        f"(more cooling than found) to it and the kernel's governor (by hand: echo {state_found} > "
        f"{tree.show(state_rel)})"
    )


def _cdev_pwm(tree: SysfsTree, cdev: str) -> str | None:
    """The hwmon ``pwm1`` of the board's pwm-fan (the one :func:`thermogov.hw.fan.discover_fan` finds)."""
    dev = discover_fan(tree)
    if dev is None or dev.cdev_rel is None or dev.pwm_rel is None or not tree.exists(dev.pwm_rel):
        return None
    same = os.path.realpath(tree.path(dev.cdev_rel)) == os.path.realpath(tree.path(cdev))
    return dev.pwm_rel if same else None


def _unrecorded(
    tree: SysfsTree, attrs: list[tuple[str, int]], speed: str, mode: str | None
) -> tuple[list[tuple[str, int]], str]:
    """No record of the run: the kernel's automatic control where known safe, else nothing (module doc)."""
    first = "fan: no record of thermogov's run, so another writer cannot be told from thermogov's last duty"
    reads: list[str] = []
    unchanged = True
    slower = False
    for rel, value in attrs:
        try:
            now = tree.read_int(rel)
        except SensorError as e:
            reads.append(f"{_name(rel)} unreadable ({e})")
            unchanged = False
            continue
        reads.append(f"{_name(rel)} {now}")
        unchanged = unchanged and now == value
        slower = slower or (rel == speed and now < value)
    if unchanged:  # reads as found: putting it back writes nothing new over anyone
        return attrs, ""
    if slower:  # never leave the fan slower than thermogov found it: a restore that cools more is safe
        return attrs, (
            f"{first}: {tree.show(speed)} reads below the {dict(attrs)[speed]} found at start, "
            "so the fan is put back as found (more cooling than now, whoever wrote it)"
        )
    if mode is not None and _name(mode) == CONTROL and dict(attrs)[mode] == CONTROL_MAX:
        return [(mode, CONTROL_MAX)], (
            f"{first}: put back to the kernel's curve ({tree.show(mode)} {CONTROL_MAX}, as found), "
            "the duty left to it"
        )
    found = ", ".join(f"{_name(rel)} {value}" for rel, value in attrs)
    in_order = sorted(attrs, key=lambda rv: _name(rv[0]) in MODES)  # the speed before the mode, as a restore
    by_hand = "; ".join(f"echo {value} > {tree.show(rel)}" for rel, value in in_order)
    why = (
        "the kernel's curve was off when thermogov started"
        if mode is not None and _name(mode) == CONTROL
        else "pwm-fan's pwm1_enable only chooses what a duty of 0 does"
        if mode is not None
        else "the driver shows no mode"
    )
    return [], (
        f"{first}, and it has no automatic mode known safe ({why}): left as it reads "
        f"({', '.join(reads)}); thermogov found {found} (by hand: {by_hand})"
    )


def fan_rival(
    tree: SysfsTree, attrs: list[tuple[str, int]], ours: dict[str, tuple[int, ...]] | None
) -> tuple[list[tuple[str, int]], str]:
    """What of the journaled fan ``attrs`` (attribute, value of before) to put back, and the line
    that says why not all of it ("" when it is put back whole).

    ``ours``: the run's record of what each attribute may read as thermogov's (None: no record).
    An attribute never written by the run must read as journaled, except the speed while the
    mode was never written (the kernel's curve moves it then, as the daemon's rule allows)."""
    names = {_name(rel): rel for rel, _ in attrs}
    speed = next((names[n] for n in SPEEDS if n in names), None)
    if speed is None:
        if STATE in names:
            return _cooling_device(tree, attrs, names[STATE], ours or {})
        return attrs, ""
    mode = next((names[n] for n in MODES if n in names), None)
    if ours is None:
        return _unrecorded(tree, attrs, speed, mode)
    for rel, before in attrs:
        if rel == speed and rel not in ours and (mode is None or mode not in ours):
            continue
        want = ours.get(rel, (before,))
        with contextlib.suppress(SensorError):
            raw = tree.read_int(rel)
            if raw not in want and not _clamped(tree, rel, raw, want):
                whose = "thermogov last wrote" if rel in ours else "thermogov found it"
                shown = " or ".join(str(v) for v in want)
                return [], (
                    f"fan: {tree.show(rel)} reads {raw}, not {shown} as {whose}: another writer drives "
                    "the fan (jtop, fancontrol, a user); left as that writer set it"
                )
    return attrs, ""
