"""Power awareness, measured: battery runs to empty, the lever below the lowest clock, J/inference.

Three parts, each printing figures and ratios side by side (nothing is asserted):

1. Battery to empty: each battery scenario runs with the same policy and seed four ways,
   thermal-only (no ``[power]`` budget, no modes), power-aware (a budget for the discharging
   state and a lower one under 20 %), modes (the ``[modes]`` table on, no budget) and both,
   each until the pack is empty: runtime, inferences before empty, accuracy-weighted inferences
   (full-model equivalents, docs/power.md), inferences per joule, ratios to thermal-only.
   Scenarios: ``orin-battery-robot`` (docked 5 min, then on the move with 8 W of motors on the
   same pack) and the same pack with no motors (the board alone drains it).
2. The Pi 5 closed case (``rpi5-closed-35``): without the lever, and with lever ladders of
   different shapes (coarse and fine duty steps, with and without stepping the inference mode
   first): time above the trip, inferences, accuracy-weighted inferences, the sustained rate
   against the bound (the highest constant duty whose steady state sits under the trip, times
   the lowest clock's rate; :func:`thermogov.sim.model.loadlevel.sustainable_duty`).
3. Energy per inference at equal throughput: a Poisson stream every policy serves in full on
   ``orin-steady-25`` in a 45 °C room (hot enough that the trip binds, light enough that no
   policy drops a frame), so J/inference compares the policies' clock choices alone: the
   default (stepped) against hysteresis and the kernel baselines.

    python bench/power.py [--part battery|lever|energy|all] [--budget-w 6] [--low-battery-w 5]
                          [--soc 0.25] [--policy stepped] [--rate 100] [--ambient 45]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import tempfile  # noqa: E402

from thermogov import costmodel  # noqa: E402
from thermogov.config import Config, SimEvent, WorkloadConfig  # noqa: E402
from thermogov.lever import LeverConfig  # noqa: E402
from thermogov.modes import ModesConfig, builtin_mode_costs  # noqa: E402
from thermogov.powerconfig import PowerConfig  # noqa: E402
from thermogov.runs import trip_of  # noqa: E402
from thermogov.sim.model.loadlevel import scaled_model, sustainable_duty  # noqa: E402
from thermogov.sim.model.runner import simulate  # noqa: E402
from thermogov.sim.scenarios import load_scenario  # noqa: E402

OUT = Path(tempfile.mkdtemp(prefix="bench-power-"))  # summaries need a run folder


def battery_worlds(soc: float) -> dict[str, Config]:
    robot = load_scenario("orin-battery-robot")
    robot = dataclasses.replace(
        robot, sim=dataclasses.replace(robot.sim, initial_soc=soc, duration_s=36_000.0)
    )
    board_only = dataclasses.replace(
        robot, sim=dataclasses.replace(robot.sim, events=(SimEvent(0.0, "unplugged"),))
    )
    return {"orin-battery-robot": robot, "orin-battery-board-only": board_only}


def _ratio(a: float | None, b: float | None) -> float:
    return a / b if a and b else float("nan")


def battery_rows(soc: float, policy: str, budget_w: float, low_w: float) -> list[str]:
    aware_power = PowerConfig(discharging_w=budget_w, low_battery_w=low_w)
    modes = dataclasses.replace(ModesConfig(), enabled=True)
    runs = {
        "thermal-only": (PowerConfig(), ModesConfig()),
        "power-aware": (aware_power, ModesConfig()),
        "modes": (PowerConfig(), modes),
        "aware+modes": (aware_power, modes),
    }
    lines = [
        f"battery to empty: policy {policy}, start {soc:.0%}; power-aware = {budget_w:g} W discharging, "
        f"{low_w:g} W under 20 %; modes = the default [modes] table",
        f"{'scenario':<26} {'run':<13} {'runtime s':>10} {'inferences':>11} {'acc-wtd':>9} {'inf/J':>7} "
        f"{'mean W':>7} {'x runtime':>9} {'x inf':>6} {'x acc':>6}",
    ]
    for name, world in battery_worlds(soc).items():
        base: tuple[float, int, float] | None = None
        for label, (power, mc) in runs.items():
            cfg = dataclasses.replace(world, policy=policy, power=power, modes=mc)
            s = simulate(cfg, out_dir=OUT).summary
            runtime = s["battery_empty_at_s"]
            acc = s["accuracy_weighted_inferences"]
            if base is None:
                base = (runtime, s["inferences_total"], acc)
            lines.append(
                f"{name:<26} {label:<13} {runtime if runtime is not None else float('nan'):>10.0f} "
                f"{s['inferences_total']:>11} {acc:>9.0f} {s['inferences_per_joule']:>7.2f} "
                f"{s['energy_j'] / (runtime or cfg.sim.duration_s):>7.2f} {_ratio(runtime, base[0]):>9.3f} "
                f"{_ratio(s['inferences_total'], base[1]):>6.2f} {_ratio(acc, base[2]):>6.2f}"
            )
    return lines


def ladders() -> dict[str, LeverConfig | None]:
    on = LeverConfig(enabled=True)
    return {
        "no lever": None,
        "duty 25 %": dataclasses.replace(on, use_modes=False, duty_step=0.25),
        "duty 10 %": dataclasses.replace(on, use_modes=False, duty_step=0.1),
        "duty 2 %": dataclasses.replace(on, use_modes=False),
        "modes+25 %": dataclasses.replace(on, duty_step=0.25),
        "modes+2 %": on,
    }


def lever_rows(policy: str) -> list[str]:
    base = dataclasses.replace(load_scenario("rpi5-closed-35"), policy=policy)
    board = base.load_board()
    trip = trip_of(base)
    lowest = {d.name: d.opp_hz[0] for d in board.domains}

    def bound(mode: str) -> float:
        """Best constant duty under the trip in this mode, times its rate at the lowest clocks."""
        cost = builtin_mode_costs()[mode]
        rate = 1.0 / costmodel.inference_time_s(scaled_model(board.model, cost), lowest)
        return sustainable_duty(board, base.sim.ambient_c, trip, cost) * rate

    cheapest = ModesConfig().order[-1]
    lines = [
        f"rpi5-closed-35 ({base.sim.duration_s:g} s, {base.sim.ambient_c:g} °C, trip {trip:g} °C), policy {policy}; "
        f"bound = the best constant duty under the trip x the lowest clock's rate: {bound('full'):.1f} inf/s "
        f"(full model), {bound(cheapest):.1f} inf/s ({cheapest})",
        f"{'ladder':<12} {'above s':>8} {'after 1st':>9} {'max °C':>7} {'inferences':>11} {'acc-wtd':>9} "
        f"{'sustained':>9} {'/bound':>6} {'x inf':>6} {'x acc':>6}",
    ]
    ref: tuple[int, float] | None = None
    for label, lev in ladders().items():
        cfg = base if lev is None else dataclasses.replace(base, lever=lev)
        s = simulate(cfg, out_dir=OUT).summary
        acc = s["accuracy_weighted_inferences"]
        if ref is None:
            ref = (s["inferences_total"], acc)
        after = s.get("time_above_trip_after_first_excursion_s")
        b = bound(cheapest if lev is not None and lev.use_modes else "full")
        lines.append(
            f"{label:<12} {s['time_above_trip_s']:>8.1f} {'' if after is None else f'{after:.1f}':>9} "
            f"{s['max_fused_c']:>7.1f} {s['inferences_total']:>11} {acc:>9.0f} "
            f"{s['sustained_throughput_ips']:>9.2f} {s['sustained_throughput_ips'] / b:>6.2f} "
            f"{_ratio(s['inferences_total'], ref[0]):>6.2f} {_ratio(acc, ref[1]):>6.2f}"
        )
    return lines


ENERGY_POLICIES = ("stepped", "hysteresis", "step_wise", "bang_bang", "power_allocator", "performance")


def energy_rows(rate_ips: float, ambient_c: float) -> list[str]:
    base = load_scenario("orin-steady-25")
    work = WorkloadConfig(kind="poisson", rate_ips=rate_ips)
    base = dataclasses.replace(base, sim=dataclasses.replace(base.sim, workload=work, ambient_c=ambient_c))
    lines = [
        f"energy per inference at equal throughput: orin-steady-25 at {ambient_c:g} °C with a {rate_ips:g} inf/s "
        "Poisson stream (every policy serves it all; the trip binds)",
        f"{'policy':<16} {'inf/s':>7} {'dropped':>8} {'mJ/inf':>8} {'x stepped':>9} {'above s':>8} {'p99 ms':>7}",
    ]
    ref = None
    for pol in ENERGY_POLICIES:
        s = simulate(dataclasses.replace(base, policy=pol), out_dir=OUT).summary
        mj = 1000.0 * s["energy_j"] / s["inferences_total"]
        ref = ref or mj
        lines.append(
            f"{pol:<16} {s['mean_throughput_ips']:>7.1f} {s['dropped_requests']:>8} {mj:>8.2f} {mj / ref:>9.3f} "
            f"{s['time_above_trip_s']:>8.1f} {s['latency_ms']['total']['p99']:>7.1f}"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--soc", type=float, default=0.25, help="state of charge at the start (default 0.25)")
    ap.add_argument("--policy", default="stepped")
    ap.add_argument("--budget-w", type=float, default=6.0, help="power-aware budget while discharging")
    ap.add_argument("--low-battery-w", type=float, default=5.0, help="power-aware budget under 20 %%")
    ap.add_argument("--part", choices=("battery", "lever", "energy", "all"), default="all")
    ap.add_argument("--rate", type=float, default=100.0, help="Poisson rate of the energy part, inf/s")
    ap.add_argument("--ambient", type=float, default=45.0, help="ambient of the energy part, °C")
    args = ap.parse_args()
    started = time.monotonic()
    parts = []
    if args.part in ("battery", "all"):
        parts.append(battery_rows(args.soc, args.policy, args.budget_w, args.low_battery_w))
    if args.part in ("lever", "all"):
        parts.append(lever_rows(args.policy))
    if args.part in ("energy", "all"):
        parts.append(energy_rows(args.rate, args.ambient))
    print("\n\n".join("\n".join(p) for p in parts))
    print(f"\n{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
