"""Hostile round, session 26 (docs/sweeps.md, "Session 26h"): new inputs and stops, through the
installed script.

* ``thermogov compare --seed`` took any number of seeds: 10**5 of them (ten comma lists of
  10**4, within the kernel's 128 KiB per argument) loaded and validated a world per seed before
  the first run and then ran them all, a job of days where a sweep of the same size is refused.
  A comparison is now bounded like a sweep: scenarios x seeds x batchers x policies x configs at
  most ``MAX_POINTS`` runs, counted before any scenario is loaded, else one line and exit 2.
* A stop sent to the ``compare``/``sweep`` process alone (``kill -INT PID``, ``timeout -s INT``,
  a supervisor; a terminal's Ctrl-C reaches the whole process group) waited in the pool's
  shutdown for every run in flight to finish: minutes to hours for long runs, and those
  abandoned runs then wrote their ``summary.json``, the mark of a complete run folder, after
  the command had said it was interrupted.  The workers are now ended at once.
* ``thermogov run --metrics-addr nope...`` (an empty or 64-character DNS label, which IDNA
  cannot encode) was "internal error: UnicodeError", exit 1; now one line naming
  ``--metrics-addr``, exit 2, nothing written to the (fake) board.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths, wait_line
from thermogov.sim.sweep.spec import MAX_POINTS


def test_compare_refuses_more_runs_than_a_sweep_may_have(tmp_path: Path) -> None:
    n = MAX_POINTS  # seeds; with two policies, twice as many runs as a sweep may have points
    chunks = [",".join(str(s) for s in range(k, min(k + 10_000, n))) for k in range(0, n, 10_000)]
    seeds = [a for chunk in chunks for a in ("--seed", chunk)]
    out = tmp_path / "out"
    p = thermogov(
        "compare", "--scenario", "rpi5-steady-25", "--policy", "stepped,hysteresis", "--no-oracle",
        "--duration", "5", "--out", str(out), *seeds, timeout=120,
    )  # fmt: skip
    line = one_line_error(p, f"= {2 * n} runs, more than {MAX_POINTS}")
    assert "--seed" in line
    assert not out.exists()


def test_a_stop_to_compare_alone_ends_its_runs_in_flight(tmp_path: Path) -> None:
    """Two workers, a 30-minute and a 1-hour scenario: the stop lands when the short run has
    reported, while the long one still runs.  The command exits 130 at once and every run folder
    marked complete (``summary.json``) is one the command reported; on main the long run went
    on to the end after "interrupted" and wrote its summary."""
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            SCRIPT, "compare", "--scenario", "rpi5-steady-25,rpi5-long-1h", "--policy", "stepped",
            "--no-oracle", "--workers", "2", "--out", str(out),
        ],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
    )  # fmt: skip
    try:
        first = wait_line(proc, " inf/s", stream="stderr")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=DEADLINE_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    text = err.decode()
    assert proc.returncode == 130, text
    assert "Traceback" not in text and text.strip().splitlines()[-1] == "thermogov: interrupted"
    reported = {first.split()[0]}
    complete = {p.parent.parent.name for p in out.glob("*/*/summary.json")}
    assert complete == reported, (complete, reported, text)


@pytest.mark.parametrize("addr", ["nope...", "a" * 64 + ".example"])
def test_a_metrics_address_idna_cannot_encode_is_bad_input(tmp_path: Path, addr: str) -> None:
    tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = tree.snapshot()
    p = thermogov("run", *paths(tmp_path), "--metrics-port", "0", "--metrics-addr", addr, timeout=DEADLINE_S)
    one_line_error(p, f"--metrics-addr {addr!r}: not an address to listen on")
    assert tree.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()
