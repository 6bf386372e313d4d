"""Once a second, the daemon's state for everyone outside it: state file and metrics.

Called after every control tick, it does nothing until a second has passed since the last
publication; then it builds the one state document (:func:`thermogov.statedoc.build_state`),
serialises it once (``json.dumps``), replaces the state file atomically and hands the same
document to the metrics (:mod:`~thermogov.hw.metrics`).  A failure to publish is logged (one
line, repeated at most every 30 s by the daemon's log) and never stops governing: the caps
matter more than their display.

The inference rate is taken over the last :data:`RATE_WINDOW_S` seconds of publications, from
the same cumulative count the trace records.

A name that is not UTF-8 (a ``--out`` folder ``b"runs\\xff"``: Python holds the byte as the lone
surrogate U+DCFF) was written as ``"\\udcff"``: ASCII, but a lone surrogate that strict JSON
readers refuse (RFC 8259 section 8.2 leaves it unpredictable, RFC 7493 forbids it; serde_json
and pydantic 2's jiter refuse the document, serde-rs/json#495, pydantic/jiter#120; Go's
encoding/json puts U+FFFD in its place), and which
``thermogov status`` printed as ``\\xff`` while the file held another thing.  Such a document
is written with each such byte as the text ``\\xff`` (:func:`thermogov.printable.plain_strings`),
as every printed line and ``--json`` show it; the metrics get the same document.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from thermogov.client import MAX_STATE_DEPTH, default_state_path, depth_over
from thermogov.governor import Governor, TickRecord
from thermogov.hw.metrics import Metrics
from thermogov.hw.polled import Every
from thermogov.hw.runtimefiles import check_dir, check_not_own, check_target, read_regular, replace_atomic
from thermogov.hw.sysfs import errno_name
from thermogov.interfaces import ConfigError
from thermogov.printable import plain_strings
from thermogov.statedoc import StateIdentity, build_state

PUBLISH_EVERY_S = 1.0
RATE_WINDOW_S = 10.0
# json.dumps with any option builds a new JSONEncoder per call; one kept encoder writes the
# same text (the same options) without that, once a second for the daemon's whole life.
_encode = json.JSONEncoder(separators=(",", ":")).encode
# How that encoder (ensure_ascii) writes a lone surrogate: a byte of a name that was not UTF-8
# (a --out or --inferences-file path, read by Python as U+DC80..U+DCFF).  A valid character
# beyond the BMP is written as a pair starting \ud8..\udb and also matches: then plain_strings
# changes nothing, one needless pass.  A literal backslash is written "\\": it matches only
# before "ud", the same harmless pass.
_LONE_SURROGATE = "\\ud"


@dataclass(frozen=True, slots=True)
class PublishOptions:
    state_file: Path | None = None  # None: <lock dir>/state.json, skipped (logged) if unusable
    inferences_file: Path | None = None  # None: <lock dir>/inferences
    metrics_port: int | None = None  # 0: any free port (said on the `started` line)
    metrics_addr: str = "127.0.0.1"
    metrics_textfile: Path | None = None


def state_path(
    opts: PublishOptions,
    log: Callable[[str], None],
    own: Mapping[str, Path] | None = None,
    runtime: Path | None = None,
) -> Path | None:
    """Where to publish, checked before anything is governed.

    A path given explicitly must be usable (else exit 2); the default one is best effort (a
    ``--dry-run`` as an ordinary user cannot create ``/run/thermogov``): said once, then skipped.
    The default is ``state.json`` in the runtime folder, ``runtime`` (``--lock-dir``) when given.
    """
    if opts.state_file is not None:
        check_state_target(opts.state_file, own)
        return opts.state_file
    path = default_state_path(runtime)
    try:
        check_state_target(path, own)
    except ConfigError as e:
        log(f"status is not published ({e}); pass --state-file PATH")
        return None
    return path


def check_state_target(path: Path, own: Mapping[str, Path] | None = None) -> None:
    """The state file's folder and the file itself (session 24a), before anything is governed.

    What is at the path is replaced every second and deleted at a clean exit, so it must be
    absent, or a regular file holding a thermogov state document (an earlier daemon's, left by
    a ``kill -9`` or a power cut: replaced, then deleted at exit as before).  Anything else is
    refused: a named pipe, a device, a directory or a symbolic link (it was replaced by a regular
    file and deleted at exit), and a regular file that is not a state document (someone's file:
    overwritten, then deleted at exit).
    """
    check_dir(path, "--state-file", create=True)
    check_not_own(path, "--state-file", own or {})  # ``own``: the journal, the locks (session 25r)
    if check_target(path, "--state-file") and not _is_state(read_regular(path)):
        raise ConfigError(
            f"--state-file {path}: exists and is not a thermogov state file (it would be overwritten"
            " and deleted at exit); remove it or choose another path"
        )


def _is_state(data: bytes | None) -> bool:
    """A document :func:`thermogov.statedoc.build_state` wrote (any schema): an object with both keys."""
    if data is None:
        return False
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):  # "[[[[...": the decoder recursed out (hostile round 25h)
        return False
    # Python 3.13's decoder reads 5 000 levels where 3.10's recursed out: judge the depth itself, so
    # every Python refuses the same files (no state nests more than MAX_STATE_DEPTH).
    return isinstance(doc, dict) and "schema" in doc and "pid" in doc and not depth_over(doc, MAX_STATE_DEPTH)


def open_metrics(opts: PublishOptions) -> Metrics | None:
    if opts.metrics_port is None and opts.metrics_textfile is None:
        return None
    return Metrics(opts.metrics_port, opts.metrics_addr, opts.metrics_textfile)


class StatePublisher:
    def __init__(
        self,
        ident: StateIdentity,
        path: Path | None,
        sensor_names: Sequence[str],
        domain_names: Sequence[str],
        log: Callable[[str], None],
        metrics: Metrics | None = None,
    ) -> None:
        self.ident = ident
        self.path = path
        self._sensors = tuple(sensor_names)
        self._domains = tuple(domain_names)
        self._log = log
        self.metrics = metrics
        self._gate = Every(PUBLISH_EVERY_S)
        self._counts: deque[tuple[float, int]] = deque(maxlen=int(RATE_WINDOW_S / PUBLISH_EVERY_S) + 1)
        self.published = 0
        # Throttling that is not ours, kind -> events (the daemon's ThrottleMonitor), if any.
        self.throttle_counts: Callable[[], Mapping[str, int]] | None = None
        # Sensors waited for, name -> what is looked for (the daemon's LateZones), if any.
        self.waiting: Callable[[], Mapping[str, object]] | None = None
        # The chargers as last read (hw/power.py ``supplies_now``, session 25c): `status` shows them.
        self.supplies: Callable[[], Sequence[Mapping[str, object]]] | None = None
        # Whether the count can still move (the daemon's Workload.counting), if a workload is run.
        self.counting: Callable[[], bool] | None = None

    def on_tick(self, rec: TickRecord, gov: Governor, reloads: int) -> None:
        # Once a period on the grid of the first publication; after a stall, a period from now.
        gate = self._gate
        if rec.t_s >= gate.ready_s and gate.due(rec.t_s):
            self.publish(rec, gov, reloads)

    def _rate(self, t_s: float, total: int | None) -> float | None:
        """The live rate over the last :data:`RATE_WINDOW_S`, or None when it is not measured:
        no count, one publication only, or a workload whose stdout closed while it runs on
        (session 31h).  After such a close the count stands still whatever the board does; the
        summary has called every rate from there not measured since 30i, while the live rate
        fell to 0 inf/s in ``status`` and the state file.  Live and summary now agree."""
        if total is None or (self.counting is not None and not self.counting()):
            self._counts.clear()
            return None
        self._counts.append((t_s, total))
        t0, n0 = self._counts[0]
        return (total - n0) / (t_s - t0) if t_s > t0 else None

    def publish(self, rec: TickRecord, gov: Governor, reloads: int) -> None:
        doc = build_state(
            self.ident,
            time_unix=time.time(),
            uptime_s=rec.t_s,
            tick=rec,
            sensor_names=self._sensors,
            domain_names=self._domains,
            policy=gov.policy.name,
            power=gov.power_status,
            rate_ips=self._rate(rec.t_s, rec.inferences_total),
            reloads=reloads,
            mode=gov.mode or None,
            load_level=gov.load.level_label if gov.load is not None else None,
            throttle=self.throttle_counts() if self.throttle_counts is not None else None,
            waiting=self.waiting() if self.waiting is not None else None,
            supplies=self.supplies() if self.supplies is not None else None,
        )
        text = _encode(doc)
        if _LONE_SURROGATE in text:  # a name that was not UTF-8 (module doc): escaped as printed
            doc = cast(dict[str, Any], plain_strings(doc))
            text = _encode(doc)
        if self.path is not None:
            try:
                replace_atomic(self.path, text.encode())
            except OSError as e:
                self._log(
                    f"state file {self.path}: cannot write ({e.strerror or e}); status is not published"
                )
        if self.metrics is not None:
            try:
                self.metrics.publish(doc)
            except OSError as e:
                # Session 33r: the file named, as the state file's line does (two may fail at once).
                self._log(f"metrics textfile {self.metrics.textfile}: cannot write ({e.strerror or e})")
        self.published += 1

    def close(self) -> None:
        """The daemon stopped cleanly: no state file (``status`` then says no daemon runs).

        The metrics are closed by their owner (the daemon's exit stack), which opened them
        before this publisher existed.
        """
        if self.path is not None:
            try:
                # Only our own file: another daemon given the same path may have replaced it.
                if _owner_pid(self.path) == os.getpid():
                    os.unlink(self.path)
            except FileNotFoundError:
                pass
            except OSError as e:
                # Session 33r: its folder remounted read-only or failing (EROFS, EIO) under the
                # run.  Before, the OSError left the exit stack after the restore: a traceback and
                # exit 1 on a board every limit of which was back.  The file only tells `status`
                # of a daemon that is gone (its pid is dead), so one line, and the exit stands.
                self._log(
                    f"state file {self.path}: cannot remove it at exit ({errno_name(e.errno)}: "
                    f"{e.strerror}); it names this run's pid, which has ended; remove it by hand"
                )


def _owner_pid(path: Path) -> int | None:
    data = read_regular(path)  # a pipe swapped in mid-run would block a plain read at exit
    if data is None:
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):  # a deep file swapped in mid-run: not ours (hostile 25h)
        return None
    pid = doc.get("pid") if isinstance(doc, dict) else None
    return pid if isinstance(pid, int) else None
