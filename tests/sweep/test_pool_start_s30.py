"""Session 30i: ``sweep``'s and ``compare``'s process pools never ``fork()`` the calling process.

The CLI may hold threads when it makes a pool (a Dask client, pytest's own): a plain fork copies
one thread, and Python 3.12+ warns of the deadlock it can cause (a DeprecationWarning in CI's
3.13 leg).  The pools start workers from a fork server (``pool_context``); the results stay
those of one process, which ``test_run.py`` checks for ``--workers 1`` against ``2``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cliutil import run_cli
from tests.sweep.conftest import read_table


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every ``os.fork()`` this process makes while the test runs, with a second thread alive
    (the case Python 3.12+ warns of)."""
    calls: list[int] = []
    real = os.fork

    def counted() -> int:
        calls.append(1)
        return real()

    monkeypatch.setattr(os, "fork", counted)
    done = threading.Event()
    other = threading.Thread(target=done.wait, name="another-thread", daemon=True)
    other.start()
    try:
        yield calls
    finally:
        done.set()
        other.join()


@pytest.mark.filterwarnings("error::DeprecationWarning")
def test_a_sweep_with_two_workers_forks_nothing_and_matches_one_worker(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], forks: list[int]
) -> None:
    out2 = tmp_path / "w2"
    code, _, err = run_cli(["sweep", str(tiny_sweep), "--workers", "2", "--out", str(out2)], capsys)
    assert code == 0, err
    assert forks == [], "the pool fork()ed this multi-threaded process"
    out1 = tmp_path / "w1"
    code, _, err = run_cli(["sweep", str(tiny_sweep), "--workers", "1", "--out", str(out1)], capsys)
    assert code == 0, err
    assert (out2 / "results.csv").read_bytes() == (out1 / "results.csv").read_bytes()
    assert len(read_table(out2 / "results.csv")) == 8


@pytest.mark.filterwarnings("error::DeprecationWarning")
def test_compare_with_two_workers_forks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], forks: list[int]
) -> None:
    args = ["compare", "--scenario", "orin-steady-25", "--policy", "stepped", "--policy", "hysteresis"]
    args += ["--duration", "60", "--no-oracle", "--workers", "2", "--out", str(tmp_path / "out")]
    code, _, err = run_cli(args, capsys)
    assert code == 0, err
    assert forks == [], "the pool fork()ed this multi-threaded process"
    assert len(read_table(tmp_path / "out" / "compare.csv")) == 2


def test_the_pool_start_method_is_never_fork() -> None:
    from thermogov.sim.sweep.executors import pool_context

    assert pool_context().get_start_method() in {"forkserver", "spawn"}
