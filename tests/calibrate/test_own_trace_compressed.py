"""thermogov's own ``trace.csv``, gzip'd, through the installed ``calibrate`` and ``import``.

Before, a trace copied off a board as ``trace.csv.gz`` went to the log importers, which do not
map its ``t_s``/``<name>_c`` columns ("no usable table rows found"), while the same trace
uncompressed was fitted; and ``import`` of a trace failed the same way, naming no fix.
docs/importing.md, "Session 17b".
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from tests.calibrate.test_damaged_run_folder import imported  # noqa: F401  (the fixture)
from tests.cli.script import one_line_error, thermogov


@pytest.fixture
def trace(imported: Path) -> Path:  # noqa: F811  (the imported fixture)
    """A thermogov trace (an imported run's), plain."""
    return imported / "trace.csv"


def _fit(log: Path, out: Path) -> dict[str, object]:
    p = thermogov("calibrate", str(log), "--board", "rpi5", "--out", str(out), "--json")
    assert p.returncode == 0, p.stderr
    fit = json.loads(p.stdout)
    fit.pop("profile")
    fit.pop("source", None)
    return fit


def test_a_gzipped_trace_is_fitted_as_the_plain_one(trace: Path, tmp_path: Path) -> None:
    plain = tmp_path / "trace.csv"
    shutil.copyfile(trace, plain)
    packed = tmp_path / "trace.csv.gz"
    packed.write_bytes(gzip.compress(trace.read_bytes()))
    assert _fit(packed, tmp_path / "gz") == _fit(plain, tmp_path / "plain")


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_importing_a_trace_is_refused_naming_calibrate(trace: Path, tmp_path: Path, packed: bool) -> None:
    log = tmp_path / ("trace.csv.gz" if packed else "trace.csv")
    log.write_bytes(gzip.compress(trace.read_bytes()) if packed else trace.read_bytes())
    line = one_line_error(thermogov("import", str(log), "--out", str(tmp_path / "out")), "needs no import")
    assert "thermogov trace" in line and "`thermogov calibrate`" in line
    assert not (tmp_path / "out").exists()
