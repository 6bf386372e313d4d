"""The real-time runner: the governor core driven by a monotonic deadline loop on a real board.

Order of a run, chosen so that bad input never changes the board and every change is undone:

1. side-effect free: discover the tree, choose and map the board profile, validate config,
   workload and policy (a problem here exits 2 with nothing written);
2. take the board lock (:mod:`~thermogov.hw.boardlock`: one governor per board, whatever lock
   file or state directory each was given), restore any journal a dead instance left, capture
   the limits in force, write and fsync the journal of those originals;
3. run: sensors and control ticks at ``MultiRatePlan`` instants, deadline = t0 + t_ms/1000 on
   ``time.monotonic`` (computed, never accumulated, so no drift); a wait is a ``select`` on a
   self-pipe that SIGTERM/SIGINT make readable (``signal.set_wakeup_fd``; a
   ``threading.Event`` only when the daemon runs outside the main thread, as in tests), so a
   stop ends a wait at once (:class:`StopFlag`); SIGHUP only asks for a reload of the config
   at the next control tick (:mod:`~thermogov.hw.reload`); once a second the state is
   published (:mod:`~thermogov.hw.publish`: state file, Prometheus metrics);
4. on every exit path (duration reached, signal, exception) an ``ExitStack`` restores the
   limits first, then stops the workload, closes the run folder and releases the lock.

Failsafe is the governor's: temperature unknown for more than 1 s (``governor.unknown_grace_ms``
when set), or any sensor at its hard limit, and every domain goes to its lowest cap.
``dry_run`` reads the real sensors and makes every decision but takes no lock and owns no
attribute: actuators record what they would write, which goes to stderr and to the trace
``event`` column.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from thermogov.board import BoardProfile, builtin_board_names
from thermogov.budget import limiter_summary, power_limiters
from thermogov.client import default_inferences_path
from thermogov.config import Config
from thermogov.fan import FanController
from thermogov.fusion import SensorSpec
from thermogov.governor import CapLimiter, Governor, TickRecord
from thermogov.hw import heldsignals
from thermogov.hw.appcounter import AppCounter, check_counter_path
from thermogov.hw.boardlock import BoardLock, board_lock_path
from thermogov.hw.boostrule import BoostStates
from thermogov.hw.departures import Departures
from thermogov.hw.devices import CapActuator, limit_rels, open_sensor
from thermogov.hw.discovery import POWER_SUPPLY, Inventory, discover
from thermogov.hw.failmsg import restore_command
from thermogov.hw.fan import HwFan, require_fan
from thermogov.hw.hwrange import seed_ranges
from thermogov.hw.idle import IdleInjector
from thermogov.hw.journal import (
    DEFAULT_LOCK_FILE,
    DEFAULT_STATE_DIR,
    JOURNAL_NAME,
    AttrEntry,
    Journal,
    JournalEntry,
    RecordedRanges,
    clamp_to_today,
    new_journal_data,
    read_boot_id,
    recover,
)
from thermogov.hw.jtopfan import jtop_fan_notes
from thermogov.hw.lastcaps import LastCaps, last_caps_path
from thermogov.hw.lateclusters import LateClusters, offline_note
from thermogov.hw.latedevfreq import LateDevfreq, absent_note
from thermogov.hw.latepolicy import widened
from thermogov.hw.latezones import (
    MAX_LOOK_S,
    PROMPT_S,
    WAITED_KINDS,
    EasedFusion,
    LateZones,
    WaitingSource,
    ramp_s,
)
from thermogov.hw.limits import DryRunIO
from thermogov.hw.limitwatch import LimitWatch
from thermogov.hw.mapping import (
    BoardMap,
    DomainBinding,
    choose_board,
    family_warning,
    governed_table,
    map_board,
    unmatched_model,
)
from thermogov.hw.notify import Notifier
from thermogov.hw.nvfanconf import nvfan_notes
from thermogov.hw.nvpmodelconf import CONF_REL, ConfError, mode_writes
from thermogov.hw.oppwatch import OppWatch
from thermogov.hw.power import PowerSupplyReader, battery_names
from thermogov.hw.powermode import PowerModeWatch, SuperWatch, super_mismatch
from thermogov.hw.publish import PublishOptions, StatePublisher, open_metrics, state_path
from thermogov.hw.railsum import rail_watch, summed_summary
from thermogov.hw.reload import RELOAD, Reloader, ReloadTarget
from thermogov.hw.runtimefiles import check_not_own
from thermogov.hw.startlines import start_lines
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.telemetry import HwTelemetry
from thermogov.hw.throttle import ThrottleMonitor
from thermogov.hw.tickstats import TickStats
from thermogov.hw.tracesafe import TraceGuard, preflight
from thermogov.hw.workload import WORKLOAD_EXITED, ProcessWorkload, parse_workload
from thermogov.interfaces import ActuatorError, ConfigError, RuntimeFailure, SensorSource, ThermogovError
from thermogov.loadgov import LoadGovernor
from thermogov.policies import PolicyContext
from thermogov.printable import printable
from thermogov.runs import RunRecorder, trip_of
from thermogov.scheduler import CONTROL, MultiRatePlan
from thermogov.statedoc import StateIdentity
from thermogov.throttle import ThrottleCounters

HW_UNKNOWN_GRACE_S = 1.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
RELOAD_SIGNAL = signal.SIGHUP
LOG_REPEAT_S = 30.0


class PrivilegeError(ConfigError):
    """Writing frequency limits needs root: a usage error (exit 2, like ``restore`` without root),
    raised before anything is read or written, so the board is untouched."""


def check_privileges(dry_run: bool) -> None:
    if not dry_run and os.geteuid() != 0:
        raise PrivilegeError(
            "run: writing cpufreq/devfreq limits needs root; use sudo, or --dry-run to only log decisions"
        )


@dataclass(frozen=True, slots=True)
class RunOptions:
    config: Config
    sysfs_root: Path = Path("/")
    board: str | None = None
    duration_s: float | None = None  # None: until stopped (the systemd service)
    workload: str | None = None
    count_regex: str | None = None
    out: Path | None = None  # default: the config's `out`
    state_dir: Path = DEFAULT_STATE_DIR
    lock_file: Path = DEFAULT_LOCK_FILE
    # The runtime folder (board lock, caps record, default state.json and inferences counter);
    # None: $THERMOGOV_LOCK_DIR or /run/thermogov (thermogov.client.runtime_dir).
    lock_dir: Path | None = None
    dry_run: bool = False
    reload_config: Callable[[], Config] | None = None  # SIGHUP re-reads with this; None: no file
    config_source: str = ""  # the config file's name, for reload messages
    publish: PublishOptions = dataclasses.field(default_factory=PublishOptions)
    notices: tuple[str, ...] = ()  # the command's advisory lines, said after the input checks
    start_lines: bool = False  # `run`'s own advisory lines (hw/startlines.py), said before notices


class Log:
    """One-line messages on stderr; an identical message is repeated at most every 30 s."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._last: dict[str, float] = {}
        self._muted: dict[str, int] = {}

    def __call__(self, msg: str) -> None:
        now = time.monotonic()
        last = self._last.get(msg)
        if last is not None and now - last < LOG_REPEAT_S:
            self._muted[msg] = self._muted.get(msg, 0) + 1
            return
        n = self._muted.pop(msg, 0)
        self._last[msg] = now
        suffix = f" (repeated {n} more times)" if n else ""
        # What files hold (a journal's label, a sysfs string) is in many lines: one line each.
        print(f"thermogov: {printable(msg)}{suffix}", file=self._stream, flush=True)


class InstantClock:
    """The runner's time of the instant being processed, for sensors to stamp their readings.

    The governor treats the runner's clock as authoritative for freshness; stamping readings
    with the same instant (rather than a fresh ``monotonic``) keeps it from rebuilding every
    reading, and a trace row's readings then carry exactly the row's instant.
    """

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def reader(self) -> Callable[[], float]:
        """The same clock as a C-level callable (``getattr(self, "now")``): a sensor stamps
        every reading with it, and calling a Python ``__call__`` costs a frame per reading."""
        return functools.partial(getattr, self, "now")


class StopFlag:
    """Set by a stop signal; the loop waits on it so a signal ends the wait at once.

    SIGHUP sets only ``reload_requested`` (read at the next control tick) and does not cut a
    wait short: the instant still runs at its deadline.

    In the main thread the wait is a ``select`` on a self-pipe that the interpreter's C-level
    signal handler writes to (``signal.set_wakeup_fd``): the signal makes the pipe readable, so
    the wait returns at once, and each of the ~13 wake-ups a second costs less than a
    ``threading.Event`` wait (which allocates and acquires a lock per call).  Elsewhere (a test
    running the daemon in a thread) it falls back to the Event.
    """

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signal_name = ""
        self.reload_requested = False
        self._wake_fd: int | None = None
        self._wake_w: int | None = None

    def handler(self, signum: int, frame: FrameType | None) -> None:
        self.signal_name = self.signal_name or signal.Signals(signum).name
        self.event.set()

    def hup(self, signum: int, frame: FrameType | None) -> None:
        self.reload_requested = True

    def end(self, reason: str) -> None:
        """End the run from another thread as a stop signal does, ``reason`` its ``stopped_by``
        (the workload exited: a user's measurement is over then, session 29i).  The caller
        guarantees the flag's pipe is still open (the workload's callback is dropped first)."""
        self.signal_name = self.signal_name or reason
        self.event.set()
        if self._wake_w is not None:  # the byte a signal would leave: the wait ends at once
            with contextlib.suppress(OSError):
                os.write(self._wake_w, b"\0")

    def install(self, stack: contextlib.ExitStack) -> None:
        # The wake-up pipe first: a stop that lands between a handler's installation and the
        # pipe's would set the flag without a byte, and a wait that only wakes on bytes would
        # then sleep through it (a run with no duration: forever).
        if threading.current_thread() is threading.main_thread():
            r, w = os.pipe()
            os.set_blocking(r, False)
            os.set_blocking(w, False)
            stack.callback(os.close, r)
            stack.callback(os.close, w)
            previous_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
            stack.callback(signal.set_wakeup_fd, previous_fd)  # runs before the closes (LIFO)
            self._wake_fd = r
            self._wake_w = w
        for sig in STOP_SIGNALS:
            previous = signal.signal(sig, self.handler)
            stack.callback(signal.signal, sig, previous)
        previous = signal.signal(RELOAD_SIGNAL, self.hup)
        stack.callback(signal.signal, RELOAD_SIGNAL, previous)
        self._act_on_held(heldsignals.take())

    def _act_on_held(self, held: frozenset[int]) -> None:
        """A signal the command held before this flag was installed counts as if it came now."""
        if RELOAD_SIGNAL in held:
            self.reload_requested = True
        for sig in STOP_SIGNALS:
            if sig in held:
                self.handler(sig, None)
                if self._wake_w is not None:  # the byte a signal leaves: the next wait ends at once
                    with contextlib.suppress(BlockingIOError):
                        os.write(self._wake_w, bytes((sig,)))

    def is_set(self) -> bool:
        return self.event.is_set()

    def wait(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s``; True if a stop was requested.

        A wait that times out returns False without a look at the flag, so the common case (~13
        times a second) costs this one frame: a stop signal always leaves a byte in the pipe,
        also one handled while the loop was working, so the ``select`` returns at once.  The
        flag is looked at after every byte, and again after draining another signal's bytes
        (a stop's may have been drained with them).  The loop looks at the flag itself when
        it does not wait.
        """
        wake_fd = self._wake_fd
        if wake_fd is None:
            return self.event.wait(timeout_s)
        deadline = time.monotonic() + timeout_s
        while True:
            if not select.select([wake_fd], [], [], timeout_s)[0]:
                return False
            if self.event.is_set():
                return True
            # Some other signal (SIGHUP) woke us: drain its byte, or every later wait would
            # return at once and the loop would spin; then wait out the rest.
            with contextlib.suppress(BlockingIOError):
                os.read(wake_fd, 512)
            if self.event.is_set():
                return True
            timeout_s = deadline - time.monotonic()
            if timeout_s <= 0:
                return False


@dataclass(frozen=True, slots=True)
class Prepared:
    """Everything decided before the first side effect."""

    tree: SysfsTree
    board: BoardProfile  # restricted to what this board really has
    config: Config
    bmap: BoardMap
    board_reason: str
    specs: tuple[SensorSpec, ...]
    inventory: Inventory  # the one discovery the start's checks, lines and throttle sources share
    board_warning: str = ""  # a board governed by its SoC family's profile (family_warning)


def governed_bindings(bmap: BoardMap) -> tuple[DomainBinding, ...]:
    """The domains the daemon governs, in the profile's order (the trace's columns): the bound
    ones and those whose every policy is offline now (``bmap.offline``, hw/lateclusters.py)."""
    by_name = {b.domain.name: b for b in (*bmap.domains, *bmap.offline)}
    return tuple(by_name[d.name] for d in bmap.board.domains if d.name in by_name)


def names_of(specs: tuple[SensorSpec, ...]) -> set[str]:
    return {s.name for s in specs}


def bound_names(bmap: BoardMap) -> set[str]:
    """The sensors bound at start (the others, if the profile names them, are waited for)."""
    return {b.sensor.name for b in bmap.sensors}


def governed_names(bmap: BoardMap) -> set[str]:
    return {b.domain.name for b in governed_bindings(bmap)}


def effective_board(board: BoardProfile, bmap: BoardMap) -> BoardProfile:
    """The profile minus missing sensors/domains, so trace columns match what is measured.

    A domain whose every policy is offline at start stays: it is governed once one comes online,
    and so does one whose device is not there yet (hw/latedevfreq.py), but only beside a domain
    that is: a tree with none of the profile's domains is a wrong root or profile, refused."""
    have_s = {b.sensor.name for b in bmap.sensors}
    present = bmap.domains or any(b.inactive for b in bmap.offline)
    have_d = {b.domain.name for b in governed_bindings(bmap)} if present else set()
    if not have_s:
        why = "; ".join(f"{k}: {v}" for k, v in bmap.missing_sensors.items())
        raise ConfigError(
            f"board {board.name}: none of its sensors exists here ({why}); run `thermogov doctor`"
        )
    if not have_d:
        why = "; ".join(f"{k}: {v}" for k, v in bmap.missing_domains.items())
        raise ConfigError(
            f"board {board.name}: none of its domains exists here ({why}); run `thermogov doctor`"
        )
    # A zone or hwmon sensor absent at start is kept, waiting (hw/latezones.py): its column
    # stays empty until it appears and eases into the fusion.
    have_s |= {s.name for s in board.sensors if s.kind in WAITED_KINDS}
    return dataclasses.replace(
        board,
        sensors=tuple(s for s in board.sensors if s.name in have_s),
        domains=tuple(d for d in board.domains if d.name in have_d),
    )


def prepare(opts: RunOptions, tree: SysfsTree | None = None) -> Prepared:
    tree = tree if tree is not None else SysfsTree(opts.sysfs_root)
    inv = discover(tree)
    seed_ranges(tree, inv)  # the start's limit check reads no range discovery just read
    unmatched = unmatched_model(opts.board, opts.config, inv)
    if unmatched:
        raise ConfigError(unmatched)
    board, reason = choose_board(opts.board, opts.config, inv)
    bmap = map_board(inv, board)  # the profile plus a battery found on the board
    opts.config.sensor_specs(bmap.board)  # validates [sensors] overrides against the full profile
    eff = effective_board(bmap.board, bmap)
    names = {s.name for s in eff.sensors}
    cfg = dataclasses.replace(
        opts.config,
        board=board.name,
        board_file="",
        sensors={k: v for k, v in opts.config.sensors.items() if k in names},
    )
    specs = cfg.sensor_specs(eff)
    warning = family_warning(opts.board, opts.config, inv)
    return Prepared(tree, eff, cfg, bmap, reason, specs, inv, warning)


def policy_context(prep: Prepared) -> PolicyContext:
    """A policy's context from the mapped board alone, before any actuator is opened.

    The tables are the governed OPP tables the actuators will offer, so a ``[policies.*]``
    table (and ``ab``'s policies) can be checked with nothing opened for writing and nothing
    said yet: bad input is then the only line a run prints.
    """
    bound = bound_names(prep.bmap)  # once, not per sensor
    return PolicyContext(
        board=prep.board,
        tables_hz={
            b.domain.name: governed_table(b.hw_table_hz, b.domain.opp_hz[0], None)
            for b in governed_bindings(prep.bmap)
        },
        control_period_s=prep.config.governor.control_period_ms / 1000.0,
        # Only the sensors the board has now: one waited for (hw/latezones.py) is not counted in
        # a policy's margins, weights or fastest period (stepped) while it may never appear.
        sensor_names=tuple(s.name for s in prep.specs if s.name in bound),
        extra={"backend": "hw"},
    )


def open_governed_fan(
    prep: Prepared, dry_run: bool, log: Log, clock: Callable[[], float] = time.monotonic
) -> HwFan | None:
    """The fan, when the config gives it to the governor (found and free of rivals, or exit 2)."""
    if not prep.config.fan.governed:
        return None
    dev = require_fan(prep.tree)
    log(f"governing the fan {dev.describe(prep.tree)}")
    for note in jtop_fan_notes(prep.tree) if dev.l4t_rel is not None else nvfan_notes(prep.tree):
        log(f"note: {note}")
    return HwFan(prep.tree, dev, dry_run=dry_run, clock=clock)


def fan_controller(config: Config, fan: HwFan | None) -> FanController | None:
    if fan is None:
        return None
    return FanController(fan, config.fan.curve(fan.levels, trip_of(config)), config.fan.dwell_s)


def _journal_entries(actuators: list[CapActuator]) -> list[JournalEntry]:
    return [
        JournalEntry(a.name, f.label, f.min_rel, f.max_rel, f.scale_hz, lo, hi)
        for a in actuators
        for f, lo, hi in a.originals()
    ]


def _rewrite_journal(
    journal: Journal | None,
    tree: SysfsTree,
    actuators: list[CapActuator],
    idle: IdleInjector | None,
    fan: HwFan | None,
    ranges: RecordedRanges,
    power_mode: PowerModeWatch | None = None,
    record: LastCaps | None = None,
) -> None:
    """Write (or rewrite, when another writer's later choice replaced an original) the journal,
    each window with the hardware ranges it had (a table shrunk later is clamped into at restore),
    and the nvpmodel mode its windows belong to (a restore after a mode change leaves the new
    mode's windows, :func:`thermogov.hw.journal.into_new_mode`)."""
    if journal is None:
        return
    states = idle.originals() if idle is not None else None
    fan_attrs = [AttrEntry(rel, v) for rel, v in fan.originals] if fan is not None else []
    entries = ranges.stamp(tree, _journal_entries(actuators))
    mode = power_mode.journaled if power_mode is not None else None
    # The record's path, so a restore given another --lock-dir finds this run's caps.
    caps = str(record.path.absolute()) if record is not None else ""
    journal.write(
        new_journal_data(tree, entries, states=states, attrs=fan_attrs, power_mode=mode, caps_record=caps),
        in_force=_in_force(actuators, idle, fan),
    )


def _in_force(actuators: list[CapActuator], idle: IdleInjector | None, fan: HwFan | None) -> str:
    """What this run has written to the board, in a failed rewrite's line: each domain's cap in
    force, and the idle injection and fan it drives (their originals are journaled too)."""
    parts = [f"{a.name} max {a.cap_hz / 1e6:g} MHz" for a in actuators]
    if idle is not None and idle.originals():
        parts.append("idle injection")
    if fan is not None and fan.originals:
        parts.append("the fan")
    return ", ".join(parts)


def open_actuators(tree: SysfsTree, bindings: Sequence[DomainBinding], dry_run: bool) -> list[CapActuator]:
    """Every governed domain's actuator, or none: a domain that fails to open (a member gone
    during start-up, hw/devices.py ``own_all``) lets go of the domains opened before it, so a
    run that stops before its journal holds nothing (session 32r)."""
    actuators: list[CapActuator] = []
    try:
        for b in bindings:
            actuators.append(CapActuator.open(tree, b, dry_run=dry_run))
    except BaseException:
        for a in actuators:
            tree.disown(limit_rels(a.files))
        raise
    return actuators


def own_records(opts: RunOptions, root: Path) -> dict[str, Path]:
    """The files the daemon keeps for itself (a restore after ``kill -9`` reads the journal and
    the caps record; the locks keep a second daemon off the board): no published file may name
    one (hw/runtimefiles.py ``check_not_own``, session 25r)."""
    journal = Journal(opts.state_dir).path
    board = board_lock_path(root, opts.lock_dir)
    own = {
        "crash journal": journal,
        "crash journal's temporary file": journal.with_name(JOURNAL_NAME + ".tmp"),
        "board lock": board,
        "caps record": last_caps_path(board),
    }
    if opts.lock_file:
        own["lock file"] = Path(opts.lock_file)
    return own


def _pending_journal_note(opts: RunOptions) -> str:
    """A refused start must not hide limits a dead run left changed (a read-only state dir)."""
    try:
        pending = not opts.dry_run and Journal(opts.state_dir).exists()
    except OSError:
        return ""
    if not pending:
        return ""
    return (
        f"; a journal of limits left changed is there: "
        f"`{restore_command(opts.sysfs_root, opts.state_dir)}` puts them back"
    )


def _restore_all(
    actuators: list[CapActuator],
    journal: Journal | None,
    log: Log,
    tree: SysfsTree,
    idle: IdleInjector | None = None,
    fan: HwFan | None = None,
    ranges: RecordedRanges | None = None,
    record: LastCaps | None = None,
) -> None:
    """Put every captured window (and idle-injection state, and the fan) back; the journal goes
    only once all writes succeeded, and with it the record of thermogov's last caps (``record``).

    A window whose table another agent shrank during the run is written clamped into today's
    range, by the journal restore's rule (:func:`clamp_to_today`), and the closing line says so.
    """
    root = tree.root
    moved: dict[tuple[str, str], tuple[int, int]] = {}
    notes: list[str] = []
    if ranges is not None:
        moved, notes = clamp_to_today(tree, ranges.known(_journal_entries(actuators)))
    said = "".join(f"; {n}" for n in notes)
    errors = []
    restorable: list[CapActuator | IdleInjector | HwFan] = [
        *([idle] if idle is not None else []),
        *([fan] if fan is not None else []),
        *actuators,
    ]
    for a in restorable:
        try:
            if isinstance(a, CapActuator):
                a.restore(moved)
            else:
                a.restore()
        except ActuatorError as e:
            errors.append(str(e))
        if isinstance(a.io, DryRunIO):
            for w in a.io.drain():
                log(f"dry-run: at exit would restore {w}")
    # Session 31r: another writer's value met by the restore (left as it is) is said in the line.
    said += "".join(f"; {n}" for a in actuators for n in a.restore_notes)
    if errors:
        if journal is None:  # a dry run owns nothing, so this is only reachable through a bug
            raise RuntimeFailure(f"restore incomplete, left changed: {'; '.join(errors)}")
        raise RuntimeFailure(
            f"restore incomplete, left changed: {'; '.join(errors)}; journal kept at {journal.path}; "
            f"put them back with `{restore_command(root, journal.state_dir)}`{said}"
        )
    if journal is not None:
        journal.delete_restored(root)  # the board is restored: a file that stays is said as such
        if record is not None:
            record.discard()
        log(f"limits restored{said}")


class Runner:
    """One daemon run; ``run()`` returns the run summary."""

    def __init__(
        self,
        opts: RunOptions,
        *,
        out: TextIO | None = None,
        err: TextIO | None = None,
        tree: SysfsTree | None = None,
    ) -> None:
        self.opts = opts
        self.tree = tree  # injected in tests (a kernel double); else SysfsTree(opts.sysfs_root)
        self.out = out or sys.stdout
        self.log = Log(err or sys.stderr)
        self.stop = StopFlag()
        self.instant = InstantClock()
        self.stats = TickStats()
        self.summary: dict[str, Any] = {}
        self.actuators: list[CapActuator] = []  # their restore's notes go into the summary
        self.notifier = Notifier(env={})  # replaced in run(): systemd's socket, if any
        self.limiters: list[CapLimiter] = []
        self.load: LoadGovernor | None = None  # inference mode and load level (published)
        self.fan_ctl: FanController | None = None
        self.reloader: Reloader | None = None
        self.publisher: StatePublisher | None = None
        self.started_unix = time.time()
        self.throttle = ThrottleMonitor([])  # replaced in run(): the board's own sources
        self.limit_watch: LimitWatch | None = None
        self.power_mode: PowerModeWatch | None = None  # nvpmodel's mode, read at start and exit
        self.late_zones: LateZones | None = None  # sensors waited for (hw/latezones.py)
        self.telemetry: HwTelemetry | None = None  # the power read and its period (hw/powerread.py)
        self.gov: Governor | None = None  # for the end's verdict on caps never written (session 30)
        self.ctx: PolicyContext | None = None  # the running policy's context (widened by late sensors)
        self._conf_warned: set[int] = set()  # modes whose nvpmodel.conf could not say, said once

    def throttle_counters(self) -> ThrottleCounters:
        """Throttling that is not ours so far (kind -> count, time, active), for published state."""
        return self.throttle.snapshot()

    def run(self) -> dict[str, Any]:
        opts = self.opts
        check_privileges(opts.dry_run)
        with contextlib.ExitStack() as stack:
            self.stop.install(stack)
            # Read (and unset) $NOTIFY_SOCKET before any child starts: a workload must not
            # be able to tell systemd the daemon is alive.
            self.notifier = Notifier(on_error=self.log)
            stack.callback(self.notifier.close)
            prep = prepare(opts, self.tree)
            stack.callback(prep.tree.close)  # the descriptors kept open for per-period reads
            # A bad [policies.*] table exits 2 here, before anything is said or opened.
            prep.config.make_policy(policy_context(prep))
            workload = parse_workload(opts.workload, opts.count_regex)
            if opts.publish.inferences_file is not None:  # judged by a dry run too, nothing made
                check_counter_path(opts.publish.inferences_file)
            out_dir = opts.out if opts.out is not None else Path(prep.config.out)
            try:
                preflight(out_dir, None if opts.dry_run else opts.state_dir)
            except ConfigError as e:
                raise ConfigError(f"{e}{_pending_journal_note(opts)}") from None
            own = own_records(opts, prep.tree.root)  # never a published file (session 25r)
            state_file = state_path(opts.publish, self.log, own, opts.lock_dir)
            if opts.publish.metrics_textfile is not None:
                check_not_own(opts.publish.metrics_textfile, "--metrics-textfile", own)
            metrics = open_metrics(opts.publish)  # listening before the lock: a busy port exits 2
            if metrics is not None:
                stack.callback(metrics.close, self.log)  # a failed "down" write said (33s)
            if not opts.dry_run:
                # A corrupt journal is bad input too: refused here, before any warning, so its
                # line is the only one (recover, under the lock, reads and checks it again).
                Journal(opts.state_dir).load()
            # Said only now: bad input (workload, output folders, a busy port) is then the only line.
            for notice in (*start_lines(prep), *opts.notices) if opts.start_lines else opts.notices:
                self.log(notice.removeprefix("thermogov: "))
            later = {b.domain.name: b for b in prep.bmap.offline}
            for name, why in prep.bmap.missing_domains.items():
                if name in later:
                    b = later[name]
                    self.log(f"warning: {offline_note(b) if b.inactive else absent_note(b)}")
                else:
                    self.log(f"warning: domain {name} is not governed ({why}); governing the others")
            specified = names_of(prep.specs)  # once, not per missing sensor
            for name, why in prep.bmap.missing_sensors.items():
                # A battery waited for is not warned of at each start (session 23b): a mains board
                # with a profile naming a pack is the common case; doctor and status say it.
                if name in specified and prep.board.sensor(name).kind != "battery":
                    self.log(
                        f"warning: sensor {name} is not there yet ({why}); fused without it, looked for once a second"
                        f", after {PROMPT_S:g} s at least every {MAX_LOOK_S:g} s"
                    )
            for b in prep.bmap.domains:
                for why in b.skipped:
                    self.log(f"warning: {why}; domain {b.domain.name} governs {b.source} without it")
            for line in prep.bmap.unowned:  # session 30r: said once, never written
                self.log(f"warning: {line}")
            journal = None
            record: LastCaps | None = None
            if opts.dry_run:
                try:
                    pending = Journal(opts.state_dir).exists()
                except PermissionError:  # the unit's StateDirectoryMode=0700, read as a user
                    pending = False
                    self.log(
                        f"dry-run: {opts.state_dir} is not readable as this user; a pending journal is not checked"
                    )
                if pending:
                    self.log(
                        f"dry-run: a journal exists at {Journal(opts.state_dir).path}; `thermogov restore` applies it"
                    )
            else:
                lock = BoardLock(prep.tree.root, opts.lock_dir, opts.lock_file, opts.state_dir)
                lock.acquire()
                stack.callback(lock.release)
                journal = Journal(opts.state_dir)
                msg = recover(prep.tree, journal, last_caps_path(lock.path))
                if msg:
                    self.log(msg)
                # After the restore read the last run's: this run's caps from now on (hw/lastcaps.py).
                record = LastCaps.create(prep.tree, read_boot_id(prep.tree), lock.path, self.log)
            bindings = governed_bindings(prep.bmap)
            actuators = self.actuators = open_actuators(prep.tree, bindings, opts.dry_run)
            if record is not None:
                for a in actuators:
                    a.record = record
            fan = open_governed_fan(prep, opts.dry_run, self.log, self.instant.reader())
            fan_ctl = self.fan_ctl = fan_controller(prep.config, fan)  # curve checked before the journal
            if prep.board_warning:  # said once the limits and the fan opened: a refusal stays one line
                self.log(f"warning: {prep.board_warning}")
            if mismatch := super_mismatch(prep.tree, prep.board.name, builtin_board_names()):
                self.log(f"warning: {mismatch}")  # read only: the mode is never changed (28r)
            supers = SuperWatch(prep.tree, prep.board.name, builtin_board_names(), mismatch)
            bound = bound_names(prep.bmap)
            ctx = self.ctx = PolicyContext(
                board=prep.board,
                tables_hz={a.name: a.table_hz for a in actuators},
                control_period_s=prep.config.governor.control_period_ms / 1000.0,
                # The sensors there now, as policy_context's (session 24a: before, only the
                # check's context left out a sensor waited for); one that joins is added then.
                sensor_names=tuple(s.name for s in prep.specs if s.name in bound),
                extra={"backend": "hw"},
            )
            policy = prep.config.make_policy(ctx)
            # Power budgets and Li-ion limits (thermogov.budget, thermogov.battery): caps only lowered.
            self.limiters = power_limiters(
                prep.config.power, prep.board, {a.name: a.table_hz for a in actuators}
            )
            self.reloader = Reloader(
                opts.reload_config,
                opts.config,
                ReloadTarget(prep.board, ctx, ctx.tables_hz),
                self.log,
                opts.config_source or "the config",
            )
            recorder = TraceGuard(
                RunRecorder.create(out_dir, prep.config, prep.board, "hw", fan=fan is not None), self.log
            )
            stack.callback(self._finish, recorder, prep, workload)
            if workload is not None:
                # Its exit ends the run (restored, summarised, judged by the command): what is
                # measured after it is an idle board, not the user's load (session 29i).
                workload.on_exit(functools.partial(self.stop.end, WORKLOAD_EXITED))
                # Its output ending while it runs on is said once; the run governs on (30i).
                workload.on_stream_end(self.log)
                workload.start()
                stack.callback(workload.stop)
                counted: Callable[[], int | None] | None = workload.inferences_total
                source = "workload"
            else:
                app = AppCounter(
                    opts.publish.inferences_file or default_inferences_path(opts.lock_dir), self.log
                )
                stack.callback(app.close)
                if state_file is not None or opts.publish.inferences_file is not None:
                    app.create()
                counted, source = app, f"file:{app.path}"
            rail, summed = prep.bmap.power, prep.bmap.summed
            # Chargers that appear after start are added, those that go away forgotten (25c).
            supplies = PowerSupplyReader(
                prep.tree,
                prep.bmap.supplies,
                self.instant.reader(),
                rescan=True,
                log=self.log,
                prefer=battery_names(prep.bmap.board),  # which pack is "the battery" (28r)
            )
            telemetry = HwTelemetry(
                prep.tree,
                rail,
                counted,
                supplies=supplies,
                watch=rail_watch(prep.tree, rail, summed, self.log, self.instant.reader()),
                summed=summed,
                power=prep.config.power,
                clock=self.instant.reader(),
            )
            self.telemetry = telemetry
            # Kernel idle injection carries the lever's duty cycle where the board has it.
            idle = (
                IdleInjector.open(prep.tree, dry_run=opts.dry_run, on_error=self.log)
                if prep.config.lever.enabled
                else None
            )
            self.throttle = ThrottleMonitor.open(prep.tree, self.log, prep.inventory.zones)
            self.publisher = StatePublisher(
                StateIdentity(
                    os.getpid(),
                    self.started_unix,
                    prep.board.name,
                    opts.dry_run,
                    str(recorder.recorder.run_dir),
                    source,
                ),
                state_file,
                [s.name for s in prep.specs],
                [a.name for a in actuators],
                self.log,
                metrics,
            )
            stack.callback(self.publisher.close)
            self.publisher.throttle_counts = lambda: self.throttle.snapshot().counts
            if workload is not None:
                self.publisher.counting = workload.counting  # a closed stdout: no live rate (31h)
            ranges = RecordedRanges()
            power_mode = self.power_mode = PowerModeWatch(
                prep.tree
            )  # before the first write: the mode we found
            _rewrite_journal(journal, prep.tree, actuators, idle, fan, ranges, power_mode, record)
            stack.callback(_restore_all, actuators, journal, self.log, prep.tree, idle, fan, ranges, record)
            rewrite = functools.partial(
                _rewrite_journal, journal, prep.tree, actuators, idle, fan, ranges, power_mode, record
            )
            if fan is not None:  # another writer took the fan: said once, the journal drops it
                fan.on_left = functools.partial(self._fan_left, rewrite)
                if record is not None:  # what a journal restore may take as ours (session 21f)
                    fan.on_wrote = record.fan_wrote
            pairs = list(zip(actuators, bindings, strict=True))
            late = LateClusters(prep.tree, pairs, rewrite, self.log, dry_run=opts.dry_run)
            late_devices = LateDevfreq(prep.tree, pairs, rewrite, self.log, dry_run=opts.dry_run)
            gone = Departures(prep.tree, pairs, late.hold, late_devices.hold, dry_run=opts.dry_run)
            boosts = BoostStates(prep.tree, [f.max_rel for a in actuators for f in a.files])
            opps = OppWatch(prep.tree, actuators, self.instant.reader())  # a list changed mid-run (32r)
            self.limit_watch = LimitWatch(
                actuators,
                self.log,
                functools.partial(self._journal_again, rewrite),
                mode_change=self._mode_change,
                on_mode_adopted=power_mode.adopt,
                late_clusters=lambda: [*late.check(), *late_devices.check()],
                departures=gone.check,
                recall_at_exit=lambda: [*late.recall_at_exit(), *late_devices.recall_at_exit()],
                mode_sets=functools.partial(self._mode_sets, prep.tree, actuators),
                boost_reset=boosts.switched_to,
                # a mode changed mid-run (29r); an OPP list changed mid-run (32r, hw/oppwatch.py)
                boost_look=lambda: [*boosts.look(), *supers.look(), *opps.look()],
            )
            stack.callback(self._exit_notes)  # said just before the restore writes over them
            self.load = LoadGovernor(prep.config.modes, prep.config.lever, trip_of(prep.config), control=idle)
            stack.callback(self.notifier.stopping)  # runs first on exit: STOPPING=1, then restore
            grace_ms = prep.config.governor.unknown_grace_ms
            sources: dict[str, SensorSource] = {s.name: WaitingSource(s.name) for s in prep.specs}
            sources.update(
                {b.sensor.name: open_sensor(prep.tree, b, self.instant.reader()) for b in prep.bmap.sensors}
            )
            gov = Governor(
                prep.specs,
                sources,
                actuators,
                policy,
                telemetry=telemetry,
                unknown_grace_s=grace_ms / 1000.0 if grace_ms > 0 else HW_UNKNOWN_GRACE_S,
                max_write_failures=prep.config.governor.max_write_failures,
                stuck_after_s=prep.config.governor.stuck_after_s,
                on_sample=recorder.on_sample,
                on_log=self.log,
                limiters=self.limiters,
                load=self.load,
                fan=fan_ctl,
            )
            self.gov = gov
            self.limit_watch.on_refused = gov.refused  # a planted limit: failsafe at once
            opps.on_written = gov.written_below  # the cap written, in the trace and state (33s)
            self.late_zones = self._ease(prep, gov)
            self.late_zones.listed_by[POWER_SUPPLY] = lambda: supplies.listed  # one listing (25l)
            if self.publisher is not None:
                self.publisher.waiting = self.late_zones.waiting_for  # `status` shows them
                self.publisher.supplies = supplies.supplies_now  # and the chargers as read (25c)
            ios = [*(a.io for a in actuators), *([fan.io] if fan is not None else [])]
            dry_ios = [io for io in ios if isinstance(io, DryRunIO)]
            if idle is not None and isinstance(idle.io, DryRunIO):
                dry_ios.append(idle.io)
            try:
                self._loop(prep, gov, telemetry, recorder.on_tick, dry_ios, recorder.recorder.run_dir)
            except ActuatorError as e:
                # A write failing outside the governor's own accounting is the board failing
                # mid-run (exit 1), never bad input (exit 2: "nothing was written"); the
                # stack below restores everything on the way out and says so.
                raise RuntimeFailure(f"stopped mid-run: {e}") from e
        return self.summary

    def _ease(self, prep: Prepared, gov: Governor) -> LateZones:
        """The governor's fusion eased (hw/latezones.py) and the sensors waited for."""
        ramps = {s.name: ramp_s(s) for s in prep.board.sensors}
        fused = names_of(prep.specs)  # a sensor the config disables is neither looked for nor left
        late = LateZones(
            prep.tree,
            [s for s in prep.board.sensors if s.name in fused],
            [b for b in prep.bmap.sensors if b.sensor.name in fused],
            gov.sensors,
            self.log,
            self.instant.reader(),
        )
        eased = EasedFusion(prep.specs, ramps, late.waiting)
        eased.excluded = gov.fusion.excluded  # the stuck watch's own set
        gov.fusion = eased
        return late

    def _widen(self, prep: Prepared, gov: Governor) -> None:
        """A sensor waited for at start joined: the policy gets it (hw/latepolicy.py)."""
        assert self.ctx is not None and self.late_zones is not None and self.reloader is not None
        self.ctx = widened(
            gov, self.ctx, prep.specs, self.late_zones.joined_late, self._running_config(prep), self.log
        )
        self.reloader.retarget(self.ctx)

    def _finish(self, recorder: TraceGuard, prep: Prepared, workload: ProcessWorkload | None) -> None:
        late, missing = self.late_zones, prep.bmap.missing_sensors
        if late is not None:
            late.flush()  # a flapping zone's changes not said yet (one line a minute)
        extra: dict[str, Any] = {
            **self.stats.summary(),
            **(self.fan_ctl.summary() if self.fan_ctl is not None else {}),
            **(
                {"fan_owner": "another writer"}
                if self.fan_ctl is not None and getattr(self.fan_ctl.fan, "left", None)
                else {}
            ),
            "dry_run": self.opts.dry_run,
            "sysfs_root": str(self.opts.sysfs_root),
            "workload": workload.label if workload is not None else None,
            **(workload.report() if workload is not None else {}),
            "power_rail": prep.bmap.power.label if prep.bmap.power else None,
            **summed_summary(prep.bmap.summed),
            **self._read_period(),
            # Missing at the end (hw/latezones.py): one that joined later is in joined_late.
            "missing_sensors": late.missing(missing) if late is not None else dict(missing),
            "joined_late": dict(late.joined_late) if late is not None else {},
            "missing_domains": {
                k: v for k, v in prep.bmap.missing_domains.items() if k not in governed_names(prep.bmap)
            },
            "stopped_by": self.stop.signal_name or "duration",
            "caps_unwritable": self.gov.unwritable() if self.gov is not None else {},
            # Session 32r: what the exit's restore left to another writer (hw/limits.py RaceRule),
            # said in the closing line and kept here for `thermogov ab` (hw/ab.py), whose blocks
            # run quietly.  The restore runs before this (the exit stack's order).
            "restore_left_to_others": [n for a in self.actuators for n in a.restore_notes],
            "reloads": self.reloader.count if self.reloader else 0,
            "reloads_rejected": self.reloader.rejected if self.reloader else 0,
            **limiter_summary(self.limiters),
            **(self.load.summary() if self.load is not None else {}),
        }
        if workload is not None:  # its output ended mid-run: no rate over the time after (30i)
            extra.update(workload.unmeasured(extra))
        self.summary = recorder.finish(extra)

    def _loop(
        self,
        prep: Prepared,
        gov: Governor,
        telemetry: HwTelemetry,
        on_tick: Callable[[TickRecord], None],
        dry_ios: list[DryRunIO],
        run_dir: Path,
    ) -> None:
        periods = [(s.name, s.period_ms) for s in prep.specs]
        ctrl_ms = prep.config.governor.control_period_ms
        # One wake-up per distinct instant: the plan's repeating pattern of (instant, streams
        # due), replayed without a heap operation or a new list per instant.
        instants = MultiRatePlan(periods, ctrl_ms).instants()
        end_ms = None if self.opts.duration_s is None else round(self.opts.duration_s * 1000)
        stop = self.stop
        publisher, reloader = self.publisher, self.reloader
        watch = self.limit_watch
        late = self.late_zones
        assert watch is not None and late is not None
        skip = late.skip  # sensors waited for: not sampled
        joined = 0  # late sensors the policy's context names (hw/latepolicy.py)
        dropped: set[str] = set()  # sensors whose last read failed (their file still there or not)
        columns = {s.name: i for i, s in enumerate(prep.specs)}  # the governor's readings order
        assert publisher is not None and reloader is not None  # made in run()
        started = False
        stopped = stop.event.is_set  # looked at when the loop does not wait (see StopFlag.wait)
        instant = self.instant
        notifier = self.notifier
        watchdog = notifier.enabled  # systemd's watchdog: outside systemd, not even a call
        # Everything allocated so far (imports, profiles, config) lives as long as the run;
        # moving it out of the collector's generations keeps full collections from walking it.
        gc.collect()
        gc.freeze()
        t0 = time.monotonic()
        t_ms, due = next(instants)
        closing = False  # the workload exited: one last control tick records its final count
        while end_ms is None or t_ms <= end_ms:
            delay = t0 + t_ms / 1000.0 - time.monotonic()
            if stop.wait(delay) if delay > 0 else stopped():
                if stop.signal_name != WORKLOAD_EXITED:
                    break
                # Its every line was read before its exit was seen (hw/workload.py): the tick
                # now puts the whole count in the trace and the summary, then the run ends.
                closing, due = True, (CONTROL,)
            begin = time.perf_counter()
            now = instant.now = time.monotonic() - t0
            for name in due:
                if name != CONTROL:
                    if not skip or name not in skip:
                        if gov.sample(name, now) is None:
                            dropped.add(name)  # a dropout: its column empty until it reads again
                        elif dropped:
                            dropped.discard(name)
                    continue
                # The reload first: one that sets a budget has this tick's sum read, not held.
                reload_event = self._reload(gov) if stop.reload_requested else ""
                telemetry.new_tick()
                rec = self.throttle.annotate(gov.tick(now))
                if now >= watch.ready_s:
                    changed = watch.check(now)
                    if changed:
                        rec = with_events(rec, changed)
                if dropped:
                    rec = blanked(rec, columns, dropped)
                zones = late.look(now, gov.fusion)
                if zones:
                    rec = with_events(emptied(rec, gov, late.left_now), zones)
                    if len(late.joined_late) != joined:
                        joined = len(late.joined_late)
                        self._widen(prep, gov)
                if dry_ios:
                    rec = self._dry_events(rec, dry_ios)
                if reload_event:
                    rec = with_events(rec, [reload_event])
                on_tick(rec)
                publisher.on_tick(rec, gov, reloader.count)
                self.stats.record(time.perf_counter() - begin)
                if not started:
                    started = True
                    notifier.ready(f"governing {prep.board.name}")
                    mode = "dry-run" if self.opts.dry_run else "governing"
                    print(  # printable: a --out folder's name that is not UTF-8, as every line
                        printable(
                            f"thermogov: started pid={os.getpid()} board={prep.board.name} mode={mode} "
                            f"run_dir={run_dir}{self._published_at()}"
                        ),
                        file=self.out,
                        flush=True,
                    )
                if watchdog:  # every control tick: a hung loop misses WatchdogSec
                    notifier.watchdog()
            if closing:
                break
            t_ms, due = next(instants)
            lag_ms = (time.monotonic() - t0) * 1000.0 - t_ms
            if lag_ms > ctrl_ms:
                # Fell behind by more than a control period (a slow sysfs read, a suspended
                # board): resume at the next instant instead of replaying the backlog.
                now_ms = int((time.monotonic() - t0) * 1000.0) + 1
                instants = MultiRatePlan(periods, ctrl_ms, start_ms=now_ms).instants()
                t_ms, due = next(instants)
                self.stats.overruns += 1
                self.log(f"control loop fell {lag_ms:.0f} ms behind; skipped to t={now_ms} ms")

    def _fan_left(self, rewrite: Callable[[], None], why: str) -> None:
        """The fan left to another writer (hw/fan.py, the rival rule): said, and the journal
        written without it, so a restore after a crash does not write over that writer either."""
        self._journal_again(rewrite)
        self.log(why)

    def _journal_again(self, rewrite: Callable[[], None]) -> None:
        """Mid-run the journal failing to update is a warning: the run and its restore go on
        (the line says what is in force and what a restore after a crash would do, hw/journal.py)."""
        try:
            rewrite()
        except ThermogovError as e:
            self.log(f"warning: {e}; the run goes on")

    def _mode_change(self) -> str:
        """One line's start naming nvpmodel's recorded mode change since the start, or ""."""
        if self.power_mode is None:
            return ""
        changed = self.power_mode.changed()
        if changed is None:
            return ""
        return f"nvpmodel mode changed from {changed[0]} to {changed[1]} ({self.power_mode.where()})"

    def _mode_sets(self, tree: SysfsTree, actuators: list[CapActuator]) -> Mapping[str, int | str]:
        """The owned max attributes the mode of the last change seen sets, by nvpmodel's own
        configuration (hw/nvpmodelconf.py); empty, with one warning per mode, when it cannot say."""
        mode = self.power_mode.last_change if self.power_mode is not None else None
        if mode is None:
            return {}
        try:
            return mode_writes(tree, mode, [f.max_rel for a in actuators for f in a.files])
        except ConfError as e:
            if mode not in self._conf_warned:
                self._conf_warned.add(mode)
                self.log(
                    f"warning: {tree.show(CONF_REL)}: {e}; the windows mode {mode} sets are judged by the files alone"
                )
            return {}

    def _exit_notes(self) -> None:
        if self.limit_watch is None:
            return
        for note in self.limit_watch.exit_notes(self._mode_change()):
            self.log(note)

    def _read_period(self) -> dict[str, float]:
        """``power_read_period_s``: how often the power was read at the end (0: every tick)."""
        period = None if self.telemetry is None else self.telemetry.read_period_s
        return {} if period is None else {"power_read_period_s": period}

    def _running_config(self, prep: Prepared) -> Config:
        """The configuration in force now: the last one a reload applied, else the start's."""
        return self.reloader.running if self.reloader is not None else prep.config

    def _reload(self, gov: Governor) -> str:
        """Apply a SIGHUP at this tick boundary; the limiters the summary reports follow it."""
        assert self.reloader is not None
        self.stop.reload_requested = False
        event = self.reloader.apply(gov)
        if event == RELOAD:
            self.limiters = list(gov.limiters)
            if isinstance(gov.telemetry, HwTelemetry):  # a budget set or lifted: how often power is read
                gov.telemetry.follow(self.reloader.running.power)
        self.notifier.send(f"STATUS={self.reloader.last_message}")  # shown by `systemctl status`
        return event

    def _published_at(self) -> str:
        pub = self.publisher
        if pub is None:
            return ""
        text = f" state={pub.path}" if pub.path is not None else ""
        if pub.metrics is not None and pub.metrics.port is not None:
            text += f" metrics=http://{self.opts.publish.metrics_addr}:{pub.metrics.port}/metrics"
        return text

    def _dry_events(self, rec: TickRecord, dry_ios: list[DryRunIO]) -> TickRecord:
        writes = [w for io in dry_ios for w in io.drain()]
        if not writes:
            return rec
        for w in writes:
            self.log(f"dry-run: would write {w}")
        return with_events(rec, [f"would_write:{w}" for w in writes])


def emptied(rec: TickRecord, gov: Governor, gone: list[str]) -> TickRecord:
    """The record with the columns of the sensors just gone empty, and the governor's last
    values of them forgotten: a gone sensor's column is empty as while it waited at start."""
    if not gone:
        return rec
    return blanked(rec, {name: gov.forget(name) for name in gone}, gone)


def blanked(rec: TickRecord, columns: Mapping[str, int], names: Iterable[str]) -> TickRecord:
    """The record with the named sensors' trace columns empty (session 23b: a dropout, its read
    failing with the file still there, shows no value rather than its last one).  Only the
    record: the governor still hands the policy the last good value and the fusion's rules
    (stale window, eased fusion) are unchanged, as in the simulator."""
    readings = list(rec.readings_c)
    for name in names:
        readings[columns[name]] = None
    return _replaced(rec, readings_c=tuple(readings))


def with_events(rec: TickRecord, tags: list[str]) -> TickRecord:
    """The record with more event tags (the daemon's own: dry-run writes, reloads)."""
    event = " ".join(x for x in (rec.event, *tags) if x)
    return _replaced(rec, event=event)


def _replaced(rec: TickRecord, **changes: Any) -> TickRecord:
    """``rec`` with ``changes`` (TickRecord is a NamedTuple)."""
    return rec._replace(**changes)


def run(
    opts: RunOptions, *, out: TextIO | None = None, err: TextIO | None = None, tree: SysfsTree | None = None
) -> dict[str, Any]:
    """Run the daemon until ``duration_s`` or a stop signal; limits are restored on return."""
    return Runner(opts, out=out, err=err, tree=tree).run()
