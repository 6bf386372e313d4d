"""Power awareness, measured: battery runs to empty with and without power budgets.

Battery part (the ``power`` work): each battery scenario runs with the same policy and seed
twice, once thermal-only (no ``[power]`` budget) and once power-aware (a budget for the
discharging state and a lower one under 20 %), each until the pack is empty.  Printed per
scenario: runtime, inferences before empty, inferences per joule of board energy, and the
power-aware / thermal-only ratios.  Nothing is asserted: these are figures to read.

    python bench/power.py [--budget-w 6] [--low-battery-w 5] [--soc 0.25] [--policy stepped]

Scenarios: ``orin-battery-robot`` (docked 5 min, then on the move with 8 W of motors on the same
pack) and the same pack with no motors (``discharging`` only: the board alone drains it).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from thermogov.config import Config, SimEvent  # noqa: E402
from thermogov.powerconfig import PowerConfig  # noqa: E402
from thermogov.sim.model.runner import simulate  # noqa: E402
from thermogov.sim.scenarios import load_scenario  # noqa: E402


def battery_worlds(soc: float) -> dict[str, Config]:
    robot = load_scenario("orin-battery-robot")
    robot = dataclasses.replace(
        robot, sim=dataclasses.replace(robot.sim, initial_soc=soc, duration_s=36_000.0)
    )
    board_only = dataclasses.replace(
        robot, sim=dataclasses.replace(robot.sim, events=(SimEvent(0.0, "unplugged"),))
    )
    return {"orin-battery-robot": robot, "orin-battery-board-only": board_only}


def battery_rows(soc: float, policy: str, budget_w: float, low_w: float) -> list[str]:
    aware_power = PowerConfig(discharging_w=budget_w, low_battery_w=low_w)
    lines = [
        f"battery to empty: policy {policy}, start {soc:.0%}; power-aware = {budget_w:g} W discharging, "
        f"{low_w:g} W under 20 %",
        f"{'scenario':<26} {'run':<13} {'runtime s':>10} {'inferences':>11} {'inf/J':>7} {'mean W':>7} "
        f"{'worst win':>9}",
    ]
    for name, world in battery_worlds(soc).items():
        res = {}
        for label, power in (("thermal-only", PowerConfig()), ("power-aware", aware_power)):
            cfg = dataclasses.replace(world, policy=policy, power=power)
            s = simulate(cfg).summary
            runtime = s["battery_empty_at_s"]
            res[label] = (runtime, s["inferences_total"])
            worst = s.get("budget_max_window_ratio")
            lines.append(
                f"{name:<26} {label:<13} {runtime if runtime is not None else float('nan'):>10.0f} "
                f"{s['inferences_total']:>11} {s['inferences_per_joule']:>7.2f} "
                f"{s['energy_j'] / (runtime or cfg.sim.duration_s):>7.2f} {'' if worst is None else f'{worst:.1%}':>9}"
            )
        (rt0, n0), (rt1, n1) = res["thermal-only"], res["power-aware"]
        lines.append(
            f"{name:<26} {'ratio':<13} {rt1 / rt0 if rt0 and rt1 else float('nan'):>10.3f} {n1 / n0:>11.3f}"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--soc", type=float, default=0.25, help="state of charge at the start (default 0.25)")
    ap.add_argument("--policy", default="stepped")
    ap.add_argument("--budget-w", type=float, default=6.0, help="power-aware budget while discharging")
    ap.add_argument("--low-battery-w", type=float, default=5.0, help="power-aware budget under 20 %%")
    args = ap.parse_args()
    started = time.monotonic()
    print("\n".join(battery_rows(args.soc, args.policy, args.budget_w, args.low_battery_w)))
    print(f"\n{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
