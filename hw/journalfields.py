"""The journal's JSON values checked for type before any of them is used.

Why: the journal is data on disk, and its sha256 says only that the body is whole, not that a
writer put the right kinds of value in it (an older or newer thermogov's bug, a hand edit that
recomputed the checksum).  ``JournalEntry(**e)`` took whatever JSON held: a ``pid`` of ``2**70``
or ``Infinity`` made ``int()`` or ``os.kill`` raise OverflowError (an internal error, not the
one line of a corrupt journal), a ``pid`` of ``4190001.5`` was truncated and the journal restored,
and a path given as a number reached the allow-list's string code.  The pid and every string
field (paths, names) are checked here, the paths for their shape too, and every number field
for its kind (a whole number, whatever the board: session 19); the numbers' ranges are judged,
each named, by the allow-list.  A restore either gets what it was written
with or refuses the whole journal (``ValueError``, which :meth:`~thermogov.hw.journal.Journal.load`
turns into the corrupt-journal line, exit 2) before a single write.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

# The largest pid_t (a signed 32-bit int on Linux): any larger value overflows os.kill.
PID_MAX_LIMIT = (1 << 31) - 1


def typed(kind: type[T], obj: Any, where: str) -> T:
    """``kind(**obj)`` when ``obj`` is an object holding exactly ``kind``'s fields (those with a
    default may be absent), each of its string fields (paths, names) is a string and each of its
    number fields a whole number no owned attribute is too small or too large for; else
    ``ValueError`` naming the field.  The numbers' ranges on this board are left to the
    allow-list, which judges each value against the hardware and names it
    (:func:`thermogov.hw.owned.check_window`)."""
    if not isinstance(obj, dict):
        raise ValueError(f"{where} is not an object")
    fields = {f.name: f for f in dataclasses.fields(kind)}  # type: ignore[arg-type]
    extra = sorted(set(obj) - set(fields))
    if extra:
        raise ValueError(f"{where} has unknown field {extra[0]!r}")
    for name, f in fields.items():
        if name not in obj:
            if f.default is dataclasses.MISSING:
                raise ValueError(f"{where} has no {name!r}")
            continue
        if f.type in _WHOLE_TYPES:
            value = obj[name]
            if not (value is None and "None" in str(f.type)) and not _whole(value):
                raise ValueError(
                    f"{where} field {name!r} is {value!r}, not a whole number 0..{LARGEST_VALUE} "
                    "(what every attribute thermogov owns holds): refused whatever the board holds"
                )
            continue
        if f.type not in ("str", str):
            continue
        if not isinstance(obj[name], str):
            raise ValueError(f"{where} field {name!r} is {obj[name]!r}, not a string")
        if name.endswith("rel") and not _root_relative(obj[name]):
            raise ValueError(
                f"{where} field {name!r} is {obj[name]!r}, not a path inside the sysfs root as "
                "thermogov journals one (relative, no '..')"
            )
    return kind(**obj)


# The number fields of the journal's entries (limits, recorded ranges, a fan's or cooling
# device's value, the unit): each a whole number whatever the board, so judged here, before any
# device is looked for.  Left to the allow-list, a string or NaN for a device (or fan) not on
# the board now was skipped as "absent" (exit 1, the journal kept for good) before its value
# was judged, where the same value for a device found was refused (exit 2).
_WHOLE_TYPES = ("int", int, "int | None")
# No attribute thermogov owns holds more: devfreq's limits are ``unsigned long`` Hz (hw/limits.py
# LARGEST_LIMIT), and none holds a negative value (limits, pwm, states, the unit).
LARGEST_VALUE = 2**64 - 1


def _whole(value: Any) -> bool:
    return type(value) is int and 0 <= value <= LARGEST_VALUE


def _root_relative(rel: str) -> bool:
    """A path as ``SysfsTree.relative`` makes one (a real path inside the root): never absolute,
    no empty, ``.`` or ``..`` part, no NUL.  Any other names no attribute thermogov journaled; before,
    one through ``..`` was taken for a device gone since, the other windows were written and the
    restore ended incomplete (exit 1), keeping the journal for good."""
    return (
        not rel.startswith("/") and "\0" not in rel and all(p not in ("", ".", "..") for p in rel.split("/"))
    )


def listed(value: Any, name: str) -> list[Any]:
    """A top-level list field (absent: empty)."""
    if value is None and name != "entries":
        return []
    if not isinstance(value, list):
        raise ValueError(f"{name} is not a list")
    return value


def pid_of(value: Any) -> int:
    """The writer's pid: an integer a Linux pid can be (1..PID_MAX_LIMIT)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= PID_MAX_LIMIT:
        raise ValueError(f"pid {value!r} is no process id (an integer 1..{PID_MAX_LIMIT})")
    return value
