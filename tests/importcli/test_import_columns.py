"""``thermogov import`` never misreads silently: the installed script, in a subprocess.

The files are synthetic, written by these tests in the layouts issue 10 names (``sec,tmp,clk,thr``,
headerless ``epoch,temp,MHz``); the Orin Nano sbc-bench report is real and read from
$THERMOGOV_REAL_DATA only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED_REAL
from tests.realdata import absent
from thermogov.board import load_board
from thermogov.importers.aliases import sensor_map

SCRIPT = Path(sys.executable).with_name("thermogov")


@pytest.fixture(scope="module")
def real() -> Path:
    if not SHARED_REAL.is_dir():
        pytest.skip(absent(SHARED_REAL))
    return SHARED_REAL


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False)


def imported(path: Path, out: Path, *extra: str) -> dict:
    res = run("import", str(path), "--out", str(out), "--json", *extra)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_sec_tmp_clk_thr_imports_by_name(tmp_path: Path) -> None:
    f = tmp_path / "pi.csv"
    f.write_text(
        "sec,tmp,clk,thr\n1,48.3,1500,0x0\n2,49.1,1500,0x0\n3,50.2,1200,0x20002\n4,51.0,1000,0x20006\n"
    )
    info = imported(f, tmp_path / "runs")
    s = info["summary"]
    assert (s["samples"], s["max_fused_c"]) == (4, 51.0)  # not 1500 °C
    trace = (Path(info["run_dir"]) / "trace.csv").read_text().splitlines()
    head = trace[0].split(",")
    assert [r.split(",")[head.index("cpu_freq_hz")] for r in trace[1:]][-1] == "1000000000"
    assert any(n.startswith("throttled flags: 2 of 4") for n in info["notes"])


def test_headerless_epoch_temp_mhz_imports_by_value(tmp_path: Path) -> None:
    f = tmp_path / "log.csv"
    f.write_text("".join(f"{1700000000 + i},{48 + i * 0.5},{1500 - 100 * (i > 2)}\n" for i in range(6)))
    info = imported(f, tmp_path / "runs")
    assert info["summary"]["max_fused_c"] == 50.5 and info["summary"]["duration_s"] == 5.0
    assert any(n.startswith("no header: columns identified by their values") for n in info["notes"])


def test_unidentifiable_columns_exit_2_one_line_nothing_written(tmp_path: Path) -> None:
    f = tmp_path / "x.csv"
    f.write_text("a,b,c\n1,700,3\n2,800,4\n3,900,5\n")
    out = tmp_path / "runs"
    res = run("import", str(f), "--out", str(out))
    assert res.returncode == 2 and res.stdout == ""
    line = res.stderr.strip()
    assert "\n" not in line and "found: 'a', 'b', 'c'" in line and "--columns" in line
    assert "Traceback" not in res.stderr and not out.exists()
    info = imported(f, out, "--columns", "t=a,temp=b:dC".replace("dC", "mC"), "--board", "rpi4")
    assert info["summary"]["samples"] == 3
    res = run("import", str(f), "--out", str(out), "--columns", "heat=a")
    assert res.returncode == 2 and "unknown role" in res.stderr


def test_out_of_range_values_are_flagged_not_stored(tmp_path: Path) -> None:
    f = tmp_path / "x.csv"
    f.write_text("t,temp\n1,45\n2,1e300\n3,46\n4,inf\n5,47\n6,-300\n")
    info = imported(f, tmp_path / "runs")
    assert info["summary"]["max_fused_c"] == 47.0 and info["summary"]["samples"] == 3
    assert any("outside -40..150 °C" in n for n in info["notes"])
    assert any("NaN/inf" in n for n in info["notes"])


@pytest.mark.parametrize(
    "content",
    [b"", b"\x00\x01\x02\x03" * 500, b"t;temp\n", b"temp\n45\n46\n"],
    ids=["empty", "binary", "header-only", "one-column"],
)
def test_adversarial_files_exit_2(content: bytes, tmp_path: Path) -> None:
    f = tmp_path / "bad.log"
    f.write_bytes(content)
    res = run("import", str(f), "--out", str(tmp_path / "runs"))
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


def test_orin_sensor_names_reach_the_profile_through_aliases() -> None:
    board = load_board("jetson-orin-nano")
    assert sensor_map(["soc2"], board) == {"soc2": "cpu"}
    assert sensor_map(["cpu", "soc2", "gpu"], board) == {"cpu": "cpu", "gpu": "gpu"}  # exact beats alias
    assert sensor_map(["CPU-therm"], board) == {"CPU-therm": "cpu"}
    assert sensor_map(["tj", "soc2"], board) == {"tj": "cpu"}  # aliases in the profile's order


def test_real_orin_nano_sbcbench_fuses_and_calibrates(real: Path, tmp_path: Path) -> None:
    info = imported(real / "sbcbench_orin-nano_4vgu.txt", tmp_path / "runs")
    assert info["board_profile"] == "jetson-orin-nano"
    assert info["summary"]["fusion_weights"] == {"soc2": 0.6}
    assert info["summary"]["max_fused_c"] == 51.3
    res = run("calibrate", info["run_dir"], "--out", str(tmp_path / "fit"), "--json")
    assert res.returncode == 0, res.stderr  # refused before: "none of the log's sensors (soc2)"
    assert json.loads(res.stdout)["sensor"] == "soc2"
