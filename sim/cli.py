"""``thermogov sim``: the command, CLI overrides onto a config, progress, the summary table.

``thermogov/cli.py`` registers the command lazily; importing this module stays free of SimPy
(it imports the simulator only inside the functions that run it).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from thermogov.cliopts import (
    BOARD_HELP,
    GivenPath,
    board_options,
    check_out_dir,
    load_board_option,
    merge_board,
)
from thermogov.config import Config
from thermogov.display import figure
from thermogov.interfaces import ConfigError
from thermogov.mitigationrows import mitigation_rows
from thermogov.units import parse_duration_s
from thermogov.variant import check_variant, policy_or_variant


def apply_overrides(
    cfg: Config,
    *,
    board: str | None = None,
    duration: str | None = None,
    ambient: float | None = None,
    policy: str | None = None,
    seed: int | None = None,
    scenario: str | None = None,
    out: str | None = None,
) -> Config:
    """``board`` is a built-in name or a board TOML (``--board`` either way)."""
    if scenario is not None and not scenario.strip():  # an unset variable ran no scenario (32h)
        raise ConfigError(
            "--scenario: empty; give a scenario name (see `thermogov compare --list`) or leave the option out"
        )
    if scenario:
        from thermogov.sim.scenarios import load_scenario

        cfg = load_scenario(scenario, base=cfg)
    sim = cfg.sim
    if duration is not None:
        sim = dataclasses.replace(sim, duration_s=parse_duration_s(duration, "--duration"))
    if ambient is not None:
        if not -40.0 <= ambient <= 85.0:
            raise ConfigError(f"--ambient: {ambient:g} °C is out of range; use -40..85")
        sim = dataclasses.replace(sim, ambient_c=ambient)
    changes: dict[str, Any] = {"sim": sim}
    if board is not None:
        changes.update(_board_changes(board, scenario))
    # A variant (stepped+release_frontier=true) merges its keys into [policies.NAME], as `ab` does;
    # a plain name is exactly replace(cfg, policy=name).
    variant = None if policy is None else policy_or_variant(policy, "--policy")
    if seed is not None:
        if not 0 <= seed <= 2**32 - 1:
            raise ConfigError("--seed: must be in 0..4294967295")
        changes["seed"] = seed
    if out is not None:
        changes["out"] = out
    cfg = dataclasses.replace(cfg, **changes)
    if variant is None:
        return cfg
    if variant.overrides:
        from thermogov.sim.model.runner import build_policy

        check_variant(variant, cfg, lambda c: build_policy(c, c.load_board()))
    return variant.apply(cfg)


def _board_changes(board: str, scenario: str | None) -> dict[str, str]:
    """Config fields for ``--board``; a scenario written for another board is refused, because
    its world (load, events, ambient) was sized for that board's thermals."""
    from thermogov.board import builtin_board_names, load_board

    if board in builtin_board_names():
        profile, changes = load_board(board), {"board": board, "board_file": ""}
    else:
        # absolute, so the run's config.toml reproduces the run from any folder
        profile, changes = load_board_option(board), {"board_file": str(Path(board).resolve())}
    name = profile.name
    if scenario:
        from thermogov.sim.scenarios import scenario_board, scenario_names

        wanted = scenario_board(scenario)
        # A calibrated profile (rpi5-calibrated) is the same hardware: it keeps the device-tree
        # models of the profile it was fitted from.
        same = (
            wanted is None
            or wanted == name
            or bool(set(profile.dt_models) & set(load_board(wanted).dt_models))
        )
        if not same:
            examples = [n for n in scenario_names() if scenario_board(n) == name]
            hint = f" (e.g. {examples[0]})" if examples else ""
            raise ConfigError(
                f"--board: scenario {scenario} is written for board {wanted}, not {name}; "
                f"drop --board, or pick a scenario for {name}{hint}"
            )
    return changes


def check_before_run(cfg: Config, out_field: str = "--out") -> None:
    """Everything that would otherwise fail mid-run or after it: the board loads and has a
    steady state at its lowest clocks, the policy builds against it (``fixed:`` caps inside the
    OPP range) and the output folder is writable."""
    from thermogov.sim.model.runner import build_policy, validate_events
    from thermogov.sim.model.world import refuse_runaway

    board = cfg.load_board()
    refuse_runaway(board, cfg.sim.ambient_c)
    validate_events(cfg, board)
    build_policy(cfg, board)
    check_out_dir(cfg.out, out_field)


def run_with_progress(cfg: Config, show: bool = True) -> Any:
    from thermogov.sim.model.runner import simulate

    board = cfg.load_board()
    started = time.monotonic()
    bar: Any = None
    last = [0.0]

    def progress(t_s: float) -> None:
        nonlocal bar
        # Only runs that take more than a moment get a bar: most 10-minute simulations finish
        # in well under a second and a flashing bar would be noise.
        if bar is None and show and time.monotonic() - started > 0.7:
            bar = click.progressbar(length=int(cfg.sim.duration_s), label="simulating", file=sys.stderr)
            bar.__enter__()
        if bar is not None:
            bar.update(int(t_s - last[0]))
            last[0] = int(t_s)

    try:
        result = simulate(cfg, board, Path(cfg.out), progress=progress)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    return result


def _fmt(v: Any, unit: str = "") -> str:
    return figure(v, unit) if isinstance(v, int | float) or v is None else f"{v}{unit}"


def print_summary(s: dict[str, Any], run_dir: Path | None) -> None:
    lat = (s.get("latency_ms") or {}).get("total", {})
    rows = [
        ("board", s["board"]),
        ("policy", s["policy"]),
        ("duration", f"{s['duration_s']:g} s"),
        (
            "sustained throughput",
            _fmt(s["sustained_throughput_ips"], " inf/s")
            + f"  (window {s['steady_window_s'][0]:g}-{s['steady_window_s'][1]:g} s)",
        ),
        ("mean throughput", _fmt(s["mean_throughput_ips"], " inf/s")),
        (
            "latency p50/p95/p99",
            f"{_fmt(lat.get('p50'))} / {_fmt(lat.get('p95'))} / {_fmt(lat.get('p99'), ' ms')}",
        ),
        *latency_rows(s),
        ("max fused temperature", _fmt(s["max_fused_c"], " °C")),
        ("max per sensor", ", ".join(f"{k} {_fmt(v, ' °C')}" for k, v in s["max_sensor_c"].items())),
        ("time above trip", _fmt(s["time_above_trip_s"], f" s (trip {s['trip_c']:g} °C)")),
        ("energy", _fmt(s["energy_j"], " J")),
        ("inferences per joule", _fmt(s["inferences_per_joule"])),
        ("cap changes", str(s["cap_changes"])),
        *fan_rows(s),
        ("board throttle events", str(s.get("board_throttle_events", "n/a"))),
        *mitigation_rows(s),
        ("ended", ended_text(s)),
        *power_rows(s),
        *load_rows(s),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        click.echo(f"{k:<{width}}  {v}")
    if run_dir is not None:
        click.echo(f"{'run folder':<{width}}  {run_dir}")


def fan_rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    """The fan's line, for a board whose profile has one (``[fan]``)."""
    if "fan_switches" not in s:
        return []
    stalled = ", stalled" if s.get("fan_stalled") else ""
    duty = (  # a PWM fan its board curve drives (kind = "pwm")
        f", duty mean {_fmt(s['fan_duty_mean'])} ({_fmt(s['fan_duty_changes_per_hour'], ' writes/h')})"
        if "fan_duty_mean" in s
        else ""
    )
    return [
        (
            "fan",
            f"{s.get('fan_owner', '?')}-driven, {s['fan_switches']} switches "
            f"({_fmt(s['fan_switches_per_hour'], '/h')}), mean level {_fmt(s['fan_level_mean'])}{duty}, "
            f"{_fmt(s.get('fan_energy_j'), ' J')}{stalled}",
        )
    ]


def latency_rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    """Where a request's time goes (mean ms) and how it was batched (docs/workload.md)."""
    lat = s.get("latency_ms") or {}
    means = [(lat.get(part) or {}).get("mean") for part in ("queueing", "compute", "prepost")]
    b = s.get("batching") or {}
    rows = []
    if any(m is not None for m in means):
        rows.append(("latency queue/compute/pre-post", " / ".join(_fmt(m) for m in means) + " ms (mean)"))
    if b:
        rows.append(("batching", f"{b['mode']}, mean batch {_fmt(b['mean_batch'])} (max {b['max_batch']})"))
    return rows


def power_rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    """Battery and budget lines of the summary, on runs that have them."""
    rows = []
    if s.get("battery_soc_end") is not None:
        rows.append(("battery at end", _fmt(100.0 * s["battery_soc_end"], " %")))
    if s.get("battery_empty_at_s") is not None:
        rows.append(("battery runtime", _fmt(s["battery_empty_at_s"], " s")))
    if s.get("budget_s"):
        rows.append(
            (
                "power budget",
                f"mean {_fmt(s['budget_mean_w'], ' W')} over {_fmt(s['budget_s'], ' s')}, worst window "
                f"{_fmt(100.0 * s['budget_max_window_ratio'], ' %')} of the budget",
            )
        )
    crossings = s.get("liion_limit_crossings") or {}
    if crossings:
        what = ", ".join(f"{k} x{v}" for k, v in crossings.items())
        rows.append(("Li-ion limits crossed", f"{what}; {_fmt(s['liion_outside_s'], ' s')} outside"))
    return rows


def ended_text(s: dict[str, Any]) -> str:
    """``completed``, or why the run stopped early, with the instant for a battery that ran empty."""
    ended = s.get("ended", "completed")
    if ended == "battery empty" and s.get("battery_empty_at_s") is not None:
        return f"battery empty at {s['battery_empty_at_s']:g} s"
    return str(ended)


def load_rows(s: dict[str, Any]) -> list[tuple[str, str]]:
    """Inference modes and the lever below the lowest clock, on runs where they acted."""
    rows = []
    modes = s.get("mode_time_s") or {}
    if s.get("modes_enabled") or len(modes) > 1 or s.get("load_level_time_s"):
        rows.append(("time in each mode", ", ".join(f"{m} {_fmt(v, ' s')}" for m, v in modes.items())))
        rows.append(
            (
                "accuracy-weighted",
                f"{_fmt(s['accuracy_weighted_inferences'])} inferences, "
                f"{_fmt(s['accuracy_weighted_throughput_ips'], ' inf/s')}",
            )
        )
    levels = s.get("load_level_time_s") or {}
    if len(levels) > 1:
        # The five levels held longest (a fine duty ladder has dozens); summary.json has all.
        top = sorted(levels.items(), key=lambda kv: -kv[1])[:5]
        more = f", +{len(levels) - len(top)} more" if len(levels) > len(top) else ""
        rows.append(("longest load levels", ", ".join(f"{k} {_fmt(v, ' s')}" for k, v in top) + more))
    return rows


def end_message(s: dict[str, Any]) -> str | None:
    """The one line a run that ended early leaves on stderr (the summary says it too)."""
    if s.get("ended") == "battery empty":
        return (
            f"thermogov sim: the battery ran empty after {s['battery_empty_at_s']:g} s of simulated time "
            f"({s.get('inferences_total', 0)} inferences); the run ends there"
        )
    return None


def _load_config(config_path: str | None) -> Config:
    from thermogov.config import load_config

    return load_config(config_path) if config_path else Config()


@click.command(
    "sim",
    epilog="""\b
Example:
  thermogov sim --board rpi5 --duration 30m --ambient 35 --policy hysteresis --out traces""",
)
@board_options(BOARD_HELP + " Default: jetson-orin-nano.")
@click.option("--duration", help="Simulated time: 600, 600s, 10m, 1h. Default: 10m.")
@click.option("--ambient", type=float, help="Ambient temperature in °C. Default: 25.")
@click.option(
    "--policy",
    help="Policy name (hysteresis, performance, fixed:<MHz>, ...), or a variant setting its "
    "[policies.NAME] keys: stepped+release_frontier=true.",
)
@click.option("--seed", type=int, help="Random seed (sensor noise, arrivals). Default: 1.")
@click.option(
    "--config", "config_path", type=GivenPath(dir_okay=False), help="Config TOML (e.g. a run's config.toml)."
)
@click.option("--scenario", help="A scenario from sim/scenarios (see `thermogov compare --list`).")
@click.option(
    "--out", type=GivenPath(file_okay=False), help="Folder the run folder goes into. Default: traces."
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def sim_command(
    board: str | None,
    board_file: str | None,
    duration: str | None,
    ambient: float | None,
    policy: str | None,
    seed: int | None,
    config_path: str | None,
    scenario: str | None,
    out: str | None,
    as_json: bool,
) -> None:
    """Simulate a board with the governor in the loop and record a run folder."""
    cfg = _load_config(config_path)
    cfg = apply_overrides(
        cfg,
        board=merge_board(board, board_file),
        duration=duration,
        ambient=ambient,
        policy=policy,
        seed=seed,
        scenario=scenario,
        out=out,
    )
    check_before_run(cfg, out_field="--out" if out is not None else "run.out")
    result = run_with_progress(cfg, show=not as_json)
    if as_json:
        click.echo(json.dumps(result.summary, indent=2))
    else:
        print_summary(result.summary, result.run_dir)
    if (msg := end_message(result.summary)) is not None:
        click.echo(msg, err=True)
