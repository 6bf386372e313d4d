"""Inference workloads whose completions the trace counts (``inferences_total``).

* ``builtin``: :mod:`thermogov.hw.infer`, a fixed seeded numpy network in a child process
  that reports its running total of forward passes on stdout (numpy never enters the daemon).
* ``cmd:"python infer.py"``: the user's program; one inference per stdout line, or per line
  matching ``count_regex``.  The command is split with ``shlex`` and run without a shell.
* no workload: throughput is *not measured* (``None``), which is different from zero.

A workload that closes its stdout and runs on (session 30i) is said once; the run governs on,
and its rates over the time after the close are not measured (:meth:`ProcessWorkload.unmeasured`).

Both are plain child processes (``subprocess``, ``close_fds``): no fork of the daemon, so a
child never inherits the instance lock or the daemon's signal handlers.  Each runs in its own
session (so its process group is its own: a Ctrl-C meant for the daemon does not reach it
before the daemon restores, and ``stop`` can signal the whole group), and asks the kernel for
``SIGKILL`` when its parent dies (``PR_SET_PDEATHSIG``, prctl(2)): a ``kill -9`` of the daemon
takes the workload with it, instead of leaving a program that ignores its closed stdout
heating an ungoverned board.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from thermogov.interfaces import ConfigError

BUILTIN = "builtin"
CMD_PREFIX = "cmd:"
WORKLOAD_EXITED = "workload"  # a run's ``stopped_by`` when its workload exited by itself (29i)
# How long a workload whose stdout ended is given to exit before the run says its output ended
# while it runs on (session 30i): most programs' output ends at their exit, a moment before the
# exit status can be read, and that is no event of its own.
STREAM_GRACE_S = 1.0


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _death_signal_hook() -> Callable[[], None] | None:
    """A pre-exec hook arming ``PR_SET_PDEATHSIG`` = SIGKILL; None where prctl does not exist.

    libc is loaded here, in the parent: the hook itself only makes the one system call (and
    checks the parent did not die before it was armed), which is what is safe after fork.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the daemon died before the signal was armed
            os._exit(1)

    return hook


class Workload(Protocol):
    label: str

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def inferences_total(self) -> int: ...


class ProcessWorkload:
    """A child whose stdout tells how many inferences completed.

    ``cumulative``: each line is the running total (the builtin child).  Otherwise each line,
    or each line matching ``count_regex``, is one inference.
    """

    def __init__(
        self, argv: list[str], label: str, *, cumulative: bool = False, count_regex: str | None = None
    ):
        self.argv = argv
        self.label = label
        self._cumulative = cumulative
        self._rx = compile_count_regex(count_regex)
        self._count_regex = count_regex
        self._count = 0
        self._lines = 0  # every line it wrote, counted or not
        self._started = 0.0
        self._ended_after: float | None = None  # it exited by itself this long after the start
        self._exit_status: int | None = None  # its own exit, seen before stop signalled it
        self._proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        # Told once when the child exits on its own (the daemon ends the run there, session 29i);
        # dropped under the lock by stop(), so it is never called after the run has closed.
        self._on_exit: Callable[[], None] | None = None
        self._exit_lock = threading.Lock()
        self._stopping = False
        # Its stdout ended this long after the start while it ran on (``exec >&-``, a closed
        # descriptor): no inference can be counted after it (session 30i).
        self._stream_closed_after: float | None = None
        self._on_stream_end: Callable[[str], None] | None = None

    def on_exit(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback`` (from the reader thread) when the workload exits by itself."""
        with self._exit_lock:
            self._on_exit = callback

    def on_stream_end(self, callback: Callable[[str], None] | None) -> None:
        """Call ``callback`` with one line (from the reader thread, once) when the workload's
        stdout ends while it runs on; dropped by :meth:`stop` as :meth:`on_exit`'s is."""
        with self._exit_lock:
            self._on_stream_end = callback

    def start(self) -> None:
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                text=True,
                errors="replace",
                start_new_session=True,
                preexec_fn=_death_signal_hook(),  # one syscall after fork, no locks taken
            )
        except OSError as e:
            raise ConfigError(
                f"--workload: cannot start {self.argv[0]!r} ({e.strerror}); check the command"
            ) from e
        self._started = time.monotonic()
        self._reader = threading.Thread(target=self._read, name="thermogov-workload", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        proc = self._proc
        if proc is None or proc.stdout is None:
            return
        rx = self._rx
        for line in proc.stdout:
            self._lines += 1
            if self._cumulative:
                text = line.strip()
                if text.isdigit():
                    self._count = int(text)
            elif rx is None or rx.search(line):
                self._count += 1  # single writer; readers see a whole int under the GIL
        # Its output ended: wait for its exit (a child that closed stdout but runs on is waited
        # for; stop() ends it) and, unless stop() is ending it, tell the run it exited by itself.
        # One still running after a grace closed its stdout on purpose or by mistake: the run
        # governs on (its load is still there) and says once that nothing more is counted.
        ended = time.monotonic()
        try:
            status = proc.wait(STREAM_GRACE_S)
        except subprocess.TimeoutExpired:
            with self._exit_lock:
                if self._stopping:
                    return
                self._stream_closed_after = ended - self._started
                if self._on_stream_end is not None:
                    self._on_stream_end(self.stream_closed_line())
            status = proc.wait()
        with self._exit_lock:
            if self._stopping:
                return
            self._ended_after = time.monotonic() - self._started
            self._exit_status = status
            callback = self._on_exit
            if callback is not None:
                callback()

    def stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        with self._exit_lock:
            self._on_exit = None  # the run is closing: no late call into it
            self._on_stream_end = None
            if self._exit_status is None:
                self._exit_status = proc.poll()  # None: still running, so the stop below ends it
                if self._exit_status is not None:
                    self._ended_after = time.monotonic() - self._started
            self._stopping = True
        if self._exit_status is None:
            self._signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(2.0)
            except subprocess.TimeoutExpired:
                self._signal_group(proc, signal.SIGKILL)
                proc.wait(2.0)
        self._signal_group(proc, signal.SIGKILL)  # helpers it spawned into its group
        if self._reader is not None:
            self._reader.join(2.0)
        if proc.stdout is not None:
            proc.stdout.close()
        self._proc = None

    @staticmethod
    def _signal_group(proc: subprocess.Popen[str], sig: signal.Signals) -> None:
        """Signal the workload's process group (its session leader's pid is the group id)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)

    def inferences_total(self) -> int:
        return self._count

    def counting(self) -> bool:
        """False once its stdout closed while it runs on: no later inference can be counted."""
        return self._stream_closed_after is None

    def stream_closed_line(self) -> str:
        """The one line said when its stdout ended while it runs on."""
        closed = self._stream_closed_after or 0.0
        return (
            f"--workload: {self.label} closed its stdout after {round(closed, 3):g} s having counted "
            f"{self._count} inference(s), and runs on: no more can be counted, so the throughput "
            "from there is not measured; governing until it exits or the duration ends"
        )

    def report(self) -> dict[str, Any]:
        """What the run saw of it, for the summary (:func:`no_inference_reason` reads it).

        A workload whose stdout ended while it ran on counted nothing after that instant: the
        summary's throughput over a window that reaches past it (the sustained one) would be
        the count standing still, taken for a board that stopped inferring (a block of ``ab``
        at 0 inf/s, a run's sustained throughput under its real one).  It is not measured
        (``None``), as every rate of the run is: :meth:`unmeasured` (session 30i)."""
        ended = self._ended_after if self._exit_status is not None else None
        closed = self._stream_closed_after
        return {
            "workload_lines": self._lines,
            "workload_exit_status": self._exit_status,
            "workload_ended_after_s": None if ended is None else round(ended, 3),
            "workload_count_regex": self._count_regex,
            "workload_stream_closed_after_s": None if closed is None else round(closed, 3),
        }

    def unmeasured(self, summary_keys: Mapping[str, Any]) -> dict[str, None]:
        """The throughput figures of a run its output ended in while it ran on, as not measured
        (``None``): the sustained one, the mean and the accuracy-weighted one (present only
        with the load governor's summary, ``summary_keys``), each a rate over time in which
        its count stood still (see :meth:`report`)."""
        if self._stream_closed_after is None:
            return {}
        keys = ["sustained_throughput_ips", "mean_throughput_ips"]
        keys += [k for k in ("accuracy_weighted_throughput_ips",) if k in summary_keys]
        return dict.fromkeys(keys)


def no_inference_reason(summary: Mapping[str, Any]) -> str | None:
    """Why a run with a workload measured no throughput, or None when it measured some.

    Session 29h: ``ab --workload cmd:true`` ran every block at 0 inf/s and reported a verdict
    (exit 0), and ``run --workload cmd:true`` governed its whole duration with "0.0 inf/s": a
    workload that exits at once, writes nothing or whose lines never match is no measurement.
    The line says what was seen (its exit, its lines, the regex) and what to give instead."""
    label = summary.get("workload")
    if label is None or summary.get("inferences_total"):
        return None
    lines = int(summary.get("workload_lines") or 0)
    status, after = summary.get("workload_exit_status"), summary.get("workload_ended_after_s")
    rx = summary.get("workload_count_regex")
    wrote = "wrote no line" if lines == 0 else f"wrote {lines} line(s)"
    none = ""
    if lines and rx:
        none = f", none matching --count-regex {rx!r}"
    elif lines and label == BUILTIN:
        none = ", none a count"
    closed = summary.get("workload_stream_closed_after_s")
    if isinstance(closed, (int, float)):
        ran_on = "ran on" if status is None else f"exited later ({_status_text(int(status))})"
        seen = f"closed its stdout after {closed:g} s and {ran_on}; it {wrote}{none}"
    elif status is not None:
        when = f" after {after:g} s" if isinstance(after, (int, float)) else ""
        seen = f"exited{when} ({_status_text(int(status))}) and {wrote}{none}"
    else:
        seen = f"{wrote} in {summary.get('duration_s')} s{none}"
    return (
        f"--workload: {label} {seen}, so no inference was counted; give a program that runs for the "
        "whole run and prints a line per inference (or --count-regex matching that line)"
    )


def _status_text(status: int) -> str:
    """``status 3``, or ``signal SIGKILL`` for a child a signal ended (Popen's negative code)."""
    if status >= 0:
        return f"status {status}"
    try:
        return f"killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"killed by signal {-status}"


def exited_phrase(summary: Mapping[str, Any]) -> str:
    """``cmd:x exited after 2.5 s (status 0)``, from a run's summary."""
    status, after = summary.get("workload_exit_status"), summary.get("workload_ended_after_s")
    when = f" after {after:g} s" if isinstance(after, (int, float)) else ""
    said = _status_text(status) if isinstance(status, int) else "status unknown"
    return f"{summary.get('workload')} exited{when} ({said})"


def workload_exit(summary: Mapping[str, Any]) -> tuple[bool, str] | None:
    """A run its workload ended by exiting (``stopped_by`` == ``workload``): ``(failed, line)``.

    Session 29i: ``run --workload`` governed on after its workload exited and judged at the end,
    so a measurement that was over went on with an idle board.  The run now ends at the exit;
    it failed (exit 1) when the workload failed (a non-zero status, a signal) or counted no
    inference, and is a result (exit 0) when it exited 0 having counted some."""
    if summary.get("stopped_by") != WORKLOAD_EXITED or summary.get("workload") is None:
        return None
    if why := no_inference_reason(summary):
        return True, why
    line = f"--workload: {exited_phrase(summary)}, so the run ended there"
    if summary.get("workload_exit_status") == 0:
        return False, line
    return (
        True,
        f"{line}; the throughput it counted ({summary.get('inferences_total')} inference(s)) is no result",
    )


def builtin_workload() -> ProcessWorkload:
    return ProcessWorkload([sys.executable, "-m", "thermogov.hw.infer"], BUILTIN, cumulative=True)


def check_command(program: str) -> None:
    """Refuse a command no process can be started from, as the parse's bad input (exit 2):
    before a run folder, a lock, a journal or an A/B's first block, not at the workload's start
    (hostile round 28h: ``ab --workload cmd:nosuch`` said "block 1/4" and made its folder first).
    The program is looked up as ``subprocess`` will run it: a name on ``PATH``, a path as given."""
    if "\0" in program or shutil.which(program) is None:
        where = "no such executable file" if os.sep in program else "not found on PATH"
        raise ConfigError(
            f'--workload: cannot start {program!r} ({where}); check the command, e.g. cmd:"python infer.py"'
        )


def compile_count_regex(text: str | None) -> re.Pattern[str] | None:
    """``--count-regex`` compiled; one that matches an empty line (``''``, ``.*``, ``x?``) is
    found in every line by :func:`re.search`, so it counts each line as no regex does: said,
    not taken as "count everything" (session 32h), so a pattern emptied by an unset variable
    does not pass for a filter."""
    if text is None:
        return None
    try:
        rx = re.compile(text)
    except re.error as e:
        raise ConfigError(f"--count-regex: {text!r} is not a valid regex ({e}); fix it") from e
    if rx.search("") is not None:
        raise ConfigError(
            f"--count-regex: {text!r} matches an empty line, so it counts every line as no regex does; "
            "give a pattern a counted line holds (e.g. '^done') or drop it"
        )
    return rx


def parse_workload(spec: str | None, count_regex: str | None = None) -> ProcessWorkload | None:
    """``builtin`` | ``cmd:"python infer.py"`` | ``none``/empty (throughput not measured).

    A keyword is one word, as every option's number and duration is (session 29i's rule):
    ``"builtin "`` and ``" none"`` were read after a strip while ``BUILTIN`` was refused, so a
    padded keyword is said, not guessed (31h).  A command's own text is split by :mod:`shlex`,
    where blanks only separate its words."""
    word = "" if spec is None else spec.strip()
    padded = spec is not None and (
        spec != spec.lstrip() or (spec != word and not word.startswith(CMD_PREFIX))
    )
    if word and padded:
        raise ConfigError(
            f"--workload: {spec!r} holds a space or a control character around it; write "
            f'builtin, none or cmd:"python infer.py" with nothing before it'
        )
    if spec is None or spec.strip() in {"", "none"}:
        if count_regex is not None:
            raise ConfigError(
                '--count-regex: only meaningful with --workload cmd:"..."; drop it or add a command'
            )
        return None
    s = spec.strip()
    if s == BUILTIN:
        if count_regex is not None:
            raise ConfigError("--count-regex: the builtin workload counts itself; drop --count-regex")
        return builtin_workload()
    if s.startswith(CMD_PREFIX):
        try:
            argv = shlex.split(s[len(CMD_PREFIX) :])
        except ValueError as e:
            raise ConfigError(f"--workload: cannot split the command ({e}); check the quoting") from e
        if not argv:
            raise ConfigError('--workload: cmd: needs a command, e.g. cmd:"python infer.py"')
        check_command(argv[0])
        return ProcessWorkload(argv, CMD_PREFIX + shlex.join(argv), count_regex=count_regex)
    raise ConfigError(f'--workload: {spec!r} is not understood; use builtin, cmd:"python infer.py" or none')
