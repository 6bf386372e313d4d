"""``stand_back`` (off): never cap under a holding lower agent's rung, whatever the set point says.

Session 23a traced rpi5-steady-25's −0.14 % (``stepped`` against the Pi's firmware alone) to ticks
where ``stepped``'s own cap sat under the clock the firmware ran (``bench/trace_gap.py``); the key
is the brief's "stand back while the firmware holds the die", judged and kept off
(docs/policies.md): it reads the trip more often on the same world continued.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from thermogov.config import Config
from thermogov.sim.compare.tracegap import UNDER, load_trace, trace_gap
from thermogov.sim.model.runner import simulate
from thermogov.sim.scenarios import load_scenario
from thermogov.variant import parse_variant


def _run(config: Config, arm: str, out: Path) -> tuple[Path, dict]:
    res = simulate(parse_variant(arm).apply(config), out_dir=out / arm.replace("+", "_").replace("=", "-"))
    assert res.run_dir is not None
    return res.run_dir, res.summary


def test_standing_back_cuts_the_ticks_under_the_firmwares_clock(tmp_path: Path) -> None:
    world = load_scenario("rpi5-steady-25")
    firmware, _ = _run(world, "step_wise", tmp_path)  # trip 85: the kernel never acts, the firmware alone
    default, s_default = _run(world, "stepped", tmp_path)
    back, s_back = _run(world, "stepped+stand_back=true", tmp_path)
    fw = load_trace(firmware)
    window = tuple(s_default["steady_window_s"])
    g_default = trace_gap(load_trace(default), fw, window)
    g_back = trace_gap(load_trace(back), fw, window)
    assert g_default.ticks.get(UNDER, 0) > 0  # the cause: the default caps under the firmware's clock
    assert g_back.ticks.get(UNDER, 0) < g_default.ticks[UNDER]
    assert g_back.gap[UNDER] > g_default.gap[UNDER]  # fewer inferences lost there
    assert s_back["sustained_throughput_ips"] >= s_default["sustained_throughput_ips"]


def test_a_board_without_a_yielded_ramp_runs_the_same(tmp_path: Path) -> None:
    """The Orin's throttle is kept clear of, never yielded to: nothing holds, nothing changes."""
    world = load_scenario("orin-steady-25")
    world = dataclasses.replace(world, sim=dataclasses.replace(world.sim, duration_s=240.0))
    a, _ = _run(world, "stepped", tmp_path)
    b, _ = _run(world, "stepped+stand_back=true", tmp_path)
    assert (a / "trace.csv").read_bytes() == (b / "trace.csv").read_bytes()
