"""``stand_back_reads_per_h`` and ``ramp_readback`` (both off): stand back from a lower agent while a
bank of expected trip readings lasts, at the rung the board's clocks read back.

Session 23a's ``stand_back`` followed the Pi's firmware regardless of what its hold point cost in
trip readings, and at a rung estimated from the readings (a rung low when the level read high).
The bank spends only what the held time has saved (:mod:`thermogov.policies.standback`);
docs/policies.md, session 24b, judges both.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from thermogov.config import Config
from thermogov.policies.standback import TripBank, readback_rung
from thermogov.policies.stepped import trip_sigmas
from thermogov.sim.compare.tracegap import UNDER, load_trace, trace_gap
from thermogov.sim.model.runner import simulate
from thermogov.sim.scenarios import load_scenario
from thermogov.variant import parse_variant

THERMOGOV = str(Path(sys.executable).with_name("thermogov"))  # the installed script
BANK = "stepped+stand_back_reads_per_h=1+ramp_readback=true"


def _run(config: Config, arm: str, out: Path) -> tuple[Path, dict]:
    res = simulate(parse_variant(arm).apply(config), out_dir=out / arm.replace("+", "_").replace("=", "-"))
    assert res.run_dir is not None
    return res.run_dir, res.summary


def test_the_bank_saves_when_cool_and_pays_when_near_the_trip() -> None:
    bank = TripBank(reads_per_h=1.0, period_s=0.1, edge_c=0.025, quant_var=0.0)
    for _ in range(3600):
        bank.held_tick(1.0, 85.0, 80.0, 0.3)  # 16 sigmas under the code's edge: nothing expected
    assert bank.balance == pytest.approx(1.0)  # an hour's accrual, and never more (the cap)
    bank.held_tick(1.0, 85.0, 84.975, 0.3)  # at the edge: half of the tick's ten readings
    assert bank.balance == pytest.approx(1.0 + 1.0 / 3600 - 5.0)
    assert not bank.open


def test_held_at_the_budgets_margin_the_bank_neither_saves_nor_spends() -> None:
    """The charge is the normal tail the set point's ``trip_sigmas`` sizes, over the bare noise."""
    q2 = 0.55**2 / 12.0  # a Pi 5's codes, taken out of the coded sigma
    coded = (0.3**2 + q2) ** 0.5
    level = 85.0 - 0.025 - trip_sigmas(1.0, 0.1) * 0.3
    bank = TripBank(reads_per_h=1.0, period_s=0.1, edge_c=0.025, quant_var=q2)
    for _ in range(600):
        bank.held_tick(1.0, 85.0, level, coded)
    assert abs(bank.balance) < 1e-9
    assert bank.spent == pytest.approx(600.0 / 3600.0)


def test_the_rung_read_back_only_when_the_clocks_sit_under_the_caps() -> None:
    ladder = [{"cpu": 1_500_000_000}, {"cpu": 1_600_000_000}, {"cpu": 1_700_000_000}, {"cpu": 1_800_000_000}]
    caps = {"cpu": 1_800_000_000}
    assert readback_rung(ladder, caps, {"cpu": 1_800_000_000}) is None  # unthrottled: no news
    assert readback_rung(ladder, caps, {"cpu": None}) is None  # nothing read back
    assert readback_rung(ladder, caps, {"cpu": 1_700_000_000}) == 2
    assert readback_rung(ladder, caps, {"cpu": 1_650_000_000}) == 1  # between OPPs: the rung under
    assert readback_rung(ladder, caps, {"cpu": 1_000_000_000, "gpu": 5}) == 0  # off the ladder: ignored


def test_the_bank_follows_the_firmware_where_the_default_caps_under_it(tmp_path: Path) -> None:
    """rpi5-steady-25: the default's loss is its cap under the firmware's clock (session 23a); the
    bank, with the rung read back, has fewer such ticks and loses fewer inferences there."""
    world = load_scenario("rpi5-steady-25")
    firmware, _ = _run(world, "step_wise", tmp_path)  # trip 85: the kernel never acts, the firmware alone
    default, s_default = _run(world, "stepped", tmp_path)
    bank, s_bank = _run(world, BANK, tmp_path)
    fw = load_trace(firmware)
    window = tuple(s_default["steady_window_s"])
    g_default = trace_gap(load_trace(default), fw, window)
    g_bank = trace_gap(load_trace(bank), fw, window)
    assert g_default.ticks.get(UNDER, 0) > 0
    assert g_bank.ticks.get(UNDER, 0) < g_default.ticks[UNDER]
    assert g_bank.gap[UNDER] > g_default.gap[UNDER]
    assert s_bank["sustained_throughput_ips"] > s_default["sustained_throughput_ips"]


def test_a_board_without_a_yielded_ramp_runs_the_same(tmp_path: Path) -> None:
    """An Orin's throttle is kept clear of, never yielded to: no bank, nothing read back."""
    world = load_scenario("orin-steady-25")
    world = dataclasses.replace(world, sim=dataclasses.replace(world.sim, duration_s=240.0))
    a, _ = _run(world, "stepped", tmp_path)
    b, _ = _run(world, BANK, tmp_path)
    assert (a / "trace.csv").read_bytes() == (b / "trace.csv").read_bytes()


@pytest.mark.parametrize("value", ["-1", "nan", "4000"])
def test_a_bad_budget_is_one_line_and_exit_2(tmp_path: Path, value: str) -> None:
    out = subprocess.run(
        [
            THERMOGOV,
            "compare",
            "--scenario",
            "rpi5-steady-25",
            "--policy",
            f"stepped+stand_back_reads_per_h={value}",
            "--seed",
            "1",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "stand_back_reads_per_h" in lines[0], out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "out").exists()
