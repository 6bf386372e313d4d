"""With every die sensor unreadable, a battery thermistor must not govern the SoC.

Found by the safety campaign (``bench/safety_campaign.py``, session 11): on an AGX Orin tree
with a battery, unreadable CPU and GPU zones left the fused value at the battery's 35 °C and
the clocks at full for the whole run.  Through the installed script, as on a board.
"""

from __future__ import annotations

from pathlib import Path

from tests.hw import fakesys, procutil
from thermogov.hw.journal import Journal
from thermogov.trace import load_trace


def _limits(root: Path) -> dict[str, bytes]:
    names = ("scaling_min_freq", "scaling_max_freq", "min_freq", "max_freq")
    return {str(p): p.read_bytes() for p in root.rglob("*") if p.name in names and not p.is_symlink()}


def _agx_with_battery(root: Path, die_mc: int) -> fakesys.FakeTree:
    tree = fakesys.agx_orin(root, jetpack=5, cpu_mc=die_mc, gpu_mc=die_mc)
    tree.supply(
        "BAT0",
        "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=70",
        temp_decic=350,
    )
    return tree


def test_unreadable_die_zones_with_a_readable_battery_go_failsafe(tmp_path: Path) -> None:
    _agx_with_battery(tmp_path / "root", 60000)
    for temp in (tmp_path / "root").glob("sys/devices/virtual/thermal/thermal_zone*/temp"):
        temp.write_text("N/A\n")
    before = _limits(tmp_path / "root")
    r = procutil.run_cli("run", *procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "2s")
    assert r.returncode == 0, r.stderr
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    trace = load_trace(run_dir)
    assert all(v == 35.0 for v in trace["battery_c"] if v is not None)  # the battery did read
    assert trace["fused_c"][-1] is None
    assert trace["policy_state"][-1] == "FAILSAFE"
    assert any(e and "failsafe" in str(e) for e in trace["event"])
    assert _limits(tmp_path / "root") == before and not Journal(tmp_path / "state").exists()


def test_a_refused_out_is_the_only_line_even_when_a_warning_would_be_printed(tmp_path: Path) -> None:
    """Bad input is one line: the hold check's warning must not come before --out's refusal."""
    _agx_with_battery(tmp_path / "root", 90000)  # fused 84.5 °C: the profile cannot hold 85
    ok = procutil.run_cli(
        "run", "--dry-run", *procutil.paths(tmp_path), "--out", str(tmp_path / "o"), "--duration", "0.5s"
    )
    assert "warning" in ok.stderr  # the tree is hot enough for the hold check to speak
    (tmp_path / "afile").write_text("x")
    r = procutil.run_cli(
        "run", *procutil.paths(tmp_path), "--out", str(tmp_path / "afile" / "o"), "--duration", "1s"
    )
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "--out" in r.stderr, r.stderr
