"""Frequency-limit files and the one valid order for writing a [min, max] window.

Kernels disagree about ``min > max`` (kernel Documentation/admin-guide/pm/cpufreq.rst,
``cpufreq_verify_within_limits`` in include/linux/cpufreq.h, Documentation/ABI/testing/
sysfs-class-devfreq):

* before 5.4, cpufreq (and old devfreq) return ``EINVAL`` when a new min is above the current
  max or a new max is below the current min;
* from 5.4 both are QoS requests and the kernel clamps silently (effective
  ``min = clamp(min, cpuinfo_min, max)``), so no order is ever refused.

One order is valid on both.  Going from (min0, max0) to (min1, max1) with min1 <= max1:
if ``min1 <= max0`` write min first (it cannot exceed the current max), then max (it cannot
be below the min just written); otherwise write max first (``max1 >= min1 > max0 >= min0``),
then min.  So *lowering* a window writes min before max, *raising* writes max before min.
(The reference's summary "max before min when lowering" has it backwards for pre-5.4
kernels: lowering max first below the current min is exactly the EINVAL case.)

Writers go through :class:`LimitIO` so the daemon and a dry run share this logic: a dry run
records the writes it would make and answers later reads from that record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from thermogov.hw.confine import ConfinementError
from thermogov.hw.hwrange import LARGEST_LIMIT, limits_range
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError


@dataclass(frozen=True, slots=True)
class LimitFiles:
    """The limit attributes of one cpufreq policy or devfreq device."""

    label: str  # policy0, 17000000.ga10b
    min_rel: str
    max_rel: str
    cur_rel: str  # effective clock: scaling_cur_freq / cur_freq
    scale_hz: int  # Hz per file unit: 1000 for cpufreq (kHz), 1 for devfreq (Hz)

    @property
    def unit(self) -> str:
        return "kHz" if self.scale_hz == 1000 else "Hz"


def check_limits_in_force(tree: SysfsTree, f: LimitFiles, lo: int, hi: int) -> None:
    """Refuse a window no kernel shows: a limit of zero or below, past its kind's type, a min
    above the max, or a limit outside the device's own hardware range.

    These values are what a restore writes back at exit, so a tree reading ``-1500000`` or
    ``0`` (a corrupt fake tree, a wrong root, a driver bug) was governed and then "restored"
    to a value the kernel would refuse or, worse for a 0 max, take.  Read at start, before any
    file is owned: bad input, nothing written.

    The one rule for a window found in force: at start (:meth:`thermogov.hw.devices.CapActuator.
    open`), for a member that joins mid-run (:func:`thermogov.hw.lateclusters.adopt`, which
    leaves that member alone) and in ``doctor`` (:func:`thermogov.hw.doctor.limits_refusals`,
    which names every such file).  The range is the journal restore's
    (:mod:`thermogov.hw.hwrange`, read from this device's files alone): a ``scaling_max_freq``
    above ``cpuinfo_max_freq`` (no kernel shows one, the policy's max is clamped into the
    cpuinfo range) was governed, and after a ``kill -9`` the journal restore refused the whole
    journal and left the board at its lowest caps until reboot (session 19).  A device whose
    range cannot be read now is left to the checks that name it (as a restore does).
    """
    top = LARGEST_LIMIT.get(f.scale_hz, 2**64 - 1)
    for rel, value in ((f.min_rel, lo), (f.max_rel, hi)):
        if not 0 < value <= top:
            raise ActuatorError(
                f"{tree.show(rel)}: {value} {f.unit} is not a frequency limit the kernel shows "
                f"(1..{top}); the driver or the --sysfs-root is wrong, run `thermogov doctor`"
            )
    if lo > hi:
        # Both kinds show the effective limits, the min clamped to the max: cpufreq's
        # ``cpufreq_verify_within_limits`` (include/linux/cpufreq.h: max clamped to the
        # hardware range, then min to [cpuinfo_min, max]; before 5.4's freq QoS a min above the
        # max was refused with EINVAL), devfreq's ``get_freq_range``, which ``min_freq_show`` and
        # ``max_freq_show`` call since 5.8 (drivers/devfreq/devfreq.c; DepSurf's function index),
        # older devfreq refusing such a write with EINVAL.  A window no kernel shows, which a
        # restore would write back at exit: the tree is not a kernel's.
        raise ActuatorError(
            f"{tree.show(f.min_rel)}: min {lo} {f.unit} is above the max {hi} {f.unit} of "
            f"{tree.show(f.max_rel)}, a window no kernel shows (it clamps the min to the max); "
            "the driver or the --sysfs-root is wrong, run `thermogov doctor`"
        )
    span = limits_range(tree, f.min_rel, f.scale_hz)
    if span is None:
        return
    for rel, end, value in ((f.min_rel, "min", lo), (f.max_rel, "max", hi)):
        if not span[0] <= value <= span[1]:
            raise ActuatorError(
                f"{tree.show(rel)}: {end} {value} is outside its hardware range {span[0]}..{span[1]} "
                f"{f.unit} ({span[2]}), a limit no kernel shows there and one thermogov could not put "
                "back after a crash; the driver or the --sysfs-root is wrong, run `thermogov doctor`"
            )


class LimitIO(Protocol):
    """Read and write whole-number limit attributes (file units, not Hz)."""

    def read_int(self, rel: str) -> int: ...

    def write_int(self, rel: str, value: int) -> None: ...

    def kernel_removed(self, f: LimitFiles) -> bool:
        """Whether ``f``'s owned limits went the kernel's way (:func:`kernel_removed`)."""
        ...


def kernel_removed(tree: SysfsTree, f: LimitFiles) -> bool:
    """Whether a member's owned limits are no longer the files owned *in the kernel's way*
    (gone with their folder, or made again in place: :meth:`SysfsTree.remade`), as opposed to
    still owned, or a link planted (a tampered tree, refused: hw/confine.py).  Such a member is
    held until the limit watch's next look takes it out of its domain (hw/departures.py).

    The max is looked at first, alone while it is still owned (one ``lstat`` a member a look):
    the kernel removes and makes a member's folder whole, so a max still the file owned is a
    member still there; and one file of the pair changed while the other is still owned is no
    removal of the kernel's either (a file planted in a tree: the confinement refusal at its
    next write, as for a link, never its planted value adopted as the one restore puts back)."""
    if tree.still_owned(f.max_rel):
        return False
    return not tree.still_owned(f.min_rel) and tree.remade(f.max_rel) and tree.remade(f.min_rel)


class TreeIO:
    """Real writes through the tree (only owned attributes); read errors become ActuatorError."""

    def __init__(self, tree: SysfsTree) -> None:
        self.tree = tree

    def read_int(self, rel: str) -> int:
        return self.tree.read_int(rel, ActuatorError)

    def write_int(self, rel: str, value: int) -> None:
        self.tree.write_int(rel, value)

    def kernel_removed(self, f: LimitFiles) -> bool:
        return kernel_removed(self.tree, f)


class DryRunIO:
    """Writes nothing: records each would-be write and answers reads from the record."""

    def __init__(self, tree: SysfsTree) -> None:
        self.tree = tree
        self._overlay: dict[str, int] = {}
        self._pending: list[str] = []

    def read_int(self, rel: str) -> int:
        if rel in self._overlay:
            return self._overlay[rel]
        return self.tree.read_int(rel, ActuatorError)

    def write_int(self, rel: str, value: int) -> None:
        self._overlay[rel] = int(value)
        self._pending.append(f"{self.tree.show(rel)}={int(value)}")

    def kernel_removed(self, f: LimitFiles) -> bool:
        """Never: nothing is owned or written in a dry run, so no owned file can be refused."""
        return False

    def drain(self) -> list[str]:
        """The writes recorded since the last drain, in the order they would have happened."""
        out, self._pending = self._pending, []
        return out


def window_writes(
    cur_min: int, cur_max: int, new_min: int, new_max: int, force: bool
) -> list[tuple[str, int]]:
    """The ordered writes ("min"/"max", value) taking the window to [new_min, new_max].

    Unchanged values are skipped unless ``force`` (restore writes both: a read-back equal to
    the original may hide a different request, e.g. while a kernel trip clamps the max).
    """
    new_min = min(new_min, new_max)
    order = ("min", "max") if new_min <= cur_max else ("max", "min")
    want = {"min": new_min, "max": new_max}
    have = {"min": cur_min, "max": cur_max}
    return [(k, want[k]) for k in order if force or want[k] != have[k]]


def set_window(
    io: LimitIO,
    files: LimitFiles,
    new_min: int,
    new_max: int,
    *,
    force: bool = False,
    current: tuple[int, int] | None = None,
) -> None:
    """Write a window in file units in the order valid on every kernel (see module doc);
    ``current``: the (min, max) the caller has just read, not read again."""
    cur_min, cur_max = current or (io.read_int(files.min_rel), io.read_int(files.max_rel))
    for which, value in window_writes(cur_min, cur_max, new_min, new_max, force):
        io.write_int(files.min_rel if which == "min" else files.max_rel, value)


def restore_window(
    io: LimitIO,
    files: LimitFiles,
    lo: int,
    hi: int,
    only: frozenset[str] = frozenset({"min", "max"}),
    *,
    ours: RaceRule | None = None,
    notes: list[str] | None = None,
) -> list[str]:
    """Write both limits back, each on its own; returns the failures (empty when restored).

    Unlike :func:`set_window` this does not need the current values: after a ``kill -9``
    mid-write a limit file may be empty or garbage, and that must not keep the other limit,
    or the file itself, from being written.  The order comes from whatever can be read
    (raising a window writes max first); a write the kernel refused in that order (pre-5.4
    EINVAL) is retried once after the other one went through.  A limit whose write was refused
    but that reads back its original value is not reported: nothing is left changed there (an
    attribute the kernel never let the daemon write, e.g. EPERM/EBUSY from the first write on),
    so such a board neither keeps a journal nor fails every later start on it.

    ``ours``: what thermogov knows it last wrote to the max (:class:`RaceRule`, session 31r): a
    max another writer set since, below the value of before, is left as it reads, not raised
    over; one raised past the value of before gets it back; both said in ``notes``, as is a
    max that reads above what the restore wrote right after its write (another writer's,
    after).  None: every limit written, as before.
    """
    try:
        cur_max: int | None = io.read_int(files.max_rel)
    except ActuatorError:
        cur_max = None
    said = notes if notes is not None else []
    if ours is not None and cur_max is not None and "max" in only:
        if ours.left(cur_max, hi):
            said.append(ours.left_note(files, cur_max, hi))
            only = only - {"max"}
            hi = cur_max  # the min goes back no higher than the max left in force
            lo = min(lo, hi)
        elif ours.above(cur_max, hi):
            said.append(ours.above_note(files, cur_max, hi))
    order = ["min", "max"] if cur_max is not None and lo <= cur_max else ["max", "min"]
    order = [k for k in order if k in only]  # a limit that cannot be owned is reported by the caller
    rel = {"min": files.min_rel, "max": files.max_rel}
    want = {"min": lo, "max": hi}
    errors: dict[str, str] = {}
    confined: set[str] = set()  # refused because the file is no longer the one owned
    for _attempt in range(2):
        failed = []
        for k in order:
            try:
                io.write_int(rel[k], want[k])
                errors.pop(k, None)
            except ActuatorError as e:
                errors[k] = str(e)
                failed.append(k)
                if isinstance(e, ConfinementError):
                    confined.add(k)
        if not failed or len(failed) == len(order):
            break
        order = failed
    for k in list(errors):
        if k not in confined and _reads(io, rel[k]) == want[k]:
            del errors[k]
    if ours is not None and notes is not None and "max" in order and "max" not in errors:
        after = _reads(io, files.max_rel)
        if after is not None and after > hi:  # a lower read-back is a clamp: the lower limit stands
            notes.append(ours.after_note(files, after, hi))
    return list(errors.values())


@dataclass(frozen=True, slots=True)
class RaceRule:
    """The rule of the exit's restore meeting another writer's value (session 31r,
    docs/hardware.md "Session 31r"): the max it leaves is the *lower* of that writer's value and
    the value of before, never above either.

    ``last``: the max values thermogov knows it last wrote or read back there (file units).  A
    max reading above all of them was set since thermogov's last look by another writer
    (nvpmodel, jetson_clocks, a user's echo) or by the kernel re-creating the policy: a clamp
    lifting goes back to thermogov's own request, never above it.

    * Below the value of before: another writer's limit, lower than the one the restore would
      write.  Left as it reads (:meth:`left`), never raised over, and said.
    * Above the value of before: written back to it as always (a kernel reset is no one's
      choice, and of two limits the lower is the safe one), and said (:meth:`above_note`).

    A max reading *below* thermogov's last write (the kernel's thermal clamp on 5.4+, shown in
    the same file, or a lower writer) gets the value of before as it always did: over a clamp
    harmless (the clamp's request still in force), and a file cannot tell the two apart.
    """

    last: frozenset[int]

    def left(self, now: int, restore_to: int) -> bool:
        """Whether ``now`` is another writer's limit below ``restore_to``, left as it reads."""
        return bool(self.last) and max(self.last) < now < restore_to

    def above(self, now: int, restore_to: int) -> bool:
        """Whether ``now`` was raised past ``restore_to`` since thermogov's last look."""
        return bool(self.last) and now > max(max(self.last), restore_to)

    def left_note(self, files: LimitFiles, now: int, restore_to: int) -> str:
        return (
            f"{files.label}: max {now} {_unit(files)}, set by another writer since thermogov's last "
            f"look (thermogov's cap {max(self.last)}), is below the value of before {restore_to}: "
            "left as it is, not raised over"
        )

    def above_note(self, files: LimitFiles, now: int, restore_to: int) -> str:
        return (
            f"{files.label}: max read {now} {_unit(files)}, raised since thermogov's last look above "
            f"the value of before (another writer's or a kernel reset); {restore_to} written, the lower"
        )

    def after_note(self, files: LimitFiles, now: int, wrote: int) -> str:
        return (
            f"{files.label}: max reads {now} {_unit(files)} right after the restore wrote {wrote}: "
            "another writer's, set after; left as it is"
        )


# What each of RaceRule's notes says of whom, by a phrase of its own (the notes above).
_NOTE_KINDS = (
    ("set by another writer since", "set below the value of before"),
    ("raised since thermogov's last look", "raised past the value of before"),
    ("right after the restore wrote", "set right after the restore"),
)
_NOTE_HEAD = re.compile(r"(?P<file>[^:]+): max (?:reads? )?(?P<value>\d+) (?P<unit>k?Hz)")


def note_key(note: str) -> tuple[str, str, int, str] | None:
    """(file label, what the other writer did, the max it read, unit) of one of
    :class:`RaceRule`'s notes; None for any other text.  ``thermogov ab`` says a file's note
    once per kind and then only a new value (hw/ab.py, session 33r)."""
    head = _NOTE_HEAD.match(note)
    kind = next((k for phrase, k in _NOTE_KINDS if phrase in note), None)
    if head is None or kind is None:
        return None
    return head["file"], kind, int(head["value"]), head["unit"]


def write_back(io: LimitIO, rel: str, value: int) -> str:
    """Put one attribute back to ``value``: "" when done, else why not.

    A write the kernel refuses (EPERM, EBUSY, EINVAL) is not a failure when the attribute
    already holds ``value``: nothing is left changed there (the attribute may never have taken
    a write of ours, or another agent put the same value back).  A refusal because the file is
    no longer the one owned (:class:`ConfinementError`) always is: its reading says nothing
    about the attribute that was owned.  The one rule for every restore of a single attribute
    (a fan's ``pwm1``/``cur_state``, an idle-injection ``cur_state``); limit windows go through
    :func:`restore_window`, which applies the same rule per limit.
    """
    try:
        io.write_int(rel, value)
        return ""
    except ActuatorError as e:
        if not isinstance(e, ConfinementError) and _reads(io, rel) == value:
            return ""
        return str(e)


def _reads(io: LimitIO, rel: str) -> int | None:
    """The limit's value now, or None when it cannot be read."""
    try:
        return io.read_int(rel)
    except ActuatorError:
        return None


def _unit(files: LimitFiles) -> str:
    return "kHz" if files.scale_hz == 1000 else "Hz"
