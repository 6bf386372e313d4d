"""Session 22t: ``thermogov run`` discovers the board once before its first tick.

Session 21's review: the command's start lines each prepared the board themselves (sensor
units, clocks and power, the trip hold: three whole discoveries, plus one more for the input
rail's phrase), then the daemon prepared it again and its throttle monitor discovered the
thermal zones once more: six discoveries of the same tree before the first tick.  The start
lines and the throttle sources now come from the daemon's own ``Prepared`` (hw/startlines.py).
The command runs in process here, so that the discoveries can be counted.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tests.hw import fakesys
from thermogov import cli
from thermogov.hw import discovery
from thermogov.hw.throttle import ThrottleMonitor


def _run(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """(discoveries before the first tick, stderr) of a short dry run."""
    found: list[int] = []
    first_tick: list[int] = []
    zones, annotate = discovery._zones, ThrottleMonitor.annotate

    def counted(*a, **k):  # type: ignore[no-untyped-def]
        found.append(1)
        return zones(*a, **k)

    def noted(self, rec):  # type: ignore[no-untyped-def]
        if not first_tick:
            first_tick.append(len(found))
        return annotate(self, rec)

    monkeypatch.setattr(discovery, "_zones", counted)
    monkeypatch.setattr(ThrottleMonitor, "annotate", noted)
    argv = ["run", "--dry-run", "--duration", "0.3s", "--sysfs-root", str(tmp / "root")]
    argv += ["--out", str(tmp / "out"), "--state-file", str(tmp / "state.json")]
    err = io.StringIO()
    quiet, said = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err)
    with quiet, said, pytest.raises(SystemExit) as done:
        cli.main(argv)
    assert done.value.code == 0, err.getvalue()
    assert first_tick, err.getvalue()
    return first_tick[0], err.getvalue()


def test_run_discovers_the_board_once_and_still_says_its_start_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=60000, gpu_mc=60000)
    t.write("sys/devices/virtual/thermal/thermal_zone0/temp", 0)  # a start line: reads 0 °C exactly
    discoveries, said = _run(tmp_path, monkeypatch)
    assert "reads 0, 0 °C exactly" in said
    assert discoveries == 1
