"""Session 23r: a SIGHUP that sets a ``[power]`` budget hands it a power read at that tick.

A sum of rails (an AGX Orin's) is read once a second without a budget and held in between
(hw/railsum.py); a budget integrates power every tick, so a reload that sets one switches the
sum to every tick.  The loop marked the tick boundary (``new_tick``: this tick's power held)
before it applied the reload, so at the reload's own tick the new budget was handed a sum
up to a second old.  The reload is now applied first: the budget's first power is read then.
The daemon runs on a virtual clock (tests/hw/test_hw_late_zones.py's ``_run``).
"""

from __future__ import annotations

import csv
import io
import json
import types
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys
from thermogov import budget
from thermogov.config import parse_config
from thermogov.hw import daemon, sysfs

SUM_W = 19.98 * 0.240 + 19.98 * 0.080 + 5.06 * 0.740  # fakesys.AGX_ORIN_RAILS
GPU_CURR = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon3/curr1_input"  # VDD_GPU_SOC
CHANGE_S, RELOAD_S = 10.25, 10.45  # the GPU rail draws 1 A more after the 10 s read; then SIGHUP
BUDGET = {"power": {"budget_mains_w": 30.0, "budget_discharging_w": 30.0, "budget_charging_w": 30.0}}


def _run(
    work: Path, monkeypatch: pytest.MonkeyPatch, start: dict[str, Any], reload: dict[str, Any]
) -> tuple[list[dict[str, str]], list[tuple[float, Any]], list[float]]:
    """(trace rows, (t, power) each budget was handed, times the sum was read) of a 20 s dry
    run started with the ``start`` configuration and reloaded to ``reload`` at RELOAD_S."""
    t = fakesys.agx_orin(work / "root")
    now = [1000.0]

    def wait(flag: daemon.StopFlag, timeout_s: float) -> bool:
        now[0] += timeout_s
        el = now[0] - 1000.0
        if el >= CHANGE_S:
            (t.root / GPU_CURR).write_text("1240\n")
        if el >= RELOAD_S and not asked:
            asked.append(el)
            flag.reload_requested = True  # as the SIGHUP handler does
        return flag.event.is_set()

    asked: list[float] = []
    handed: list[tuple[float, Any]] = []
    real_limit = budget.BudgetController.limit

    def limit(self: budget.BudgetController, now_s: float, caps: Any, power_w: Any, status: Any) -> Any:
        handed.append((now_s, power_w))
        return real_limit(self, now_s, caps, power_w, status)

    reads: list[float] = []
    real_read = sysfs.SysfsTree._read_bytes

    def counted(tree: sysfs.SysfsTree, path: str) -> bytes:
        if path.endswith("1-0040/hwmon/hwmon3/curr1_input"):
            reads.append(now[0] - 1000.0)
        return real_read(tree, path)

    monkeypatch.setattr(sysfs.SysfsTree, "_read_bytes", counted)
    monkeypatch.setattr(budget.BudgetController, "limit", limit)
    clock = types.SimpleNamespace(monotonic=lambda: now[0], perf_counter=lambda: now[0], time=lambda: now[0])
    monkeypatch.setattr(daemon, "time", clock)
    monkeypatch.setattr(daemon.StopFlag, "wait", wait)
    where = {"state_dir": "state", "lock_file": "l.lock", "lock_dir": "locks", "out": "out"}
    opts = daemon.RunOptions(
        parse_config(start),
        work / "root",
        duration_s=20.0,
        dry_run=True,
        reload_config=lambda: parse_config(reload),
        config_source="budget.toml",
        **{k: work / v for k, v in where.items()},
    )
    daemon.Runner(opts, out=io.StringIO(), err=io.StringIO()).run()
    run_dir = next(p for p in (work / "out").iterdir() if p.is_dir())
    with (run_dir / "trace.csv").open() as fh:
        return list(csv.DictReader(fh)), handed, reads


def test_a_budget_set_by_sighup_is_handed_a_sum_read_at_its_first_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows, handed, reads = _run(tmp_path, monkeypatch, {}, BUDGET)
    (reloaded,) = [r for r in rows if "reload" in r["event"].split()]
    t_reload = float(reloaded["t_s"])
    assert CHANGE_S < t_reload < 11.0  # between two of the once-a-second reads
    assert handed, "the reload put a budget in force"
    first_t, first_w = handed[0]
    assert first_t == pytest.approx(t_reload)
    # main: the sum read at 10 s, held (SUM_W), was the budget's first power.
    assert first_w == pytest.approx(SUM_W + 19.98, abs=1e-3)
    assert float(reloaded["power_w"]) == pytest.approx(SUM_W + 19.98, abs=1e-3)
    assert all(w == pytest.approx(SUM_W + 19.98, abs=1e-3) for _t, w in handed)
    assert len([t for t in reads if 1.0 <= t < 10.0]) <= 10  # once a second before
    assert len([t for t in reads if t_reload - 0.01 < t <= 20.0]) >= len(handed) >= 90  # every tick after


def test_a_budget_lifted_by_sighup_goes_back_to_one_read_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows, handed, reads = _run(tmp_path, monkeypatch, BUDGET, {})
    (reloaded,) = [r for r in rows if "reload" in r["event"].split()]
    t_reload = float(reloaded["t_s"])
    assert handed and all(t < t_reload for t, _w in handed)  # no budget after the reload
    before = [t for t in reads if 1.0 <= t < 10.0]
    after = [t for t in reads if t_reload + 0.05 < t <= 20.0]
    assert len(before) >= 85  # every tick under the budget
    assert 8 <= len(after) <= 10, after  # once a second from the reload on
    # The reload's tick reads the sum (a new once-a-second gate is due at once): no value
    # held over from the budget's every-tick reads is older than that tick.
    assert any(abs(t - t_reload) < 0.01 for t in reads)
    late = [float(r["power_w"]) for r in rows if float(r["t_s"]) >= t_reload]
    assert all(w == pytest.approx(SUM_W + 19.98, abs=1e-3) for w in late)
    summary = json.loads(
        next(p for p in (tmp_path / "out").iterdir() if p.is_dir()).joinpath("summary.json").read_text()
    )
    assert summary["power_read_period_s"] == 1.0  # the configuration in force at the end
