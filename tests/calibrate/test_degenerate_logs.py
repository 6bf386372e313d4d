"""Degenerate logs through the installed script: exit 2 with one line naming the cause, no
traceback, no profile written.  Each log is a trace CSV written here (columns of
docs/trace-format.md), so the test needs no real data."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.cliutil import run_cli_completed


def _trace(
    path: Path, rows: list[tuple[object, ...]], header: str = "t_s,cpu_c,cpu_freq_hz,cpu_load"
) -> Path:
    path.write_text(
        header + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def _step(n: int = 120) -> list[tuple[object, ...]]:
    return [
        (k, 45.0 + (8.0 if k >= 40 else 0.0), 1.5e9 if k >= 40 else 6e8, 1.0 if k >= 40 else 0.0)
        for k in range(n)
    ]


CASES = {
    "constant temperature": (
        lambda: [(k, 48.0, 1.5e9 if k >= 40 else 6e8, 1.0 if k >= 40 else 0.0) for k in range(120)],
        "stays at 48.0 °C",
    ),
    "too short": (lambda: _step(6), "too few to calibrate"),
    "no load change": (
        lambda: [(k, 45.0 + 0.01 * k, 1.5e9, 1.0) for k in range(120)],
        "nothing drives the model",
    ),
    "temperature in m°C": (lambda: [(k, 1000 * t, f, u) for k, t, f, u in _step()], "outside -40..150 °C"),
    "load column only in the last rows, all at one time": (
        lambda: (
            [(k, 45.0 + 0.01 * k, 1.5e9, "") for k in range(200)]
            + [(200, 50.0 + (k % 3), 1.5e9, 0.1 * (k % 5)) for k in range(30)]
        ),
        "the load cpu column covers only the last 30 of 230 rows",
    ),
    "NaN and inf everywhere": (
        lambda: [(k, "nan", "inf", "nan") for k in range(120)],
        # the trace loader refuses the first non-finite cell before calibration looks (session 16)
        "cpu_c is 'nan', not a finite number",
    ),
}


#: The case run through the installed script (exit status and line as a user sees them); the
#: others call the same ``main`` in-process (tests/cliutil.py), one interpreter start-up each less.
THROUGH_SCRIPT = "NaN and inf everywhere"


@pytest.mark.parametrize("case", sorted(CASES))
def test_degenerate_log_exits_2_with_its_cause(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows, needle = CASES[case]
    log = _trace(tmp_path / "trace.csv", rows())
    args = ["calibrate", str(log), "--board", "rpi4", "--json", "--out", str(tmp_path / "out")]
    p = thermogov(*args) if case == THROUGH_SCRIPT else run_cli_completed(args, capsys)
    one_line_error(p, needle)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_unknown_enclosure_exits_2_before_the_fit(tmp_path: Path) -> None:
    log = _trace(tmp_path / "trace.csv", _step())
    p = thermogov(
        "calibrate", str(log), "--board", "rpi4", "--enclosure", "attic", "--out", str(tmp_path / "o")
    )
    one_line_error(p, "no enclosure 'attic'")


def test_json_reports_skill_persistence_and_enclosure(tmp_path: Path) -> None:
    import json

    log = _trace(
        tmp_path / "trace.csv",
        [
            (
                k,
                45.0 + (8.0 * (1 - 0.97 ** (k - 40)) if k >= 40 else 0.0),
                1.5e9 if k >= 40 else 6e8,
                1.0 if k >= 40 else 0.0,
            )
            for k in range(300)
        ],
    )
    p = thermogov(
        "calibrate", str(log), "--board", "rpi4", "--holdout", "0.5", "--json", "--out", str(tmp_path / "o")
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["skill"] is not None and out["rmse_persistence_c"] > 0
    # skill and both RMSEs are rounded to 3 decimals in the JSON
    assert out["skill"] == pytest.approx(1 - out["rmse_holdout_c"] / out["rmse_persistence_c"], abs=0.05)
    assert out["enclosure"] in ("bare", "case", "metal-case", "fan-heatsink")
