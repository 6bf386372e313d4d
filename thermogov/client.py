"""The inference application's view of the governor: its published state, and throughput back.

    from thermogov import client
    s = client.current()             # cheap enough to call every frame
    if s.mode == "early_exit" or s.fused_c and s.fused_c > 80: ...
    client.report_inferences(batch)  # so the daemon's trace records real throughput

:func:`current` reads the state file the daemon replaces atomically once a second
(:mod:`thermogov.statedoc`).  Because the daemon renames a complete file over the old one, one
open sees one whole version, never a mix, so a read during a replace cannot fail.  It re-parses
only when the file changed (another inode or mtime), so polling it every frame costs one
``open`` and one ``fstat``.  No state file raises :class:`NoState` (no daemon has published
here, or it stopped cleanly and removed it); :attr:`State.stale` says when the daemon that wrote
it is gone or has not written for :data:`STALE_AFTER_S`.

A state written before session 21 holds a name that was not UTF-8 as a lone surrogate
(``"\\udcff"``, hw/publish.py); it is read as the daemon writes it now, the byte as the text
``\\xff``, so :class:`State` never carries a string that cannot be encoded or printed.

This module imports only the standard library and the core's small modules: an application
pays nothing for it.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thermogov import counterfile
from thermogov.interfaces import RuntimeFailure, ThermogovError
from thermogov.printable import plain_strings
from thermogov.statedoc import INFERENCES_FILE_NAME, SCHEMA, STATE_FILE_NAME

DEFAULT_RUNTIME_DIR = Path("/run/thermogov")
RUNTIME_DIR_ENV = "THERMOGOV_LOCK_DIR"  # the daemon's runtime directory (its board locks too)
STALE_AFTER_S = 5.0  # five missed publications: the daemon is hung or gone
MAX_STATE_BYTES = 1 << 20


class NoState(RuntimeFailure):
    """No daemon state file exists at the path (no daemon, or it stopped cleanly)."""


class StateFormatError(ThermogovError):
    """The file exists but is not a thermogov state document of a schema this client reads."""


def runtime_dir(explicit: Path | str | None = None) -> Path:
    """The runtime folder: ``explicit`` (a command's ``--lock-dir``) if given, else
    ``$THERMOGOV_LOCK_DIR`` if set (tests, emulation), else ``/run/thermogov``.

    One folder holds every per-boot file of a daemon: its board lock, its caps record, the
    published ``state.json`` and the ``inferences`` counter.  Session 30i: ``--lock-dir`` moved
    only the lock and the record, while the state and the counter stayed under the variable's
    folder, so ``run --lock-dir X`` published where ``status --lock-dir X`` did not look."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(RUNTIME_DIR_ENV, "")
    # Judged as the options' paths are (thermogov.cliopts.GivenPath): a control character there
    # (a newline, an escape) was looked up, and named in the error, as a folder (hostile round 29h).
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in env):
        from thermogov.interfaces import ConfigError

        raise ConfigError(
            f"{RUNTIME_DIR_ENV}: {env!r} holds a control character; set it to the daemon's runtime folder or unset it"
        )
    return Path(env) if env else DEFAULT_RUNTIME_DIR


_KERNEL_FS = ("/proc", "/sys", "/dev")


def file_kind(mode: int) -> str:
    """What a file that is not the kind asked for is, named for a one-line error: shared by the
    runtime folder's check here and the daemon's write targets (hw/runtimefiles.py)."""
    for test, name in (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISREG, "a regular file"),
    ):
        if test(mode):
            return name
    return "a file of an unknown kind"


def runtime_dir_problem(path: Path) -> str | None:
    """Why ``path`` cannot be the runtime folder (board locks, ``state.json``, ``inferences``), or
    None when it is a folder or can be made one.  Only looked at, nothing made (session 29i:
    ``THERMOGOV_LOCK_DIR=/dev/null``, ``/proc/self`` or a FIFO was taken by ``run --dry-run``,
    which then warned of each file it could not make there)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        for up in path.absolute().parents:  # the nearest existing ancestor must be a folder
            try:
                up_st = os.stat(up)
            except FileNotFoundError:
                continue
            except OSError as e:
                return f"cannot be made ({up}: {e.strerror})"
            if not stat.S_ISDIR(up_st.st_mode):
                return f"cannot be made ({up} is {file_kind(up_st.st_mode)}, not a folder)"
            real = os.path.realpath(up)
            break
        else:
            return None
    except OSError as e:  # ENOTDIR: a path through a file; ELOOP; EACCES
        return f"cannot be looked at ({e.strerror})"
    else:
        if not stat.S_ISDIR(st.st_mode):
            return f"is {file_kind(st.st_mode)}, not a folder"
        real = os.path.realpath(path)
    for top in _KERNEL_FS:
        if real == top or real.startswith(top + "/"):
            return f"resolves under {top} ({real}), a kernel file system where no runtime file can be made"
    return None


def default_state_path(runtime: Path | str | None = None) -> Path:
    """``state.json`` in the runtime folder (:func:`runtime_dir` of ``runtime``)."""
    return runtime_dir(runtime) / STATE_FILE_NAME


def default_inferences_path(runtime: Path | str | None = None) -> Path:
    """The ``inferences`` counter in the runtime folder (:func:`runtime_dir` of ``runtime``)."""
    return runtime_dir(runtime) / INFERENCES_FILE_NAME


# The largest pid Linux hands out (PID_MAX_LIMIT, 4 * 1024 * 1024 on 64-bit: include/linux/threads.h).
PID_MAX_LIMIT = 4 * 1024 * 1024


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs.  Only 1..PID_MAX_LIMIT can: ``kill(0, 0)`` and ``kill(-1, 0)``
    signal a group ("alive" whatever wrote the file), one past a C int raised OverflowError."""
    if isinstance(pid, bool) or not 1 <= pid <= PID_MAX_LIMIT:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's (root's daemon seen by an app)
        return True
    return True


@dataclass(frozen=True, slots=True)
class State:
    """One published state, typed; ``raw`` is the whole document (fields added later too)."""

    pid: int
    time_unix: float
    uptime_s: float
    board: str
    policy: str
    policy_state: str
    fused_c: float | None
    sensors_c: Mapping[str, float | None]
    caps_hz: Mapping[str, int]
    freqs_hz: Mapping[str, int | None]
    mode: str | None
    load_level: str | None
    power_state: str | None
    power_w: float | None
    inferences_total: int | None
    rate_ips: float | None
    throttle: Mapping[str, int]
    reloads: int
    raw: Mapping[str, Any] = field(repr=False)

    def age_s(self, now_unix: float | None = None) -> float:
        return (time.time() if now_unix is None else now_unix) - self.time_unix

    def stale_reason(self, now_unix: float | None = None) -> str | None:
        """Why this state no longer describes a governing daemon, or ``None`` when it does."""
        if not pid_alive(self.pid):
            return f"daemon pid {self.pid} is not running"
        age = self.age_s(now_unix)
        if age > STALE_AFTER_S:
            return f"state is {age:.0f} s old (daemon pid {self.pid} not publishing)"
        return None

    @property
    def stale(self) -> bool:
        return self.stale_reason() is not None


def parse_state(doc: Any, where: str) -> State:
    """A :class:`State` from a decoded document; :class:`StateFormatError` naming the file."""
    if not isinstance(doc, dict) or not isinstance(doc.get("schema"), int):
        # no schema number at all: some other JSON, not an older or newer daemon's state
        raise StateFormatError(f"{where}: not a thermogov state (no schema number); is it the daemon's file?")
    if doc.get("schema") != SCHEMA:
        got = doc.get("schema")
        raise StateFormatError(
            f"{where}: not a thermogov state of schema {SCHEMA} (got {got!r}); "
            "upgrade thermogov to the daemon's version"
        )
    pid = doc.get("pid")
    if isinstance(pid, bool) or not isinstance(pid, int) or not 1 <= pid <= PID_MAX_LIMIT:
        # session 25r: a pid no process can have (a damaged or hand-made file) is no daemon's
        shown = repr(pid) if len(repr(pid)) <= 40 else repr(pid)[:40] + "..."
        raise StateFormatError(
            f"{where}: pid {shown} is no process id (an integer 1..{PID_MAX_LIMIT}); is it the daemon's file?"
        )
    try:
        temps, domains = doc["temperature_c"], doc["domains"]
        power, thr = doc["power"], doc["throughput"]
        # Every number a reader formats or computes with is checked here, naming its field: the
        # file is input (written by root, read by users), and a string or list where a
        # temperature goes ended ``status`` in "internal error" (hostile round 25h).
        return State(
            pid=pid,  # checked above (session 25r)
            time_unix=_real(doc["time_unix"], "time_unix", where),
            uptime_s=_real(doc["uptime_s"], "uptime_s", where),
            board=str(doc["board"]),
            policy=str(doc["policy"]["name"]),
            policy_state=str(doc["policy"]["state"]),
            fused_c=_maybe_real(temps["fused"], "temperature_c.fused", where),
            sensors_c={
                n: _maybe_real(v, f"temperature_c.sensors.{n}", where) for n, v in temps["sensors"].items()
            },
            caps_hz={n: _whole(d["cap_hz"], f"domains.{n}.cap_hz", where) for n, d in domains.items()},
            freqs_hz={
                n: None
                if d["frequency_hz"] is None
                else _whole(d["frequency_hz"], f"domains.{n}.frequency_hz", where)
                for n, d in domains.items()
            },
            mode=doc.get("mode"),
            load_level=doc.get("load_level"),
            power_state=power["state"],
            power_w=_maybe_real(power["power_w"], "power.power_w", where),
            inferences_total=None
            if thr["inferences_total"] is None
            else _whole(thr["inferences_total"], "throughput.inferences_total", where),
            rate_ips=_maybe_real(thr["rate_ips"], "throughput.rate_ips", where),
            throttle=dict(doc.get("throttle") or {}),
            reloads=_whole(doc.get("reloads", 0), "reloads", where),
            raw=doc,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise StateFormatError(f"{where}: malformed thermogov state ({e!r}); is it the daemon's file?") from e


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _real(v: Any, name: str, where: str) -> float:
    """A finite JSON number (not a boolean), else :class:`StateFormatError` naming ``name``."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise StateFormatError(
            f"{where}: {name} is {_short(v)}, not a finite number; is it the daemon's file?"
        )
    return float(v)


def _maybe_real(v: Any, name: str, where: str) -> float | None:
    """A reading: a finite number, ``null`` (unknown) or a non-finite number (unknown, as the
    daemon publishes it); anything else names ``name``."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return None if v is None else _real(v, name, where)


def _whole(v: Any, name: str, where: str, low: int = 0, high: int | None = None) -> int:
    """A whole JSON number in ``low..high`` (a count, a frequency, a pid)."""
    ok = isinstance(v, int) and not isinstance(v, bool) and v >= low and (high is None or v <= high)
    if not ok:
        span = f"{low}..{high}" if high is not None else f"{low} or more"
        raise StateFormatError(
            f"{where}: {name} is {_short(v)}, not a whole number {span}; is it the daemon's file?"
        )
    return int(v)


# The state nests five levels (temperature_c.waiting.NAME.looked_for); a document much deeper is
# no state, and readers that recurse per level (plain_strings, json.dumps) must not meet it.
MAX_STATE_DEPTH = 32


def depth_over(doc: Any, limit: int) -> bool:
    """Whether ``doc`` nests containers more than ``limit`` deep (iterative: no recursion)."""
    todo: list[tuple[Any, int]] = [(doc, 0)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, (dict, list)):
            if depth >= limit:
                return True
            todo.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return False


_cache: dict[str, tuple[tuple[int, int, int, int], State]] = {}

# Errors of opening the state that the path given explains whatever the daemon does: a symbolic
# link loop, a component that is a file, a name too long.  Bad input (exit 2), unlike a missing
# file or a denied read, which a running daemon or another user would change.
PATH_MISTAKES = frozenset({errno.ELOOP, errno.ENOTDIR, errno.ENAMETOOLONG})


def current(path: Path | str | None = None) -> State:
    """The latest published state (see the module docstring for cost and errors)."""
    p = str(path) if path is not None else str(default_state_path())
    try:
        # O_NONBLOCK: a FIFO at this path would otherwise block the open until some writer came
        fd = os.open(p, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        raise NoState(f"{p}: no thermogov state (is `thermogov run` running?)") from None
    except OSError as e:
        if e.errno in PATH_MISTAKES:  # the path itself is wrong, not the daemon or the board
            raise StateFormatError(
                f"{p}: {e.strerror}; give the daemon's state file (--state), not a link loop or a path through a file"
            ) from None
        raise NoState(f"{p}: cannot read the thermogov state ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # the daemon renames a regular file into place
            raise StateFormatError(f"{p}: not a regular file; give the daemon's state file (--state)")
        key = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
        hit = _cache.get(p)
        if hit is not None and hit[0] == key:
            return hit[1]
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(MAX_STATE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_STATE_BYTES:
        raise StateFormatError(f"{p}: larger than {MAX_STATE_BYTES} bytes; not a thermogov state")
    try:
        doc = json.loads(data)
        if depth_over(doc, MAX_STATE_DEPTH):
            # a document the decoder took but whose readers recurse per level (``status --json``
            # ended in "internal error: RecursionError" at 500 levels): no state nests so deep
            raise StateFormatError(
                f"{p}: nested more than {MAX_STATE_DEPTH} levels; not a thermogov state (is it the daemon's file?)"
            )
        if b"\\u" in data:  # an older daemon's lone surrogates (hw/publish.py): as it writes them now
            doc = plain_strings(doc)
    except ValueError as e:
        # int()'s limit's own text tells a user to call sys.set_int_max_str_digits(): say what it is
        why = "a number of more than 4300 digits" if "integer string conversion" in str(e) else str(e)
        raise StateFormatError(f"{p}: not JSON ({why}); is it the daemon's file?") from e
    except RecursionError:  # "[[[[...": the decoder recurses per level; no state nests so deep
        raise StateFormatError(f"{p}: not JSON (nested too deeply); is it the daemon's file?") from None
    state = parse_state(doc, p)
    _cache[p] = (key, state)
    return state


def report_inferences(n: int, path: Path | str | None = None) -> int:
    """Add ``n`` completed inferences to the daemon's counter file; returns the new total.

    Call it per batch or a few times a second, not per frame in a hot loop: each call locks and
    rewrites a small file (tens of microseconds).  ``OSError`` if the file cannot be written
    (no daemon created it and this user may not create it there).
    """
    p = str(path) if path is not None else str(default_inferences_path())
    return counterfile.add(p, n)
