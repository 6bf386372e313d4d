"""The run record may fail; the governing may not.

A full disk, a read-only remount or a yanked SD card must not turn into a crash loop that
leaves the board ungoverned (systemd restarting a daemon that dies at its first trace write).
Two guards:

* :func:`preflight` runs before the daemon touches the board: ``--out`` and ``--state-dir``
  must be directories we can create files in, on a filesystem with room for a trace (a probe
  file is created and removed), so ``--out /dev/null``, ``/proc/...`` or a full disk are bad
  input (exit 2) with nothing written to the board;
* :class:`TraceGuard` wraps the run recorder during the run: the first ``OSError`` from the
  trace or sample files drops both (one warning on stderr, a ``trace_dropped`` entry in the
  summary) and the control loop goes on.  The restore journal is a separate file written
  before the first cap write, so it stays authoritative whatever happens to the trace.

The guard also batches.  A daemon wakes ~13 times a second and sleeps in between, so every
wake-up starts with cold CPU caches (other processes ran meanwhile), and each piece of Python
touched on a wake-up costs several times what it costs in a warm loop: measured on the bench's
loaded 2-core machine, a trace row took ~50 µs per tick in the daemon against ~10 µs in a
loop.  Nothing reads the trace while the run goes on, so records are only appended to a list
at their instant (``list.append``, no formatting) and handed to the recorder once a second
(:data:`BATCH_S`) as one block of samples and one of rows, when formatting 10 rows in a row
runs warm; the lines then go to the OS at once (``RunRecorder.flush``), so a killed daemon
still loses at most the last second of trace, as before.  The summary, written at exit, sees every record (:meth:`TraceGuard.finish`
hands over what is pending first).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from thermogov.governor import SampleRecord, TickRecord
from thermogov.hw.polled import Every
from thermogov.interfaces import ConfigError
from thermogov.runs import RunRecorder

# About 15 minutes of trace and samples at the default rates; less free space is a full disk.
MIN_FREE_BYTES = 1 << 20
BATCH_S = 1.0  # records wait at most this long (run time) before the recorder formats them


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_writable_dir(path: Path, option: str, min_free: int = 0) -> None:
    """``path`` is (or can be made) a directory we can create files in; ConfigError otherwise.

    The only side effects are the directory itself and a probe file that is removed again.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} {path}: not a directory; pass a folder")
    base = _nearest_existing(path)
    if not base.is_dir():
        raise ConfigError(f"{option} {path}: {base} is not a directory; pass a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd = os.open(path / f".thermogov-probe-{os.getpid()}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, b"probe\n")
            os.fsync(fd)
        finally:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path / f".thermogov-probe-{os.getpid()}")
    except OSError as e:
        why = errno.errorcode.get(e.errno or 0, "E?")
        raise ConfigError(
            f"{option} {path}: cannot create files there ({why}: {e.strerror}); pass a writable folder"
        ) from None
    if min_free:
        st = os.statvfs(path)
        free = st.f_bavail * st.f_frsize
        if free < min_free:
            raise ConfigError(
                f"{option} {path}: only {free} bytes free, a trace needs at least {min_free}; "
                "free some space or pass another folder"
            )


def preflight(out_dir: Path, state_dir: Path | None) -> None:
    """Everything the run record and the journal need, checked before the board is touched."""
    check_writable_dir(out_dir, "--out", MIN_FREE_BYTES)
    if state_dir is not None:
        check_writable_dir(state_dir, "--state-dir")


class TraceGuard:
    """The recorder's streaming calls, batched once a second, with the first I/O failure dropping
    the files, not the run."""

    def __init__(self, recorder: RunRecorder, log: Callable[[str], None], batch_s: float = BATCH_S) -> None:
        self.recorder = recorder
        self.dropped = ""  # why, once the files were dropped
        self._log = log
        self._ticks: list[TickRecord] = []
        self._samples: list[SampleRecord] = []
        self._gate = Every(batch_s)
        # The governor calls this for every sensor read: the list's own append, no Python frame.
        self.on_sample: Callable[[SampleRecord], None] = self._samples.append

    def _drop(self, e: OSError, t_s: float) -> None:
        why = f"{errno.errorcode.get(e.errno or 0, 'E?')}: {e.strerror or e}"
        self.dropped = f"t={t_s:.3f} s: {why}"
        self.recorder.drop_files()
        self._log(
            f"trace: write to {self.recorder.run_dir} failed ({why}); trace dropped, governing "
            "continues (the restore journal is unaffected)"
        )

    def on_tick(self, rec: TickRecord) -> None:
        """Keep the row; once a second (run time) hand every kept record to the recorder."""
        self._ticks.append(rec)
        gate = self._gate
        if rec.t_s >= gate.ready_s and gate.due(rec.t_s):
            self.drain()

    def drain(self) -> None:
        """Hand the pending samples and rows to the recorder, in order, and flush its files.

        Each kind goes over as one block (``on_samples``, ``on_ticks``: one loop in the
        recorder instead of three or four Python frames per record, the same bytes).
        """
        rec = self.recorder
        samples, ticks = self._samples[:], self._ticks[:]
        self._samples.clear()  # in place (``on_sample`` is this list's append), and before the
        self._ticks.clear()  # hand-over: a record is never handed over twice, even after a raise
        t_s = max(self._hand_over(samples, rec.on_samples), self._hand_over(ticks, rec.on_ticks))
        try:
            rec.flush()
        except OSError as e:
            self._drop(e, t_s)

    def _hand_over(self, records: list[Any], hand: Callable[[list[Any]], None]) -> float:
        """The block to ``hand``; an OSError drops the files and the block goes on to the
        totals (the recorder writes a block before it counts it, so none is counted twice).
        Returns the last record's time (0 for none)."""
        if not records:
            return 0.0
        t_s: float = records[-1].t_s
        try:
            hand(records)
        except OSError as e:
            self._drop(e, t_s)
            hand(records)  # totals only, the files are gone
        return t_s

    def finish(self, extra: dict[str, Any]) -> dict[str, Any]:
        """The run summary; if even that cannot be written, the summary is still returned."""
        self.drain()
        if self.dropped:
            extra = {**extra, "trace_dropped": self.dropped}
        try:
            return self.recorder.finish(extra=extra)
        except OSError as e:
            why = f"{errno.errorcode.get(e.errno or 0, 'E?')}: {e.strerror or e}"
            if not self.dropped:
                self._log(f"trace: cannot write the summary in {self.recorder.run_dir} ({why})")
            return {"run_id": self.recorder.run_id, "run_dir": str(self.recorder.run_dir), **extra}
