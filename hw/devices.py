"""Real sensor sources and frequency actuators on top of :class:`SysfsTree`.

Sensors read their file fresh on every call and convert at the boundary (m°C for thermal
zones and hwmon, 0.1 °C for power_supply).  Anything that is not a believable temperature
raises ``SensorError`` instead of becoming a number: an empty or non-numeric file, Jetson's
-256 °C "sensor offline" marker (jtop temperature.py), values outside -40..150 °C, and read
errors such as EIO/ENODATA.  The governor then drops the sensor from fusion.

Actuators write the upper limit only (cpufreq ``scaling_max_freq`` in kHz, devfreq
``max_freq`` in Hz); the lower limit is touched only when a cap goes below it, and is put
back as soon as the cap allows (see :mod:`thermogov.hw.limits` for the write order).  After
every write the effective limit is read back and returned, because kernels clamp silently and
a thermal trip may hold the limit lower than asked.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from thermogov.hw.confine import ConfinementError, HeldRefusal
from thermogov.hw.limits import (
    DryRunIO,
    LimitFiles,
    LimitIO,
    RaceRule,
    TreeIO,
    check_limits_in_force,
    restore_window,
    set_window,
)
from thermogov.hw.mapping import DomainBinding, SensorBinding, governed_table
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError, Reading, RuntimeFailure, SensorError

MIN_VALID_C = -40.0
MAX_VALID_C = 150.0
JETSON_OFFLINE_C = -256.0
_new_reading = tuple.__new__  # Reading's fields in order (sensor, value_c, t_s)


def to_celsius(raw: int, divisor: float, where: str) -> float:
    """File units to °C, refusing values that mean "no reading"."""
    c = raw / divisor
    if c == JETSON_OFFLINE_C:
        raise SensorError(f"{where}: reads -256 °C, the Jetson marker for an offline sensor; no reading")
    if not MIN_VALID_C <= c <= MAX_VALID_C:
        raise SensorError(f"{where}: {c:g} °C is outside {MIN_VALID_C:g}..{MAX_VALID_C:g} °C; no reading")
    return c


class TempFileSensor:
    """A thermal zone ``temp``, an hwmon ``temp*_input`` or a battery ``temp`` file."""

    def __init__(
        self,
        tree: SysfsTree,
        name: str,
        rel: str,
        divisor: float,
        clock: Callable[[], float] = time.monotonic,
        source: str = "",
    ) -> None:
        self._tree = tree
        self._name = name
        self.rel = rel
        self.divisor = divisor
        self._clock = clock
        self.source = source or rel
        self._where = tree.show(rel)  # built once: read() runs every sensor period
        tree.keep_open(rel)  # read every period: pread on a kept descriptor (SysfsTree)
        self._read_int = tree.int_reader(rel)

    @property
    def name(self) -> str:
        return self._name

    def read(self) -> Reading:
        raw = self._read_int()
        c = raw / self.divisor
        if c < MIN_VALID_C or c > MAX_VALID_C:
            to_celsius(raw, self.divisor, self._where)  # the offline marker or out of range: raises
        # Positional through tuple.__new__: Reading's keyword constructor is a Python frame.
        return _new_reading(Reading, (self._name, c, self._clock()))


def hottest(readers: Sequence[Callable[[], float]]) -> float:
    """The highest of the readings that succeed; when none does, the first one's SensorError."""
    best: float | None = None
    first_error: SensorError | None = None
    for read in readers:
        try:
            c = read()
        except SensorError as e:
            first_error = first_error or e
            continue
        best = c if best is None or c > best else best
    if best is None:
        assert first_error is not None
        raise first_error
    return best


class HottestOfSensor:
    """One profile sensor read from several zones of the same type: the hottest valid reading.

    Zone types are not unique, and a twin whose sensor is off reads a plausible constant (the
    sensor's -40 °C floor, a disabled zone's last value); binding whichever came first would let
    it hide the live die.  The hottest errs towards lower clocks, never towards full clocks on
    a hot board.  A twin that fails to read is skipped; all failing is the first one's error.
    """

    def __init__(self, parts: Sequence[TempFileSensor], clock: Callable[[], float]) -> None:
        self._parts = tuple(parts)
        self._readers = tuple(lambda p=p: p.read().value_c for p in parts)
        self._clock = clock
        self.rel = parts[0].rel
        self.divisor = parts[0].divisor
        self.source = parts[0].source

    @property
    def name(self) -> str:
        return self._parts[0].name

    def read(self) -> Reading:
        return _new_reading(Reading, (self.name, hottest(self._readers), self._clock()))


def open_sensor(
    tree: SysfsTree, b: SensorBinding, clock: Callable[[], float] = time.monotonic
) -> TempFileSensor | HottestOfSensor:
    first = TempFileSensor(tree, b.sensor.name, b.rel, b.divisor, clock, b.source)
    if not b.twins:
        return first
    twins = [TempFileSensor(tree, b.sensor.name, rel, b.divisor, clock, b.source) for rel in b.twins]
    return HottestOfSensor([first, *twins], clock)


def binding_celsius(tree: SysfsTree, b: SensorBinding) -> float:
    """A binding's temperature now, as the daemon reads it (the hottest of its twins)."""
    return hottest([functools.partial(_file_celsius, tree, rel, b.divisor) for rel in (b.rel, *b.twins)])


def _file_celsius(tree: SysfsTree, rel: str, divisor: float) -> float:
    return to_celsius(tree.read_int(rel), divisor, tree.show(rel))


def clock_reader(tree: SysfsTree, files: Sequence[LimitFiles]) -> Callable[[], int]:
    """The effective clock of a domain in Hz as one function, read every control tick.

    The highest of its policies' ``cur`` files (a policy that failed to go down is never
    hidden), each scaled to Hz.  Built once so a tick's read is as few Python frames as the
    domain allows: a devfreq device (Hz) is its reader itself; on a daemon that wakes with
    cold caches each frame costs microseconds.
    """
    if not files:
        return _no_clock  # a domain whose every policy is offline (hw/lateclusters.py)
    pairs = [(tree.int_reader(f.cur_rel, ActuatorError), f.scale_hz) for f in files]
    first, first_scale = pairs[0]
    rest = pairs[1:]
    if not rest:
        if first_scale == 1:
            return first
        return lambda: first() * first_scale

    def highest() -> int:
        best = first() * first_scale
        for read, scale in rest:
            hz = read() * scale
            if hz > best:
                best = hz
        return best

    return highest


def _no_clock() -> int:
    raise ActuatorError("no policy of this domain is online")


class CapRecord(Protocol):
    """Where thermogov's last written windows are kept (:class:`thermogov.hw.lastcaps.LastCaps`)."""

    def wrote(self, max_rel: str, window: tuple[int, int]) -> None: ...

    def flush(self) -> None: ...


class _NoRecord:
    """A dry run, a test's actuator, or a record that could not be created: nothing kept."""

    def wrote(self, max_rel: str, window: tuple[int, int]) -> None:
        pass

    def flush(self) -> None:
        pass


NO_RECORD: CapRecord = _NoRecord()


# A limit whose read fails with one of these at start is the hardware failing under good input
# (session 31r): the run stops before anything is owned or written, exit 1, not 2.
_HARDWARE_ERRNOS = frozenset({errno.EIO, errno.ETIMEDOUT, errno.ENXIO, errno.ENODEV})


def _hardware_failed(e: ActuatorError) -> ActuatorError | RuntimeFailure:
    """``e`` as a runtime failure when the read failed in the driver, else unchanged (a
    content or permission problem stays bad input)."""
    cause = e.__cause__
    if isinstance(cause, OSError) and cause.errno == errno.ENOENT:  # discovery had just found it
        return RuntimeFailure(
            f"{e}; it went away since discovery (a CPU or device removed during start-up); nothing "
            "was changed (start again)"
        )
    if isinstance(cause, OSError) and cause.errno in _HARDWARE_ERRNOS:
        return RuntimeFailure(
            f"{e}; nothing was changed (retry when the device answers; `thermogov doctor` names it)"
        )
    return e


def limit_rels(files: Iterable[LimitFiles]) -> list[str]:
    """Every min and max attribute of ``files``: what a domain owns, and lets go of on a failed start."""
    return [rel for f in files for rel in (f.min_rel, f.max_rel)]


def own_all(tree: SysfsTree, rels: Sequence[str]) -> None:
    """Own every limit of a domain, or none of them.

    A limit removed after its read and before :meth:`SysfsTree.own` (a cluster hot-unplugged
    or a driver unbound during start-up, a window of microseconds) is the board changing under
    a good input, as when it goes before the read (session 31r): a runtime failure, exit 1,
    naming the file.  Session 32r: before, ``own``'s "no such attribute to own" exited 2 as
    bad input.  Either way the attributes owned a moment ago are let go, so a run that stops
    here holds nothing it did not journal."""
    done: list[str] = []
    try:
        for rel in rels:
            tree.own(rel)
            done.append(rel)
    except ActuatorError as e:
        tree.disown(done)
        if os.path.lexists(tree.path(rel)):
            raise  # a link or a file that is no regular one: the tree's own refusal stands
        raise RuntimeFailure(
            f"{tree.show(rel)}: went away between the read of its limits and taking it over (a CPU "
            "or device removed during start-up); nothing was changed (start again)"
        ) from e


class CapActuator:
    """One frequency domain: the limit files of one devfreq device or of several cpufreq policies.

    A CPU domain such as Orin's ``cpu`` spans several policies (policy0/4/8); they get the same
    cap, and the cap in force reported is the highest read back, so a policy that failed to go
    down is never hidden behind one that did.
    """

    def __init__(
        self,
        name: str,
        files: Sequence[LimitFiles],
        table_hz: Sequence[int],
        io: LimitIO,
        originals: dict[str, tuple[int, int]],
        clock_reader: Callable[[], int],
    ) -> None:
        if not table_hz:
            raise ActuatorError(f"domain {name}: no usable OPP; run `thermogov doctor`")
        self._name = name
        self.files = tuple(files)
        self._table = tuple(sorted(table_hz))
        self.io = io
        self._orig = dict(originals)
        self._read_clock = clock_reader  # the domain's effective clock in Hz (see open)
        # No file (every policy offline at start, hw/lateclusters.py): the top until a cap is asked.
        self._cap = max((self._orig[f.label][1] * f.scale_hz for f in self.files), default=self._table[-1])
        self._asked_hz = self._cap  # the cap the governor last asked for
        # Per file: the window thermogov last wrote, and what it read back then (the kernel may
        # round or clamp); hw/limitwatch.py compares the files with them once a second.
        self.written: dict[str, tuple[int, int]] = dict(self._orig)
        self.seen: dict[str, tuple[int, int]] = dict(self._orig)
        self.left_to_others: set[str] = set()  # files another writer keeps raising (limitwatch)
        self.restore_notes: list[str] = []  # what the last restore left to another writer, said at exit
        # Members one of whose owned limits was refused as no longer the file owned (a link or
        # another file planted, hw/confine.py), by a write here or a read of the limit watch:
        # never written or read again this run, and the domain held at its failsafe (:meth:`apply`).
        self.refused: dict[str, ConfinementError] = {}
        # Session 30r: the failsafe hold written on every member still owned (no transient
        # failure left): the governor's later asks are answered without a read or a write, and
        # the limit watch re-checks those members on its cadence as it does every owned file.
        self._held = False
        # thermogov's last written windows, on the runtime tmpfs (hw/lastcaps.py): after a kill -9
        # and a power-mode change it tells a journal restore which windows hold its cap.
        self.record: CapRecord = NO_RECORD
        # Session 32r: per member, its OPP list as it reads since it changed mid-run (file units,
        # ascending; hw/oppwatch.py): a cap written there is the highest entry at or below it.
        self._listed: dict[str, tuple[int, ...]] = {}

    @classmethod
    def open(cls, tree: SysfsTree, binding: DomainBinding, *, dry_run: bool = False) -> CapActuator:
        """Capture the limits in force (what restore puts back) and own the files unless dry."""
        io: LimitIO = DryRunIO(tree) if dry_run else TreeIO(tree)
        originals: dict[str, tuple[int, int]] = {}
        for f in binding.files:
            try:
                originals[f.label] = (io.read_int(f.min_rel), io.read_int(f.max_rel))
            except ActuatorError as e:
                raise _hardware_failed(e) from e.__cause__
            check_limits_in_force(tree, f, *originals[f.label])
        # None: no file (every policy offline at start), the table's top until a policy joins.
        ceiling = max((originals[f.label][1] * f.scale_hz for f in binding.files), default=None)
        table = governed_table(binding.hw_table_hz, binding.domain.opp_hz[0], ceiling)
        if not dry_run:
            own_all(tree, limit_rels(binding.files))

        for f in binding.files:
            tree.keep_open(f.cur_rel, ActuatorError)  # the effective clock is read every tick
        return cls(
            binding.domain.name, binding.files, table, io, originals, clock_reader(tree, binding.files)
        )

    # -- FrequencyActuator ------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def table_hz(self) -> tuple[int, ...]:
        return self._table

    @property
    def cap_hz(self) -> int:
        return self._cap

    def apply(self, cap_hz: int) -> int:
        if cap_hz not in self._table:
            opps = ", ".join(f"{f / 1e6:g}" for f in self._table)
            raise ActuatorError(
                f"domain {self._name}: {cap_hz / 1e6:g} MHz is not an OPP; choose one of {opps}"
            )
        if self.refused and self._held:
            # Session 30r: already held at the lowest cap (:meth:`hold_failsafe`).  Before, every
            # control tick wrote the hold again (4 reads per owned member) and the governor
            # tagged ``write_failed`` in each row; the governor's failsafe stands either way
            # (the write still fails), and the limit watch re-checks the held members once a
            # period (hw/limitwatch.py ``_check_file``), putting the hold back if one was reset.
            raise HeldRefusal(str(next(iter(self.refused.values()))))
        self._asked_hz = cap_hz
        gone: list[str] = []
        # A member whose write the kernel rejects (EINVAL from a pre-5.4 kernel's min > max rule
        # or a driver's own check, EBUSY) costs only that member this tick: the others are
        # still written, then the first error is raised for the governor to count.  Before
        # (session 30t), the first policy's EINVAL ended the loop, so a hot Xavier NX whose
        # policy0 refused kept policy2 and policy4 at full clock for the whole run.
        failed: list[ActuatorError] = []
        for f in self.files:
            if f.label not in self.left_to_others and f.label not in self.refused:
                try:
                    self.reapply(f, flush=False, over_lowered=False)
                except ConfinementError as e:
                    if not self._removed(f):
                        self.refused[f.label] = e
                        continue
                    gone.append(f.label)  # held: taken out at the watch's next look (hw/departures.py)
                except ActuatorError as e:
                    failed.append(e)
        if self.refused:
            self.hold_failsafe(gone)
            raise next(iter(self.refused.values()))
        self.record.flush()  # once per change, whatever the number of policies
        if failed:
            raise failed[0]
        live = [f for f in self.files if f.label not in gone] if gone else self.files
        if not live:  # nothing online to write: the cap is held and written when one joins
            self._cap = cap_hz
            return cap_hz
        governed = [f for f in live if f.label not in self.left_to_others] or live
        self._cap = max(self.io.read_int(f.max_rel) * f.scale_hz for f in governed)
        return self._cap

    def refuse(self, label: str, e: ConfinementError) -> None:
        """One member's owned limit is no longer the file owned (the limit watch's read met the
        refusal): the domain's failsafe at once, :meth:`hold_failsafe`."""
        self.refused.setdefault(label, e)
        self.hold_failsafe()

    def hold_failsafe(self, gone: Sequence[str] = ()) -> None:
        """The domain's failsafe while a member is refused (hw/confine.py): its lowest cap on
        every member it still owns, the refused ones never written or read again.

        Before, a cap change wrote the members in order and stopped at the refused one: those
        before it kept the new cap (a raise included) while the governor held the domain's old
        one, and a refusal the limit watch met on a read changed nothing at all until the
        governor next decided a cap (never, on a board held at a steady cap).  Each member's
        own rules stand (its ceiling, a window another writer lowered is left lower); a member
        whose write is refused too joins the refused ones."""
        self._asked_hz = self._table[0]
        held = not gone
        for f in self.files:
            if f.label in self.left_to_others or f.label in self.refused or f.label in gone:
                continue
            try:
                self.reapply(f, flush=False, over_lowered=False)
            except ConfinementError as e:
                held = False
                if not self._removed(f):
                    self.refused[f.label] = e
            except ActuatorError:
                held = False  # a transient refusal: the governor writes the failsafe cap again next tick
        self._held = held
        self.record.flush()

    def _removed(self, f: LimitFiles) -> bool:
        """A member the kernel removed or made again since the watch's last look (a driver
        unbound or reloaded): no failure, unlike a link planted in the tree."""
        return self.io.kernel_removed(f)

    def reapply(self, f: LimitFiles, *, flush: bool = True, over_lowered: bool = True) -> None:
        """Write the cap last asked for to one file's window (also after a reset under us), and
        record the window it left in force (``flush``: now; else the caller flushes once).

        ``over_lowered=False`` (the governor's own cap changes): a window whose max reads below
        what thermogov last saw there was lowered by someone else since (an operator's
        ``nvpmodel -m``, a kernel clamp) and is not written this time.  The limit watch looks
        within its period (hw/limitwatch.py) and decides: a mode's window is adopted, a clamp is
        noted, and the next cap is written as before.  Writing at once erased the mode's value
        before anyone had read it, so neither the watch nor a restore after ``kill -9`` could
        tell it from thermogov's cap (the ``modechange`` failure path of bench/board_shapes.py).
        The cost: a cap for this file waits up to one watch period, on a window that already
        reads lower than thermogov's last one.
        """
        orig_min, orig_max = self._orig[f.label]
        now = (self.io.read_int(f.min_rel), self.io.read_int(f.max_rel))
        if not over_lowered and now[1] < self.seen[f.label][1]:
            return
        # Each policy's ceiling is its own original limit: a policy that started below the
        # domain's top (another tool capped it) is never raised above where it was.
        raw = self._within_list(f.label, min(self._asked_hz // f.scale_hz, orig_max))
        lo = min(orig_min, raw)
        set_window(self.io, f, lo, raw, current=now)
        self.written[f.label] = (lo, raw)
        self.seen[f.label] = (self.io.read_int(f.min_rel), self.io.read_int(f.max_rel))
        self.record.wrote(f.max_rel, self.seen[f.label])
        if flush:
            self.record.flush()

    def in_force_hz(self) -> int:
        """The domain's cap in force after a write outside :meth:`apply` (the OPP watch bounding
        a member to its changed list): the highest max read back after thermogov's writes, over
        the members :meth:`apply` reads (session 33s).  No read here: ``seen`` holds them."""
        governed = [
            f for f in self.files if f.label not in self.left_to_others and f.label not in self.refused
        ]
        self._cap = max(
            (self.seen[f.label][1] * f.scale_hz for f in governed or self.files), default=self._cap
        )
        return self._cap

    def listed(self, label: str, table: tuple[int, ...]) -> None:
        """One member's OPP list changed mid-run to ``table`` (file units, ascending, positive):
        its later caps stay within it (:meth:`_within_list`, hw/oppwatch.py)."""
        self._listed[label] = table

    def _within_list(self, label: str, raw: int) -> int:
        """``raw`` as the highest entry of the member's changed list at or below it; ``raw``
        itself when below every entry (the kernel runs the lowest OPP; the lowest entry would
        raise the cap) or when the list never changed (the start's table holds it)."""
        table = self._listed.get(label)
        if not table or raw < table[0]:
            return raw
        return max(v for v in table if v <= raw)

    def join(self, f: LimitFiles, original: tuple[int, int], clock: Callable[[], int]) -> None:
        """A member that could not be opened at start (a cluster offline then) joins the domain:
        ``original`` is what restore puts back, ``clock`` the domain's clock reader with it.
        Nothing is written here; :mod:`thermogov.hw.lateclusters` journals first, then writes."""
        self.files = (*self.files, f)
        self._orig[f.label] = original
        self.written[f.label] = original
        self.seen[f.label] = original
        self._read_clock = clock

    def leave(self, label: str, clock: Callable[[], int]) -> None:
        """Undo :meth:`join` before anything was written (its journal could not be written)."""
        self.files = tuple(f for f in self.files if f.label != label)
        for d in (self._orig, self.written, self.seen):
            d.pop(label, None)
        self._listed.pop(label, None)
        self.refused.pop(label, None)  # a member that left and is adopted again starts afresh
        self._held = self._held and bool(self.refused)
        self._read_clock = clock

    def original(self, label: str) -> tuple[int, int]:
        """The window restore puts back for one file (file units)."""
        return self._orig[label]

    def adopt(self, label: str, lo: int, hi: int) -> None:
        """Another writer's window becomes what restore puts back and this file's ceiling.

        Never with its min above its max (a mode's max below the min of before): the journal
        is rewritten with the adopted windows, and a journal restore refuses such a window,
        and with it the whole journal, leaving every other limit as the run left it.
        """
        self._orig[label] = (min(lo, hi), hi)

    def effective_hz(self) -> int | None:
        try:
            return self._read_clock()
        except ActuatorError:
            return None

    def restore(self, moved: Mapping[tuple[str, str], tuple[int, int]] | None = None) -> None:
        """Put back every captured window; try all files before reporting a failure.

        ``moved`` holds, by (min_rel, max_rel), windows to write instead of the captured ones:
        those moved into today's hardware range (:func:`thermogov.hw.journal.clamp_to_today`).
        """
        errors = []
        self.restore_notes = []
        for f in self.files:
            if f.label in self.left_to_others:
                continue  # another writer's now (limitwatch said so when it gave it up)
            lo, hi = (moved or {}).get((f.min_rel, f.max_rel), self._orig[f.label])
            # Session 31r: a max another writer raised since the limit watch's last look is judged
            # as that watch would have (adopted: left as it reads), hw/limits.py RaceRule.
            ours = RaceRule(frozenset({self.written[f.label][1], self.seen[f.label][1]}))
            errors.extend(restore_window(self.io, f, lo, hi, ours=ours, notes=self.restore_notes))
        # The cap in force after the writes, for the summary; a max that does not read (EIO from
        # a driver that fails to talk to the hardware) is no limit "left changed": its write went
        # through or is in ``errors`` already.  Session 30r: before, such a read failed the whole
        # restore (exit 1, the journal kept) on a board every limit of which was put back.
        read = []
        for f in self.files:
            with contextlib.suppress(ActuatorError):
                read.append(self.io.read_int(f.max_rel) * f.scale_hz)
        self._cap = max(read, default=self._cap)
        if errors:
            raise ActuatorError("; ".join(errors))

    # -- for the journal --------------------------------------------------------------------
    def originals(self) -> list[tuple[LimitFiles, int, int]]:
        return [(f, *self._orig[f.label]) for f in self.files]
