"""Governor-owned fan against the board's default fan curve, side by side on the same seed.

For each world (the Raspberry Pi 5 with its Active Cooler, ``rpi5-fan``: a cool room, a hot
enclosure, a hot enclosure whose fan stalls 20 min in) it runs the same policy twice on the
same seed, once with ``fan = "board"`` (the kernel's step curve 50/60/67.5/75 °C, 5 °C
hysteresis, polled every second) and once with ``fan = "governor"`` (thermogov.fan: fan before
clocks, its own curve below the trip, hysteresis and a minimum dwell), and prints:

* sustained throughput (inferences/s over the second half),
* inferences per joule over the whole run (= sustained inferences per watt; fan power included),
* fan switches per hour, mean fan level, fan energy,
* time above the trip and the hottest fused temperature, board throttle events.

    python bench/fan.py [--policy stepped] [--seed 1] [--duration 1800]

Nothing is asserted: these are figures to read (the fan's conductance and power per level in
the profile are estimates, see thermogov/boards/rpi5-fan.toml).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from thermogov.config import Config, parse_config  # noqa: E402
from thermogov.sim.model.runner import simulate  # noqa: E402
from thermogov.sim.scenarios import load_scenario  # noqa: E402

WORLDS: tuple[tuple[str, dict[str, Any] | str], ...] = (
    ("room 25 °C", {"ambient_c": 25.0}),
    ("enclosure 45 °C", {"ambient_c": 45.0}),
    ("fan stall at 20 min (rpi5-fan-stall)", "rpi5-fan-stall"),
)
COLUMNS = (
    ("sustained ips", "sustained_throughput_ips", "{:.2f}"),
    ("inf/J", "inferences_per_joule", "{:.3f}"),
    ("fan sw/h", "fan_switches_per_hour", "{:.1f}"),
    ("fan lvl", "fan_level_mean", "{:.2f}"),
    ("fan J", "fan_energy_j", "{:.0f}"),
    ("s>trip", "time_above_trip_s", "{:.1f}"),
    ("max °C", "max_fused_c", "{:.1f}"),
    ("throttles", "board_throttle_events", "{:d}"),
)


def world_config(world: dict[str, Any] | str, owner: str, args: argparse.Namespace) -> Config:
    base = parse_config(
        {"run": {"board": "rpi5-fan", "policy": args.policy, "seed": args.seed, "fan": owner}}
    )
    if isinstance(world, str):
        cfg = load_scenario(world, base)
        return dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, duration_s=args.duration))
    sim = dataclasses.replace(base.sim, duration_s=args.duration, **world)
    return dataclasses.replace(base, sim=sim)


def _cell(summary: dict[str, Any], key: str, fmt: str) -> str:
    v = summary.get(key)
    return "-" if v is None else fmt.format(v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="stepped")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=1800.0, help="seconds of board time per run")
    args = ap.parse_args()
    import tempfile

    header = f"{'world':38} {'fan':9} " + " ".join(f"{c[0]:>13}" for c in COLUMNS)
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as out:
        for label, world in WORLDS:
            for owner in ("board", "governor"):
                s = simulate(world_config(world, owner, args), out_dir=Path(out) / owner).summary
                cells = " ".join(f"{_cell(s, key, fmt):>13}" for _, key, fmt in COLUMNS)
                print(f"{label:38} {owner:9} {cells}")
    print(
        f"\npolicy {args.policy}, seed {args.seed}, {args.duration:g} s per run, board rpi5-fan; "
        "inf/J includes the fan's own power"
    )


if __name__ == "__main__":
    main()
