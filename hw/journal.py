"""Crash safety: a single-instance lock and a journal of the limits thermogov changes.

Before the daemon's first write, the original value of every attribute it owns is written to
``<state-dir>/journal.json`` and fsynced (file and directory), so even ``kill -9`` or a power
cut mid-run leaves a record of what to put back.  ``restore`` (the systemd ``ExecStopPost``,
``thermogov restore``, and every daemon start) writes those values back in a valid order and
only then deletes the journal; a partial restore keeps it so the next attempt can finish.

The lock is an ``flock`` (``--lock-file`` here, and the per-board lock of
:mod:`thermogov.hw.boardlock`): the kernel drops it when the holder dies, however it dies, so a
journal found while we hold the lock belongs to a dead process, unless its pid is a live
thermogov given other locks, which is refused.  The pid recorded is for the messages.

The journal is data on disk, so ``recover`` trusts none of it: a sha256 over the canonical
body, the resolved root it was written for, and every entry checked against the allow-list
and the hardware ranges of :mod:`thermogov.hw.owned` before a single write.  A journal from an earlier
boot (``boot_id`` differs) is discarded without writing: the reboot already reset the limits,
and writing stale values could undo an nvpmodel mode chosen since.

Each window's entry also records the hardware range the window had when the journal was
written (format 3).  Another agent may shrink a table while thermogov runs (nvpmodel drops a
devfreq's top OPPs); an original that was in range then is outside today's, and refusing it
refused the whole journal, leaving every other limit lowered on every later start.  Such a
value is written clamped into today's range, said in the restore's line; a value outside the
range its own entry recorded is refused as before.

The journal also records the operator's nvpmodel power mode its limits belong to
(``power_mode``, :mod:`thermogov.hw.powermode`; absent or null where nvpmodel recorded none).
A new top-level field, so the format stays 3: a reader that does not know it ignores it and
restores as before.  When the mode read at restore is another one (the operator ran
``nvpmodel -m`` after a ``kill -9``, or just before it, while the daemon had not yet seen the
change), the journal's windows are the old mode's: each is written as it reads now instead
(:func:`into_new_mode`), never the values of before over the new mode's.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import os
import stat
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from thermogov.hw import confine
from thermogov.hw.discovery import discover
from thermogov.hw.diskfull import full_disk, pid_write_failed
from thermogov.hw.failmsg import restore_command
from thermogov.hw.fan import is_mode_attribute
from thermogov.hw.fanrival import fan_rival
from thermogov.hw.freed import freed
from thermogov.hw.hwrange import limits_range
from thermogov.hw.idle import StateEntry
from thermogov.hw.journalfields import listed, pid_of, typed
from thermogov.hw.journalids import UNRECORDED, IdentityCheck
from thermogov.hw.journalids import parse as parse_identities
from thermogov.hw.journalids import record as record_identities
from thermogov.hw.lastcaps import first_whole_record, named_record_problem, record_paths
from thermogov.hw.limits import LimitFiles, TreeIO, restore_window
from thermogov.hw.limits import write_back as write_back_one
from thermogov.hw.nvpmodelconf import CONF_REL, NO_CAP, ConfError, mode_writes
from thermogov.hw.owned import (
    OwnedWindow,
    check_fan_attribute,
    check_idle_state,
    check_window,
    clamp_to_hardware,
    owned_windows,
)
from thermogov.hw.powermode import STATUS_REL, read_power_mode
from thermogov.hw.sysfs import SysfsTree, errno_name
from thermogov.interfaces import ActuatorError, RuntimeFailure, SensorError, ThermogovError

DEFAULT_STATE_DIR = Path("/var/lib/thermogov")
DEFAULT_LOCK_FILE = Path("/run/thermogov.lock")
JOURNAL_NAME = "journal.json"
BOOT_ID = "proc/sys/kernel/random/boot_id"
FORMAT = 3  # 2: sha256 checksum over the canonical body; 3: each window's recorded hardware range
READABLE_FORMATS = (2, 3)  # a format-2 journal (no ranges) is judged against today's ranges
MAX_JOURNAL_BYTES = 1 << 20


class JournalError(ThermogovError):
    """A journal that may not be applied (corrupt, edited, another root, not owned): exit 2."""


def checksum(body: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of every field but the checksum itself."""
    canon = json.dumps(
        {k: v for k, v in body.items() if k != "sha256"}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canon.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One limit window as it was before thermogov touched it (file units)."""

    domain: str
    label: str
    min_rel: str
    max_rel: str
    scale_hz: int
    min: int
    max: int
    # The window's hardware range when the journal was written (file units), None where it
    # could not be read or the journal predates format 3: then today's range judges the values.
    hw_min: int | None = None
    hw_max: int | None = None

    def files(self) -> LimitFiles:
        return LimitFiles(self.label, self.min_rel, self.max_rel, "", self.scale_hz)

    def recorded_range(self) -> tuple[int, int] | None:
        if self.hw_min is None and self.hw_max is None:
            return None
        return (self.hw_min, self.hw_max)  # type: ignore[return-value]  # checked by check_window


@dataclass(frozen=True, slots=True)
class AttrEntry:
    """One single-valued attribute as it was before thermogov touched it (a fan's speed or mode)."""

    rel: str
    value: int


@dataclass(frozen=True, slots=True)
class JournalData:
    pid: int
    boot_id: str
    sysfs_root: str
    created: float
    entries: tuple[JournalEntry, ...]
    states: tuple[StateEntry, ...] = ()  # idle-injection cooling devices (hw/idle.py)
    attrs: tuple[AttrEntry, ...] = ()  # the fan's (hw/fan.py); restored before the journal is deleted
    # nvpmodel's mode the entries belong to (hw/powermode.py), None where none was recorded.
    power_mode: int | None = None
    # Where the run kept its last caps (hw/lastcaps.py), so a restore given another --lock-dir
    # finds them; "" in a journal written before session 17 or without a record.
    caps_record: str = ""
    # (device, inode) of each owned attribute by path (hw/journalids.py), None in a journal
    # written before session 30: a top-level field, so the format stays 3 (older readers ignore it).
    identities: dict[str, tuple[int, int]] | None = None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_boot_id(tree: SysfsTree) -> str:
    try:
        return tree.read_text(BOOT_ID) if tree.exists(BOOT_ID) else ""
    except SensorError:
        return ""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` or raise: never rename a part of a journal into place.

    A ``write`` that meets a full file system writes what fits and returns that count (POSIX
    ``write``: "only as many bytes as there is room for shall be written"); only the next one
    fails with ENOSPC.  Session 33r: the journal's one ``os.write`` ignored the count, so a
    state dir filling up mid-write (a full ``/run`` tmpfs) had a torn journal renamed over the
    good one, fsynced, and the run went on; ``thermogov restore`` after a crash then refused it
    as corrupt and put nothing back.  Writing the rest makes the kernel say ENOSPC (or write it,
    when the short count was a signal's)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:  # no progress and no errno: never loop on it
            raise OSError(errno.EIO, f"short write ({len(data) - len(view)} of {len(data)} bytes)")
        view = view[n:]


class Journal:
    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / JOURNAL_NAME
        self.written_at: float | None = None  # the last journal this object wrote (None: none yet)
        # A rewrite failed since the last good write: the file at the name lags what is in force
        # (hw/daemon.py keeps running on the values in memory).  Said if the file then stays.
        self.behind = False

    def exists(self) -> bool:
        return self.path.exists()

    def write(self, data: JournalData, in_force: str = "") -> None:
        """Atomically (tmp + rename) and durably (fsync file and directory), with a checksum.

        The first write comes before the daemon's first write to the board, so its failure is
        "nothing was changed".  A later one (a rewrite mid-run) fails with limits in force
        (``in_force``: the daemon's words for them) and the previous journal still at the name:
        its line says that, and what a restore after a crash would then do (session 30l; it said
        "nothing was changed" there too)."""
        body: dict[str, Any] = {"format": FORMAT, **asdict(data)}
        body["sha256"] = checksum(body)
        replaced = False
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = self.path.with_name(JOURNAL_NAME + ".tmp")
            fd = confine.open_private(str(tmp), os.O_WRONLY, 0o600, fresh=True)  # no planted link
            try:
                _write_all(fd, (json.dumps(body, indent=1) + "\n").encode())
                os.fsync(fd)
            except OSError:
                with contextlib.suppress(OSError):  # a full /run keeps no half-written copy either
                    os.unlink(tmp)
                raise
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
            replaced = True
            _fsync_dir(self.state_dir)
        except OSError as e:
            if self.written_at is None:
                if replaced:
                    # Session 33r: only the folder's fsync failed, after the rename.  The run stops
                    # here with nothing changed, so the file is no journal of anything: left, the
                    # next start "restored" it and said a dead run had left limits behind.
                    with contextlib.suppress(OSError):
                        self.path.unlink()
                if full_disk(e):  # session 31r: the input was fine, the disk was not
                    raise RuntimeFailure(
                        f"{self.path}: cannot write the restore journal ({errno_name(e.errno)}: "
                        f"{e.strerror}); free space in --state-dir (nothing was changed)"
                    ) from e
                raise ThermogovError(
                    f"{self.path}: cannot write the restore journal ({e.strerror}); "
                    "fix --state-dir (nothing was changed)"
                ) from e
            self.behind = True
            raise ThermogovError(self._rewrite_failed(e, data.sysfs_root, replaced, in_force)) from e
        self.written_at = data.created
        self.behind = False

    def _rewrite_failed(self, e: OSError, root: str, replaced: bool, in_force: str) -> str:
        """The one line of a failed rewrite mid-run: what is in force, which journal is on disk,
        and what a restore after a crash would do with it."""
        said = f"{self.path}: cannot rewrite the restore journal ({errno_name(e.errno)}: {e.strerror})"
        kept = "this run's limits stay in force" + (f" ({in_force})" if in_force else "")
        kept += " and are put back from memory when it ends, as always"
        if replaced:  # only the folder's fsync failed: the new file is there, maybe not durable
            disk = (
                "the new journal is at the name but its folder could not be synced, so after a power "
                "cut a restore may find the previous one and put back the values it records"
            )
        else:
            when = time.strftime("%H:%M:%S UTC", time.gmtime(self.written_at or 0.0))
            disk = (
                f"the journal on disk is the previous one (written {when}), so a restore after a crash "
                f"(`{restore_command(root, self.state_dir)}` or the next start) would put back the "
                "values it records, not what changed since"
            )
        return f"{said}; {kept}; {disk}; free space in or fix --state-dir"

    def load(self) -> JournalData | None:
        """The journal, or None; a torn, edited or foreign file is a :class:`JournalError`."""
        try:
            # O_NONBLOCK: a FIFO planted at the name would block the open (and every start) forever
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise JournalError(
                f"{self.path}: cannot read the journal ({e.strerror}; a symlink is refused); check --state-dir"
            ) from e
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise JournalError(
                    f"{self.path}: the journal is not a regular file (a directory, FIFO or device "
                    "thermogov never writes); check --state-dir and remove it"
                )
            raw = os.read(fd, MAX_JOURNAL_BYTES + 1)
        except OSError as e:
            raise JournalError(
                f"{self.path}: cannot read the journal ({e.strerror}); check --state-dir"
            ) from e
        finally:
            os.close(fd)
        # A torn or foreign file cannot say which boot wrote it, and the file's age is no proof
        # either (a Pi without a real-time clock boots with a clock that jumps later).
        fix = (
            "write its values back by hand (see `thermogov doctor`), then delete it; "
            "if the board rebooted since it was written, the reboot reset the limits: just delete it"
        )
        try:
            if len(raw) > MAX_JOURNAL_BYTES:  # said before parsing: its cut text would say "unterminated"
                raise ValueError(f"larger than {MAX_JOURNAL_BYTES} bytes, which no journal of thermogov's is")
            body = json.loads(raw.decode("utf-8"))
            if not isinstance(body, dict):
                raise ValueError("not a journal object")
            if body.get("format") not in READABLE_FORMATS:
                raise ValueError(f"format {body.get('format')!r}, this thermogov writes {FORMAT}")
            if body.get("sha256") != checksum(body):
                raise ValueError("checksum mismatch: the file was edited or torn")
            entries = tuple(
                typed(JournalEntry, e, f"entries[{i}]")
                for i, e in enumerate(listed(body["entries"], "entries"))
            )
            if body["format"] == 2 and any(e.recorded_range() is not None for e in entries):
                raise ValueError("a format-2 journal with recorded hardware ranges")
            attrs = tuple(
                typed(AttrEntry, a, f"attrs[{i}]") for i, a in enumerate(listed(body.get("attrs"), "attrs"))
            )
            states = tuple(
                typed(StateEntry, e, f"states[{i}]")
                for i, e in enumerate(listed(body.get("states"), "states"))
            )
            mode = body.get("power_mode")
            if mode is not None and (type(mode) is not int or mode < 0):
                raise ValueError(f"power_mode {mode!r} is not an nvpmodel mode id (an integer >= 0 or null)")
            record = body.get("caps_record", "")
            if type(record) is not str or "\0" in record:
                raise ValueError(f"caps_record {record!r} is not a path")
            for name in ("boot_id", "sysfs_root"):
                if type(body[name]) is not str or "\0" in body[name]:
                    raise ValueError(f"{name} {body[name]!r} is not a string without NUL bytes")
            return JournalData(
                pid_of(body["pid"]),
                body["boot_id"],
                body["sysfs_root"],
                float(body["created"]),
                entries,
                states,
                attrs,
                mode,
                record,
                parse_identities(body.get("identities")),
            )
        except (ValueError, KeyError, TypeError, RecursionError, OverflowError) as e:
            raise JournalError(f"{self.path}: corrupt journal ({e}); {fix}") from e

    def delete(self) -> None:
        try:
            self.path.unlink()
            _fsync_dir(self.state_dir)
        except FileNotFoundError:
            pass

    def delete_restored(self, root: Path | str) -> None:
        """Delete the journal once its values are back; failing that, a runtime failure that
        says the board is restored and only the file is left (a read-only or full state dir)."""
        try:
            self.delete()
        except OSError as e:
            if self.behind:
                # Session 33r: a rewrite failed since its last good write (the same folder going
                # read-only, most often), so the file does not hold what was just put back: an
                # adopted window (another writer's lower limit) would be written over by it.
                when = time.strftime("%H:%M:%S UTC", time.gmtime(self.written_at or 0.0))
                held = (
                    f"it holds the values of its last good write ({when}), not all of those just "
                    f"restored (a rewrite failed since), so do not restore from it: delete it once "
                    f"{self.state_dir} is writable"
                )
            else:
                held = (
                    f"it holds the same values, so the next start or "
                    f"`{restore_command(root, self.state_dir)}` only writes them again; "
                    f"make {self.state_dir} writable"
                )
            raise RuntimeFailure(
                f"limits restored, but the journal {self.path} could not be deleted "
                f"({errno_name(e.errno)}: {e.strerror}); {held}"
            ) from e


def new_journal_data(
    tree: SysfsTree,
    entries: list[JournalEntry],
    states: list[StateEntry] | None = None,
    attrs: list[AttrEntry] | None = None,
    power_mode: int | None = None,
    caps_record: str = "",
) -> JournalData:
    rels = [r for e in entries for r in (e.min_rel, e.max_rel)]
    rels += [s.rel for s in states or ()] + [a.rel for a in attrs or ()]
    return JournalData(
        os.getpid(),
        read_boot_id(tree),
        str(tree.root),
        time.time(),
        tuple(entries),
        tuple(states or ()),
        tuple(attrs or ()),
        power_mode,
        caps_record,
        record_identities(tree, rels),
    )


def validate_states(tree: SysfsTree, states: tuple[StateEntry, ...]) -> None:
    """Refuse the whole journal (before any write) if a state entry is not an owned one."""
    for e in states:
        why = check_idle_state(tree, e.rel, e.value)
        if why:
            raise JournalError(
                f"journal entry {e.device!r} refused: {why}; nothing was written "
                "(check the board with `thermogov doctor`, then delete the journal)"
            )


def validate_attrs(tree: SysfsTree, attrs: tuple[AttrEntry, ...]) -> tuple[list[AttrEntry], list[str]]:
    """Like :func:`validate_entries`, for single attributes (the fan's)."""
    good, missing = [], []
    for a in attrs:
        why, absent = check_fan_attribute(tree, a.rel, a.value)
        if not why:
            good.append(a)
        elif absent:
            missing.append(why)
        else:
            raise JournalError(
                f"journal entry {a.rel!r} refused: {why}; nothing was written "
                "(check the board with `thermogov doctor`, then delete the journal)"
            )
    return good, missing


def write_back(
    tree: SysfsTree, values: Iterable[tuple[str, int]], ids: IdentityCheck | None = None
) -> list[str]:
    """Own and write each (attribute, value) back, already checked by the caller; one that fails
    does not stop the others, so the failures are returned to keep the journal.  ``ids``: the
    journaled identities; a file that is not the one journaled is not written."""
    errors = []
    io = TreeIO(tree)
    for rel, value in values:
        try:
            tree.own(rel)
        except ActuatorError as err:
            errors.append(str(err))
            continue
        ok, why = ids.verdict(rel) if ids is not None else (True, "")
        if not ok:
            errors.extend([why] if why else [])
            continue
        why = write_back_one(io, rel, value)  # a refused write to a value already there is done
        if why:
            errors.append(why)
    return errors


def restore_attrs(tree: SysfsTree, attrs: list[AttrEntry], ids: IdentityCheck | None = None) -> list[str]:
    """Write each journaled fan attribute back (speeds before modes); returns the failures."""
    ordered = sorted(attrs, key=lambda a: is_mode_attribute(a.rel))
    return write_back(tree, ((a.rel, a.value) for a in ordered), ids)


class RecordedRanges:
    """The hardware range each journaled window is recorded with, kept across rewrites.

    The journal is rewritten mid-run when another writer's value replaces an original
    (:mod:`thermogov.hw.limitwatch`); by then an agent may have shrunk a table, so each
    rewrite records the span of every range seen for the window (the first, when the
    original was read, and today's, which holds any value adopted since), never a narrower one.
    Today's range is read for a window whose values changed since its last record only: one
    left as it was keeps the range its values were read in (:mod:`thermogov.hw.hwrange`).
    """

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], tuple[int, int]] = {}
        self._values: dict[tuple[str, str], tuple[int, int]] = {}  # the window of the last stamp

    def known(self, entries: list[JournalEntry]) -> list[JournalEntry]:
        """``entries`` with the ranges recorded so far, without reading the tree (the exit
        restore judges against these, as a journal restore would against the file's)."""
        out = []
        for e in entries:
            seen = self._seen.get((e.min_rel, e.max_rel))
            out.append(replace(e, hw_min=seen[0], hw_max=seen[1]) if seen else e)
        return out

    def stamp(self, tree: SysfsTree, entries: list[JournalEntry]) -> list[JournalEntry]:
        """``entries`` with their recorded ranges (None where no range was ever read).

        Each window's range is read from its own device's files
        (:func:`thermogov.hw.hwrange.limits_range`, the allow-list's range), not from a walk of
        the whole tree: the journal is rewritten whenever a member joins mid-run or another
        writer's value is adopted, and what the rest of the board holds is not the journal's.
        """
        out = []
        for e in entries:
            key = (e.min_rel, e.max_rel)
            last = self._values.get(key)
            self._values[key] = (e.min, e.max)
            span = limits_range(tree, e.min_rel, e.scale_hz, fresh=last not in (None, (e.min, e.max)))
            seen = self._seen.get(key)
            if span is not None:
                lo, hi = seen or span[:2]
                seen = self._seen[key] = (min(lo, span[0]), max(hi, span[1]))
            out.append(replace(e, hw_min=seen[0], hw_max=seen[1]) if seen else e)
        return out


def _unit(scale_hz: int) -> str:
    return "kHz" if scale_hz == 1000 else "Hz"


def validate_entries(
    tree: SysfsTree, entries: tuple[JournalEntry, ...] | list[JournalEntry], *, same_boot: bool = False
) -> tuple[list[JournalEntry], list[str], list[str]]:
    """(entries that may be written, why the others may not, what was clamped), or
    :class:`JournalError`.

    Anything but an owned window with values in its hardware range (the range its entry
    recorded, else today's) refuses the whole journal before a single write; a window whose
    device is not on the board now is only skipped (and reported, so the restore ends
    incomplete), unless it was there when journaled (``same_boot``: the journal is of this
    boot, and the entry recorded the range read from the live device) and its folder was
    removed since, its limits freed with it (:func:`thermogov.hw.freed.freed`: said, not an
    error).  A value in its recorded range but outside today's (the table changed under
    the dead daemon) is moved to today's nearest in-range value, and said.
    """
    windows = owned_windows(tree, discover(tree))
    good: list[JournalEntry] = []
    missing: list[str] = []
    clamped: list[str] = []
    for e in entries:
        why, absent = check_window(
            windows, e.min_rel, e.max_rel, e.scale_hz, e.min, e.max, e.recorded_range()
        )
        if not why:
            e, note = _clamped(windows[(e.min_rel, e.max_rel)], e)
            clamped.extend([note] if note else [])
            good.append(e)
        elif absent:
            # removed since it was journaled in this boot: nothing left to restore
            gone = freed(tree, e.label, e.min_rel) if same_boot and e.recorded_range() else ""
            (clamped if gone else missing).append(gone or f"{e.label}: {why}")
        else:
            raise JournalError(
                f"journal entry {e.label!r} refused: {why}; nothing was written "
                "(check the board with `thermogov doctor`, then delete the journal)"
            )
    return good, missing, clamped


def _clamped(w: OwnedWindow, e: JournalEntry) -> tuple[JournalEntry, str]:
    """``e`` moved into today's hardware range ``w`` when its recorded range held it (the one
    rule of every restore, :func:`validate_entries` and :func:`clamp_to_today`), with the note
    that says so ("" when nothing moved)."""
    recorded = e.recorded_range()
    lo, hi = clamp_to_hardware(w, e.min, e.max)
    if (lo, hi) == (e.min, e.max) or recorded is None:
        return e, ""
    note = (
        f"{e.label} journaled {e.min}..{e.max} {_unit(e.scale_hz)}, written {lo}..{hi}: "
        f"its hardware range is {w.lo_limit}..{w.hi_limit} now, "
        # session 25r: a boost switched off is no other agent (hw/boostrule.py, hw/owned.py)
        f"{recorded[0]}..{recorded[1]} when journaled ({w.capped_by or 'another agent changed its table'})"
    )
    return replace(e, min=lo, max=hi), note


def clamp_to_today(
    tree: SysfsTree, entries: list[JournalEntry]
) -> tuple[dict[tuple[str, str], tuple[int, int]], list[str]]:
    """The windows a daemon's own exit restore writes, by (min_rel, max_rel), and the notes.

    The exit restore follows the journal restore's rule (:func:`validate_entries`): a value
    inside the range its entry recorded but outside today's (another agent shrank the table
    during the run) is written clamped into today's range.  Writing the original over the
    shrunk table instead is refused with EINVAL by a kernel that checks devfreq limits against
    the table, which left a restore error at every clean exit.  Unlike a journal from disk,
    these values are the daemon's own reads, so nothing here refuses: a window the rule does
    not cover (no recorded range, a value outside it, a device not found now) is written as
    captured, as before.
    """
    try:
        windows = owned_windows(tree, discover(tree))
    except ThermogovError:
        return {}, []  # nothing known about today's ranges: the values as captured
    out: dict[tuple[str, str], tuple[int, int]] = {}
    notes: list[str] = []
    for e in entries:
        key = (e.min_rel, e.max_rel)
        why, _absent = check_window(windows, *key, e.scale_hz, e.min, e.max, e.recorded_range())
        if why or e.recorded_range() is None:
            continue
        moved, note = _clamped(windows[key], e)
        if note:
            out[key] = (moved.min, moved.max)
            notes.append(note)
    return out, notes


def mode_changed_since(tree: SysfsTree, data: JournalData) -> tuple[int, int] | None:
    """(the journal's mode, the mode now) when nvpmodel recorded both and they differ, else None
    (no mode journaled, the status file missing or garbled now, or the same mode)."""
    if data.power_mode is None:
        return None
    now = read_power_mode(tree)
    return None if now is None or now == data.power_mode else (data.power_mode, now)


def into_new_mode(
    tree: SysfsTree,
    entries: list[JournalEntry],
    ours: Mapping[str, tuple[int, int]] | None = None,
    mode_sets: Mapping[str, int | str] | None = None,
) -> tuple[list[JournalEntry], dict[str, str], dict[str, str]]:
    """The windows a journal restore writes after an operator's mode change, which were left as
    they read and which got their journaled values back as thermogov's own cap (each by label,
    what is said of it).

    The journaled values are the old mode's: written back they would undo the operator's choice
    (a lower mode's caps lifted to the values of before).  What the files hold now is the new
    mode's (nvpmodel writes its limits when the mode is set) or thermogov's last cap, which is
    never above the journaled value (:meth:`CapActuator.reapply` caps at the original, the min
    too), so a limit reading above its journaled value is the mode's own raise.

    ``ours`` is thermogov's last written window of each max attribute, from the runtime record
    of the run that wrote the journal (:mod:`thermogov.hw.lastcaps`).  A window whose max reads
    exactly that value is thermogov's cap, which the mode did not replace: it gets its
    journaled values (already moved into today's hardware range, :func:`validate_entries`, the
    only bound of the new mode a restore can know; never above the journaled max, so never a
    raise past what the operator last allowed there).  Any other value (or no record) is the
    mode's, or cannot be told from it, and is left as it reads: the max as it is, the min the
    journaled one (the floor of before, which thermogov lowers only under a cap below it), or a
    higher one found (another writer's: thermogov never raises a min), in both cases no higher
    than that max, the rule of the daemon's own exit after a mode change
    (:meth:`LimitWatch._leave_to_mode`, and :meth:`CapActuator.adopt`).  A window that cannot be
    read gets the journaled values, as before.

    ``mode_sets``: the max attributes the new mode's own definition writes, and their values
    (:func:`thermogov.hw.nvpmodelconf.mode_writes`), None when it could not be read.  With it
    the record's blind spot closes: a window the mode sets is the mode's, never lifted even
    when it reads exactly thermogov's cap (the mode wrote that very value); where it reads
    thermogov's recorded cap but not the mode's value (thermogov's cap went in over the mode's
    before the daemon died) the mode's value is written, moved into today's hardware range
    (``-1``, nvpmodel's no-cap, is the range's top).  A window the mode does not set was not
    the mode's to change: it gets its journaled values, as on a restore without a mode change.
    """
    io = TreeIO(tree)
    windows = _today_windows(tree) if mode_sets is not None else {}
    out: list[JournalEntry] = []
    moved: dict[str, str] = {}
    lifted: dict[str, str] = {}
    for e in entries:
        try:
            now_min, now_max = io.read_int(e.min_rel), io.read_int(e.max_rel)
        except ActuatorError:
            out.append(e)
            continue
        mine = (ours or {}).get(e.max_rel)
        if mode_sets is not None:
            if e.max_rel not in mode_sets:
                if (now_min, now_max) != (e.min, e.max):
                    lifted[e.label] = (
                        f"{e.label} {now_max} {_unit(e.scale_hz)} -> {e.max} (a window the mode does not set)"
                    )
                out.append(e)
                continue
            target = _mode_value(mode_sets[e.max_rel], windows.get((e.min_rel, e.max_rel)))
            if mine is not None and mine[1] == now_max and target is not None and target != now_max:
                hi = target
                lo = min(max(e.min, now_min), hi)
                lifted[e.label] = (
                    f"{e.label} {now_max} {_unit(e.scale_hz)} -> {hi} (thermogov's cap over the mode's value)"
                )
                out.append(replace(e, min=lo, max=hi))
                continue
        elif mine is not None and mine[1] == now_max and now_max < e.max:
            lifted[e.label] = f"{e.label} {now_max} {_unit(e.scale_hz)} -> {e.max}"
            out.append(e)
            continue
        hi = now_max
        lo = min(max(e.min, now_min), hi)
        if (lo, hi) != (e.min, e.max):
            moved[e.label] = f"{e.label} {lo}..{hi} {_unit(e.scale_hz)} (journaled {e.min}..{e.max})"
        out.append(replace(e, min=lo, max=hi))
    return out, moved, lifted


def _today_windows(tree: SysfsTree) -> Mapping[tuple[str, str], OwnedWindow]:
    try:
        return owned_windows(tree, discover(tree))
    except ThermogovError:
        return {}


def _mode_value(value: int | str, w: OwnedWindow | None) -> int | None:
    """The max the mode's setting leaves in force (file units), moved into today's hardware
    range ``w``; None where it cannot be said (a string value, no range read)."""
    if type(value) is not int or w is None:
        return None
    top = w.hi_limit if value == NO_CAP else value
    return clamp_to_hardware(w, w.lo_limit, top)[1]


def restore_entries(
    tree: SysfsTree,
    entries: tuple[JournalEntry, ...] | list[JournalEntry],
    ids: IdentityCheck | None = None,
) -> list[str]:
    """Write every journaled limit back, each attribute on its own; returns the failures.
    ``ids``: the journaled identities; a limit whose file is not the one journaled is not
    written (its twin still is, when it is)."""
    errors = []
    io = TreeIO(tree)
    for e in entries:
        taken = set()
        for which, rel in (("min", e.min_rel), ("max", e.max_rel)):
            try:
                tree.own(rel)
                taken.add(which)
            except ActuatorError as err:
                errors.append(str(err))
        if ids is None:
            owned = taken
        else:
            verdicts = ids.window(e.min_rel, e.max_rel) if len(taken) == 2 else None
            owned = set()
            for i, which in enumerate(("min", "max")):
                if which not in taken:
                    continue
                ok, why = verdicts[i] if verdicts else ids.verdict(e.min_rel if i == 0 else e.max_rel)
                if ok:
                    owned.add(which)
                elif why:
                    errors.append(why)
        if owned:
            errors.extend(restore_window(io, e.files(), e.min, e.max, frozenset(owned)))
    return errors


def _describe(entries: tuple[JournalEntry, ...]) -> str:
    return ", ".join(f"{e.label} {e.min}..{e.max}" for e in entries)


def _mode_definition(
    tree: SysfsTree, mode: int, entries: list[JournalEntry]
) -> tuple[Mapping[str, int | str] | None, str]:
    """(the windows the new mode's own definition sets, "") or, when nvpmodel's configuration
    cannot say (:mod:`thermogov.hw.nvpmodelconf`), (None, the one warning naming the file): the
    restore then follows the record's rule alone, never refuses because of the file."""
    try:
        return mode_writes(tree, mode, [e.max_rel for e in entries]), ""
    except ConfError as e:
        return None, (
            f"warning: {tree.show(CONF_REL)}: {e}; which windows mode {mode} writes is unknown, "
            "judged by thermogov's record of its caps alone"
        )


def recover(tree: SysfsTree, journal: Journal, last_caps: Path | None = None) -> str | None:
    """Restore a journal left behind; a message saying what was done, None if there was none.

    The caller holds the board lock, so the journal's writer is gone whatever its pid says
    (unless it is a live thermogov that was given another lock: refused, see ``live_holder``).
    A journal that is corrupt, for another root or names anything but an owned window in
    range is refused before any write (:class:`JournalError`, exit 2); a restore that could
    not write everything keeps the journal and raises :class:`RuntimeFailure` (exit 1).
    ``last_caps``: the runtime record of thermogov's last caps (:mod:`thermogov.hw.lastcaps`)
    under this command's lock dir, read only when the power mode changed since the journal was
    written; the record the journal names (its run's ``--lock-dir``) is looked at first.
    """
    data = journal.load()
    if data is None:
        return None
    if os.path.realpath(data.sysfs_root) != os.path.realpath(tree.root):
        # The root is the file's claim, quoted as such; never advice to pass it: the journal is
        # input, and a forged one named a root holding a newline or an escape (hostile round
        # 29h, left by 28h), which the line then told the operator to run restore with.
        raise RuntimeFailure(
            f"{journal.path}: the journal says it was written for sysfs root {data.sysfs_root!r}, not "
            f"{str(tree.root)!r} (this command's --sysfs-root); nothing was changed; if that run "
            "governed this board, rerun restore with the --sysfs-root that run was given"
        )
    holder = live_holder(data.pid)
    if holder:
        raise RuntimeFailure(
            f"another thermogov governs {tree.root} (pid {data.pid}, journal {journal.path}); "
            "stop it first (systemctl stop thermogov); nothing was changed"
        )
    now_boot = read_boot_id(tree)
    if data.boot_id and now_boot and data.boot_id != now_boot:
        try:
            journal.delete()
        except OSError as e:  # nothing to write back: the file staying is only a note
            return (
                f"ignored the journal of pid {data.pid} from an earlier boot (the reboot reset the limits); "
                f"it could not be deleted ({errno_name(e.errno)}: {e.strerror})"
            )
        return f"discarded the journal of pid {data.pid} from an earlier boot (the reboot reset the limits)"
    same_boot = bool(data.boot_id) and data.boot_id == now_boot
    good, errors, clamped = validate_entries(tree, data.entries, same_boot=same_boot)
    changed = mode_changed_since(tree, data)
    records = record_paths(data.caps_record, last_caps)
    not_a_record = named_record_problem(
        data.caps_record, last_caps, boot_id=now_boot, pid=data.pid, root=tree.root
    )
    # the run's record (caps and fan values), read once and only when one of them is asked for
    run_record = functools.cache(
        lambda: first_whole_record(records, boot_id=now_boot, pid=data.pid, root=tree.root)
    )
    if changed is not None:
        ours: dict[str, tuple[int, int]] = (run_record() or ({}, {}))[0]
        mode_sets, conf_warning = _mode_definition(tree, changed[1], good)
        good, kept, lifted = into_new_mode(tree, good, ours, mode_sets)
        # a window written as it reads was not written clamped: its clamp note would be wrong
        clamped = [c for c in clamped if c.split(" ", 1)[0] not in kept]
        since = (
            f"nvpmodel mode changed from {changed[0]} to {changed[1]} since the journal was written "
            f"({tree.show(STATUS_REL)})"
        )
        said = [conf_warning] if conf_warning else []
        if kept:
            whose = (
                ""
                if ours or mode_sets is not None
                else ", or thermogov's last cap under it: no record of its caps"
            )
            if mode_sets is not None:
                whose = f", which sets them by its own definition, {tree.show(CONF_REL)}"
            said.append(
                f"{', '.join(kept.values())} left as they read, not the values of before (the "
                f"operator's mode{whose}; `nvpmodel -m {changed[1]}` writes the mode's own limits again)"
            )
        if lifted and mode_sets is not None:
            said.append(f"{', '.join(lifted.values())}, by the mode's own definition ({tree.show(CONF_REL)})")
        elif lifted:
            said.append(
                f"{', '.join(lifted.values())}: thermogov's last cap, which the mode did not replace, "
                "lifted to the value of before"
            )
        clamped.append(f"{since}: {'; '.join(said)}" if said else f"{since}: every window reads as journaled")
    validate_states(tree, data.states)
    good_attrs, attr_missing = validate_attrs(tree, data.attrs)
    errors += attr_missing
    fan_ours = (run_record() or ({}, None))[1] if good_attrs else None
    put_back, rival = fan_rival(tree, [(a.rel, a.value) for a in good_attrs], fan_ours)
    if rival:  # the rival rule of the run, or no record of it (hw/fanrival.py)
        good_attrs = [a for a in good_attrs if (a.rel, a.value) in put_back]
        clamped.append(rival)
    ids = IdentityCheck(tree, data.identities)
    errors += restore_entries(tree, good, ids)
    errors += write_back(tree, ((e.rel, e.value) for e in data.states), ids)  # idle injection
    errors += restore_attrs(tree, good_attrs, ids)
    clamped += ids.remade
    if data.identities is None and (good or data.states or good_attrs):
        clamped.append(UNRECORDED)
    if not_a_record:  # said, never silently passed over (hostile round 29h); the rest restored
        clamped.append(f"{journal.path}: caps_record {data.caps_record!r} {not_a_record}; passed over")
    moved = "".join(f"; {c}" for c in clamped)
    if errors:
        raise RuntimeFailure(
            f"restore incomplete, left changed: {'; '.join(errors)}; journal kept at {journal.path} "
            f"(originals: {_describe(data.entries)}){moved}; "
            f"retry with `{restore_command(tree.root, journal.state_dir)}`"
        )
    journal.delete_restored(tree.root)
    for record in records:
        with contextlib.suppress(OSError):  # the record of a run whose journal is gone says nothing
            record.unlink()
    idle = f", {len(data.states)} idle-injection state(s)" if data.states else ""
    fans = f" and {len(good_attrs)} fan setting(s)" if good_attrs else ""
    return f"restored {len(data.entries)} limit window(s){idle}{fans} left by pid {data.pid} (not running){moved}"


def live_holder(pid: int) -> bool:
    """Is ``pid`` a running ``thermogov run`` other than us?

    A recycled pid is some other program (or a ``thermogov sim``), which must not keep a
    journal from being restored.
    """
    if pid == os.getpid() or pid <= 0 or not pid_alive(pid):
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmdline = fh.read()
    except OSError:
        return False
    args = [a.decode(errors="replace") for a in cmdline.split(b"\0")]
    # `thermogov run` (console script or `python -m thermogov.cli run`), not `thermogov sim`
    return any("thermogov" in a for a in args) and "run" in args


class InstanceLock:
    """``flock`` on a lock file; the kernel releases it when the holder dies."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = confine.open_private(str(self.path), os.O_RDWR, 0o644)
        except OSError as e:
            raise ThermogovError(
                f"{self.path}: cannot open the lock file ({e.strerror}; a symlink or hard link planted "
                "there is refused); remove it or fix --lock-file"
            ) from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise RuntimeFailure(
                f"{self.path}: another thermogov (pid {holder}) is running; stop it first "
                "(systemctl stop thermogov)"
            ) from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as e:  # a full disk under a lock that opened: runtime, named (session 31r)
            os.close(fd)
            raise RuntimeFailure(pid_write_failed(self.path, e)) from e
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> InstanceLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
