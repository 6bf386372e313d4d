"""Governor-owned fan against the board's default fan curve, side by side on the same seed.

For each board with a fan (the Raspberry Pi 5 with its Active Cooler, ``rpi5-fan``; the Jetson
Orin Nano developer kit, ``jetson-orin-nano-devkit``) and each world (a cool room, a hot
enclosure, a hot enclosure whose fan stalls two thirds in) it runs the same policy twice on the
same seed, once with ``fan = "board"`` (the board's own curve: on the Pi 5 the kernel's step
curve 50/60/67.5/75 °C, 5 °C hysteresis, polled every second; on the Jetson nvfancontrol's
stock "quiet" profile, polled every 2 s) and once with ``fan = "governor"`` (thermogov.fan: fan
before clocks, its own curve below the trip, hysteresis and a minimum dwell), and prints:

* sustained throughput (inferences/s over the second half),
* inferences per joule over the whole run (= sustained inferences per watt; fan power included),
* cap changes, fan switches per hour (level changes; a PWM fan's level is the one nearest its
  duty), mean fan level, fan energy; for a PWM fan its board curve drives (``kind = "pwm"``, the
  Jetson), how often it wrote a new duty per hour and its mean duty (0..255),
* time above the trip and the hottest fused temperature, board throttle events.

    python bench/fan.py [--board rpi5-fan] [--policy stepped] [--seed 1] [--duration 1800]

Nothing is asserted: these are figures to read (the fan's conductance and power per level in
the profiles are estimates, see thermogov/boards/rpi5-fan.toml and jetson-orin-nano-devkit.toml).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from thermogov.config import Config, SimEvent, parse_config  # noqa: E402
from thermogov.sim.model.runner import simulate  # noqa: E402
from thermogov.sim.scenarios import load_scenario  # noqa: E402

# A world is overrides of [sim] or a scenario's name; STALL in the overrides has the fan seize
# two thirds into the run (the rpi5-fan-stall scenario's 20 of 30 min, for any board and length).
STALL = "stall_at_fraction"
BOARDS: dict[str, tuple[tuple[str, dict[str, Any] | str], ...]] = {
    "rpi5-fan": (
        ("room 25 °C", {"ambient_c": 25.0}),
        ("enclosure 45 °C", {"ambient_c": 45.0}),
        ("fan stall at 20 min (rpi5-fan-stall)", "rpi5-fan-stall"),
    ),
    "jetson-orin-nano-devkit": (
        ("room 25 °C", {"ambient_c": 25.0}),
        ("enclosure 45 °C", {"ambient_c": 45.0}),
        ("enclosure 45 °C, fan stall at 2/3", {"ambient_c": 45.0, STALL: 2 / 3}),
        ("enclosure 60 °C, fan stall at 2/3", {"ambient_c": 60.0, STALL: 2 / 3}),
    ),
}
COLUMNS = (
    ("sustained ips", "sustained_throughput_ips", "{:.2f}"),
    ("inf/J", "inferences_per_joule", "{:.3f}"),
    ("cap changes", "cap_changes", "{:d}"),
    ("fan sw/h", "fan_switches_per_hour", "{:.1f}"),
    ("fan lvl", "fan_level_mean", "{:.2f}"),
    ("duty ch/h", "fan_duty_changes_per_hour", "{:.1f}"),
    ("duty mean", "fan_duty_mean", "{:.1f}"),
    ("fan J", "fan_energy_j", "{:.0f}"),
    ("s>trip", "time_above_trip_s", "{:.1f}"),
    ("max °C", "max_fused_c", "{:.1f}"),
    ("throttles", "board_throttle_events", "{:d}"),
)


def world_config(board: str, world: dict[str, Any] | str, owner: str, args: argparse.Namespace) -> Config:
    base = parse_config({"run": {"board": board, "policy": args.policy, "seed": args.seed, "fan": owner}})
    if isinstance(world, dict) and STALL in world:
        stall_at = SimEvent(at_s=args.duration * world[STALL], kind="fan_stall")
        world = {**{k: v for k, v in world.items() if k != STALL}, "events": (stall_at,)}
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
    ap.add_argument(
        "--board", choices=sorted(BOARDS), action="append", help="default: every board with a fan"
    )
    ap.add_argument("--policy", default="stepped")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=1800.0, help="seconds of board time per run")
    args = ap.parse_args()
    import tempfile

    boards = args.board or list(BOARDS)
    header = f"{'board':24} {'world':38} {'fan':9} " + " ".join(f"{c[0]:>13}" for c in COLUMNS)
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as out:
        for board in boards:
            for label, world in BOARDS[board]:
                for owner in ("board", "governor"):
                    cfg = world_config(board, world, owner, args)
                    s = simulate(cfg, out_dir=Path(out) / owner).summary
                    cells = " ".join(f"{_cell(s, key, fmt):>13}" for _, key, fmt in COLUMNS)
                    print(f"{board:24} {label:38} {owner:9} {cells}", flush=True)
    print(
        f"\npolicy {args.policy}, seed {args.seed}, {args.duration:g} s per run; "
        "inf/J includes the fan's own power"
    )


if __name__ == "__main__":
    main()
