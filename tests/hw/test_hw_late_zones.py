"""Thermal zones that appear after start, go away and come back (hw/latezones.py, session 22c).

Before this a profile zone absent at start was dropped for the run (its GPU never fused in), and
one that went away left the fused value in one step.  The daemon runs here on a virtual clock
(``time.monotonic`` and the wait replaced, as ``bench/daemon_reads.py`` does), so a zone appears
at exactly t=5 s without a sleep; the fused values are read from the run's own trace.  One case
goes through the installed script for the exit status.
"""

from __future__ import annotations

import csv
import errno
import io
import itertools
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys, procutil, virtualclock
from thermogov.config import Config, parse_config
from thermogov.fusion import SensorSpec
from thermogov.hw import daemon, sysfs
from thermogov.hw.latezones import MIN_RAMP_S, EasedFusion
from thermogov.interfaces import Reading

CPU_C, GPU_C = 60.0, 80.0
WITHOUT = CPU_C  # the fusion of the zones there at start (cpu alone)
WITH = (0.6 * CPU_C + 0.3 * GPU_C) / 0.9  # cpu and gpu at the profile's weights
FULL_STEP = WITH - WITHOUT  # what a join at once would move the fused value by (6.7 K)


class GpuZone:
    """The Orin Nano's ``gpu-thermal`` zone, taken out and put back as a module unload/load does."""

    def __init__(self, t: fakesys.FakeTree, work: Path) -> None:
        cls = t.root / "sys/class/thermal"
        self.link = next(p for p in cls.iterdir() if (p / "type").read_text().strip() == "gpu-thermal")
        self.target = os.readlink(self.link)
        self.real = self.link.resolve()
        self.away = work / "unloaded"

    @property
    def temp(self) -> Path:
        return self.real / "temp"

    def leave(self) -> None:
        self.link.unlink()
        self.real.rename(self.away)

    def back(self) -> None:
        self.away.rename(self.real)
        self.link.symlink_to(self.target)


def _orin(work: Path) -> tuple[fakesys.FakeTree, GpuZone]:
    t = fakesys.orin_nano(work / "root", jetpack=6, cpu_mc=round(CPU_C * 1000), gpu_mc=round(GPU_C * 1000))
    return t, GpuZone(t, work)


def _run(
    work: Path,
    monkeypatch: pytest.MonkeyPatch,
    seconds: float,
    script: Callable[[float], None],
    config: Config | None = None,
    **more: Any,
) -> tuple[list[dict[str, str]], str]:
    """A dry run of ``seconds`` on a virtual clock; ``script(t)`` changes the tree at each wait.
    ``more``: other run options (a ``publish``: tests/hw/test_hw_waiting_sensors.py)."""
    virtualclock.install(monkeypatch, script)
    err = io.StringIO()
    where = {"state_dir": "state", "lock_file": "l.lock", "lock_dir": "locks", "out": "out"}
    paths = {k: work / v for k, v in where.items()}
    cfg = config if config is not None else parse_config({})
    opts = daemon.RunOptions(cfg, work / "root", duration_s=seconds, dry_run=True, **paths, **more)
    daemon.Runner(opts, out=io.StringIO(), err=err).run()
    run_dir = next(p for p in (work / "out").iterdir() if p.is_dir())
    with (run_dir / "trace.csv").open() as fh:
        return list(csv.DictReader(fh)), err.getvalue()


def _summary(work: Path) -> dict[str, Any]:
    run_dir = next(p for p in (work / "out").iterdir() if p.is_dir())
    return json.loads((run_dir / "summary.json").read_text())


def _fused(rows: list[dict[str, str]], lo: float, hi: float) -> list[float]:
    return [float(r["fused_c"]) for r in rows if lo <= float(r["t_s"]) < hi]


def _when(rows: list[dict[str, str]], tag: str) -> list[float]:
    return [float(r["t_s"]) for r in rows if tag in r["event"].split()]


def _away_at_start_then_there_gone_there(work: Path) -> Callable[[float], None]:
    """The GPU zone absent at start, there from 5 s, gone from 25 s, there again from 45 s."""
    _t, gpu = _orin(work)
    gpu.leave()

    def script(el: float) -> None:
        if 5.0 <= el < 25.0 and not gpu.link.is_symlink():
            gpu.back()
        elif 25.0 <= el < 45.0 and gpu.link.is_symlink():
            gpu.leave()
        elif el >= 45.0 and not gpu.link.is_symlink():
            gpu.back()

    return script


def test_a_zone_that_appears_leaves_and_comes_back_eases_in_and_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: the GPU zone absent at start is dropped for the run: no gpu column, fused 60 to the end.
    script = _away_at_start_then_there_gone_there(tmp_path)
    rows, err = _run(tmp_path, monkeypatch, 70.0, script)
    assert "gpu_c" in rows[0], "the waiting zone has its column from the start"
    assert all(r["gpu_c"] == "" for r in rows if float(r["t_s"]) < 5.0)
    assert set(_fused(rows, 0.0, 5.0)) == {WITHOUT}
    joined = _when(rows, "sensor_joined:gpu")
    left = _when(rows, "sensor_left:gpu")
    assert len(joined) == 2 and 5.0 <= joined[0] <= 6.0 and 45.0 <= joined[1] <= 46.0, joined
    assert len(left) == 1 and 25.0 <= left[0] <= 26.5, left
    fused = [float(r["fused_c"]) for r in rows]
    steps = [abs(b - a) for a, b in itertools.pairwise(fused)]
    assert max(steps) < FULL_STEP / 5, "eased, never a step"
    # Joining a hotter zone: between the fusion without it and with it at every tick.
    ramp = _fused(rows, joined[0], joined[0] + MIN_RAMP_S)
    assert all(WITHOUT - 1e-9 <= v <= WITH + 1e-9 for v in ramp)
    assert ramp == sorted(ramp), "a hotter newcomer only raises it"
    held = _fused(rows, joined[0] + MIN_RAMP_S + 0.5, 25.0)
    assert held == pytest.approx([WITH] * len(held), abs=1e-3)  # the trace keeps 3 decimals
    # Gone: eased out, never held past its ramp, no stale value forever.
    assert set(_fused(rows, left[0] + MIN_RAMP_S + 1.0, joined[1])) == {WITHOUT}
    again = _fused(rows, 60.0, 71.0)
    assert again == pytest.approx([WITH] * len(again), abs=1e-3)
    assert "went away" in err and err.count("appeared") == 2 and "Traceback" not in err


@pytest.mark.parametrize(
    ("garbage", "why"),
    [("nan\n", "not a number"), ("-256000\n", "-256 °C"), ("EIO", "EIO")],
)
def test_a_zone_that_appears_reading_garbage_is_not_joined_until_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, garbage: str, why: str
) -> None:
    _t, gpu = _orin(tmp_path)
    gpu.leave()
    good = gpu.away.joinpath("temp").read_text()
    if garbage != "EIO":
        gpu.away.joinpath("temp").write_text(garbage)
    else:  # the zone's value file fails with EIO, as an I2C sensor not answering does
        real_read = sysfs.SysfsTree._read_bytes

        def read(tree: sysfs.SysfsTree, real: str) -> bytes:
            if real == str(gpu.temp) and gpu.temp.read_text() == good and failing[0]:
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return real_read(tree, real)

        failing = [True]
        monkeypatch.setattr(sysfs.SysfsTree, "_read_bytes", read)

    def script(el: float) -> None:
        if el >= 5.0 and not gpu.link.is_symlink():
            gpu.back()
        if el >= 15.0:
            if garbage == "EIO":
                failing[0] = False
            elif gpu.temp.read_text() != good:
                gpu.temp.write_text(good)

    rows, err = _run(tmp_path, monkeypatch, 30.0, script)
    assert set(_fused(rows, 0.0, 15.0)) == {WITHOUT}, "garbage never fused"
    assert all(r["gpu_c"] == "" for r in rows if float(r["t_s"]) < 15.0)
    joined = _when(rows, "sensor_joined:gpu")
    assert len(joined) == 1 and 15.0 <= joined[0] <= 16.0, joined
    assert err.count("found but not joined") == 1, "said once, not once a second"
    assert "Traceback" not in err


def _specs() -> list[SensorSpec]:
    return [
        SensorSpec("cpu", 0.6, 100, 95.0),
        SensorSpec("gpu", 0.3, 100, 95.0),
        SensorSpec("battery", 0.1, 100, 60.0, kind="battery"),
    ]


def _feed(f: EasedFusion, now: float, values: dict[str, float]) -> float | None:
    for name, v in values.items():
        f.update(Reading(name, v, now))
    return f.fuse(now).fused_c


def _started(cpu: float, gpu: float) -> EasedFusion:
    """CPU and GPU zones both fused from the start, read for 1 s."""
    f = EasedFusion(_specs()[:2], {"cpu": 10.0, "gpu": 10.0})
    for k in range(10):
        _feed(f, k * 0.1, {"cpu": cpu, "gpu": gpu})
    return f


def test_rule_a_colder_zone_leaving_never_lowers_the_value_below_the_others() -> None:
    f = _started(cpu=80.0, gpu=60.0)
    rest = 80.0
    seen = [_feed(f, 1.0 + k * 0.1, {"cpu": rest}) for k in range(150)]
    assert all(v is not None and v >= rest - 1e-9 for v in seen[3:]), "gone stale: the others' value at once"


def test_rule_a_hotter_zone_leaving_eases_out_and_is_not_held_past_its_ramp() -> None:
    f = _started(cpu=60.0, gpu=80.0)
    seen = [_feed(f, 1.0 + k * 0.1, {"cpu": 60.0}) for k in range(150)]
    assert all(v is not None and v >= 60.0 for v in seen)
    assert seen == sorted(seen, reverse=True)
    assert seen[-1] == 60.0, "after the ramp: the others alone"


def test_rule_a_newcomer_at_its_hard_limit_counts_at_once_and_only_ever_raises() -> None:
    f = EasedFusion(_specs()[:2], {"cpu": 10.0, "gpu": 10.0}, waiting=("gpu",))
    assert _feed(f, 0.0, {"cpu": 60.0}) == 60.0
    f.update(Reading("gpu", 96.0, 0.1))
    fr = f.fuse(0.1)
    assert fr.hot == ("gpu",), "its own hard limit from its first reading"
    assert fr.fused_c is not None and 60.0 <= fr.fused_c < 61.0, "its weight eased in"


def test_rule_no_held_value_without_a_fresh_die_sensor() -> None:
    # Only the battery still reading: the die's temperature is unknown (failsafe), held or not.
    f = EasedFusion(_specs(), {"cpu": 10.0, "gpu": 10.0, "battery": 10.0})
    _feed(f, 0.0, {"cpu": 70.0, "gpu": 70.0, "battery": 30.0})
    assert _feed(f, 1.0, {"battery": 30.0}) is None


def test_the_installed_script_adopts_a_late_zone_and_exits_0(tmp_path: Path) -> None:
    _t, gpu = _orin(tmp_path)
    gpu.leave()
    proc = procutil.start_run(tmp_path, "--duration", "120s", "--dry-run")
    procutil.wait_line(proc, "thermogov: started")
    gpu.back()
    procutil.wait_line(proc, "sensor gpu: thermal_zone1 (gpu-thermal) appeared", stream="stderr")
    gpu.leave()
    procutil.wait_line(proc, "went away", stream="stderr")
    err = procutil.stopped(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_rule_a_die_sensor_back_after_every_die_sensor_went_is_not_eased_behind_the_battery() -> None:
    # Session 22r: with every die sensor gone the temperature is unknown (failsafe).  The first die
    # sensor back has no die fusion to ease from: at a small share the battery (30 °C, minutes
    # behind the die) would make the value, 33 °C for a die at 90 °C, and end the failsafe cold.
    f = EasedFusion(_specs(), {"cpu": 10.0, "gpu": 10.0, "battery": 10.0})
    _feed(f, 0.0, {"cpu": 70.0, "gpu": 70.0, "battery": 30.0})
    gone = [_feed(f, 1.0 + k * 0.1, {"battery": 30.0}) for k in range(200)]
    assert gone[-1] is None, "no die sensor: unknown"
    back = [_feed(f, 21.0 + k * 0.1, {"cpu": 90.0, "battery": 30.0}) for k in range(50)]
    base = (0.6 * 90.0 + 0.1 * 30.0) / 0.7
    assert all(v is not None and v >= base - 1e-9 for v in back), back[:3]


def test_rule_a_sole_die_zone_late_at_start_beside_a_battery_counts_in_full() -> None:
    # A Pi's cpu-thermal late on a slow boot, a battery pack read from the start.
    specs = [SensorSpec("cpu", 0.9, 100, 95.0), SensorSpec("battery", 0.1, 100, 60.0, kind="battery")]
    f = EasedFusion(specs, {"cpu": 10.0, "battery": 10.0}, waiting=("cpu",))
    assert _feed(f, 0.0, {"battery": 30.0}) is None
    assert _feed(f, 0.1, {"battery": 30.0}) is None
    v = _feed(f, 0.2, {"cpu": 90.0, "battery": 30.0})
    assert v is not None and v >= 0.9 * 90.0 + 0.1 * 30.0 - 1e-9, v


def test_rule_a_hotter_zone_fused_from_the_start_is_counted_in_full_when_it_reads_again() -> None:
    # A dropout of the GPU zone (5 s of failed reads, no zone late): before session 22, and in the
    # simulator, it counts in full again the moment it reads; never eased in below that.
    f = _started(cpu=60.0, gpu=90.0)
    gone = [_feed(f, 1.0 + k * 0.1, {"cpu": 60.0}) for k in range(50)]
    assert all(v is not None and v >= 60.0 for v in gone)
    back = [_feed(f, 6.0 + k * 0.1, {"cpu": 60.0, "gpu": 90.0}) for k in range(50)]
    assert min(back) == pytest.approx(70.0), back[:3]


def test_a_gone_zone_s_column_is_empty_until_it_is_back_and_the_summary_names_it_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: after sensor_left the gpu column kept its last value (80.000) to the end of the run,
    # and the summary's missing_sensors named gpu, which joined at 5 s and was there at the end.
    script = _away_at_start_then_there_gone_there(tmp_path)
    rows, _err = _run(tmp_path, monkeypatch, 60.0, script)
    left, back = _when(rows, "sensor_left:gpu")[0], _when(rows, "sensor_joined:gpu")[1]
    assert all(r["gpu_c"] == "" for r in rows if left <= float(r["t_s"]) < back), "empty while gone"
    assert all(r["gpu_c"] != "" for r in rows if back + 1.0 <= float(r["t_s"])), "shown again once back"
    # Until the zone is taken out at 25 s (from its first failed read the column is empty too,
    # session 23b: before sensor_left, which the next look tags).
    assert all(r["gpu_c"] != "" for r in rows if 6.0 <= float(r["t_s"]) < 25.0)
    s = _summary(tmp_path)
    assert "gpu" not in s["missing_sensors"], s["missing_sensors"]
    assert 5.0 <= s["joined_late"]["gpu"] <= 6.0, s["joined_late"]


def test_a_zone_gone_at_the_end_is_named_missing_with_when_it_went(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # There at start, gone at 10 s for good: missing at the end (main: not named), not late.
    _t, gpu = _orin(tmp_path)

    def script(el: float) -> None:
        if el >= 10.0 and gpu.link.is_symlink():
            gpu.leave()

    rows, _err = _run(tmp_path, monkeypatch, 20.0, script)
    left = _when(rows, "sensor_left:gpu")
    assert len(left) == 1 and rows[-1]["gpu_c"] == ""
    s = _summary(tmp_path)
    assert s["missing_sensors"]["gpu"].startswith("went away at 1"), s["missing_sensors"]
    assert s["joined_late"] == {}


def test_a_zone_coming_and_going_every_few_seconds_says_one_line_a_minute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: a line per change (two every 8 s, 37 here).  Now its first join and leave, then one
    # line a minute counting the rest, and one at the end; the trace still tags every change.
    _t, gpu = _orin(tmp_path)
    gpu.leave()

    def script(el: float) -> None:
        there = int(el) // 4 % 2 == 1  # 4 s there, 4 s gone (past its stale window), and again
        if there != gpu.link.is_symlink():
            gpu.back() if there else gpu.leave()

    rows, err = _run(tmp_path, monkeypatch, 150.0, script)
    joins, leaves = len(_when(rows, "sensor_joined:gpu")), len(_when(rows, "sensor_left:gpu"))
    assert joins > 10 and leaves > 10, (joins, leaves)
    said = [x for x in err.splitlines() if "sensor gpu:" in x and ("appeared" in x or "went away" in x)]
    assert len(said) <= 2 + 150 / 60 + 1, said
    assert err.count("appeared, reads") == 1 and err.count("went away (") == 1, said
    counted = [x for x in said if "more in" in x]
    assert sum(int(m) for x in counted for m in re.findall(r"appeared (\d+) time", x)) == joins - 1
    assert sum(int(m) for x in counted for m in re.findall(r"went away (\d+) time", x)) == leaves - 1
    assert "Traceback" not in err
