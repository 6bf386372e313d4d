"""A run that fails inside an executor keeps its kind: bad input raised in a worker exits 2 with
its own one line, not "internal error ... report it" (found by the fuzz campaign,
docs/importing.md "Adversarial inputs": ``compare --policy fixed:nan``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov.interfaces import ConfigError, RuntimeFailure
from thermogov.sim.sweep.executors import LocalExecutor


@pytest.mark.parametrize("workers", ["1", "2"], ids=["in-process", "process pool"])
def test_bad_input_found_by_a_compare_worker_is_bad_input(tmp_path: Path, workers: str) -> None:
    p = thermogov(
        "compare", "--scenario", "rpi5-steady-25", "--policy", "fixed:nan", "--seed", "1,2", "--no-oracle",
        "--duration", "5", "--workers", workers, "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert "no frequency (NaN or infinite)" in one_line_error(p, "policy: fixed:nan")
    assert "internal error" not in p.stderr


def _bad_input(_: int) -> None:
    raise ConfigError("x: bad")


def _disk_full(_: int) -> None:
    raise OSError(28, "No space left on device")


def test_map_reraises_bad_input_and_turns_os_errors_into_runtime_failures() -> None:
    with LocalExecutor(1) as ex, pytest.raises(ConfigError, match="x: bad"):
        ex.map(_bad_input, [1])
    with LocalExecutor(1) as ex, pytest.raises(RuntimeFailure, match="run 1 of 1 failed"):
        ex.map(_disk_full, [1])
