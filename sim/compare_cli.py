"""``thermogov compare`` and ``thermogov sweep``: paired policy comparisons from the command line.

Both validate every scenario, policy and number before simulating anything, so a typo costs an
exit status 2 and one line, not half an hour of simulation and a half-written CSV.  The work
itself lives in :mod:`thermogov.sim.compare`; this module only parses and prints.

``--iso-limit`` is off by default here: the plain rows are the kernel governors as configured
(what a board ships with), and the iso-limit bisection costs ~7 simulations per baseline and
scenario.  ``bench/control_quality.py``, which backs the product claim, turns it on.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path

import click

from thermogov.config import Config, load_config
from thermogov.interfaces import ConfigError
from thermogov.policies import check_policy_name
from thermogov.sim.compare import compare, format_table, run_grid, safe_name, write_csv
from thermogov.sim.runner import validate_events
from thermogov.sim.scenarios import load_scenario, scenario_info, scenario_names
from thermogov.units import parse_duration_s


def _base(config_path: str | None, seed: int | None) -> Config:
    cfg = load_config(config_path) if config_path else Config()
    if seed is not None:
        if not 0 <= seed <= 2**32 - 1:
            raise ConfigError("--seed: must be in 0..4294967295")
        cfg = dataclasses.replace(cfg, seed=seed)
    return cfg


def _scenarios(names: tuple[str, ...]) -> list[str]:
    known = scenario_names()
    if not names or "all" in names:
        return known
    for n in names:
        if n not in known:
            raise ConfigError(f"--scenario: unknown scenario {n!r}; choose one of {', '.join(known)} or all")
    return list(dict.fromkeys(names))


def _policies(policies: tuple[str, ...]) -> list[str]:
    if not policies:
        raise ConfigError("--policy: give at least one policy, e.g. --policy hysteresis --policy stepped")
    for p in policies:
        check_policy_name(p, "--policy")
    return list(dict.fromkeys(policies))


def _with_duration(cfg: Config, duration: str | None) -> Config:
    if duration is None:
        return cfg
    return dataclasses.replace(
        cfg, sim=dataclasses.replace(cfg.sim, duration_s=parse_duration_s(duration, "--duration"))
    )


def _floats(text: str, field: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError as e:
        raise ConfigError(
            f"{field}: cannot read {text!r}; write a comma-separated list such as 20,30,40"
        ) from e
    if not values:
        raise ConfigError(f"{field}: give at least one value, e.g. 20,30,40")
    if not all(math.isfinite(v) and abs(v) <= 2**32 for v in values):
        raise ConfigError(f"{field}: {text!r} holds a non-finite or huge value; write plain numbers")
    return values


def _csv_path(csv_path: str | None, out: str | None, default: str) -> Path:
    if csv_path:
        return Path(csv_path)
    return (Path(out) if out else Path.cwd()) / default


_COMMON = [
    click.option("--policy", "policies", multiple=True, help="A policy to run (repeat for several)."),
    click.option("--out", type=click.Path(file_okay=False), help="Keep every run folder under this folder."),
    click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="CSV path (default: OUT or ./)."),
    click.option("--seed", type=int, help="Seed shared by every run (paired comparison). Default: 1."),
    click.option("--duration", help="Override every run's simulated time (600, 10m, 1h)."),
    click.option(
        "--config", "config_path", type=click.Path(dir_okay=False), help="Base config (policy params...)."
    ),
    click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True, help="Parallel runs."),
    click.option("--no-oracle", is_flag=True, help="Skip the oracle (its linear programme takes seconds)."),
    click.option(
        "--iso-limit/--no-iso-limit",
        default=False,
        show_default=True,
        help="Also run each kernel baseline (step_wise, bang_bang, power_allocator) as <policy>@iso, "
        "its trip lowered until it spends no more time above 85 °C than hysteresis (~7 runs each).",
    ),
]


def _common(fn: Callable[..., None]) -> Callable[..., None]:
    for opt in reversed(_COMMON):
        fn = opt(fn)
    return fn


@click.command("compare")
@click.option(
    "--scenario", "scenarios", multiple=True, help="Scenario name or 'all' (repeatable). Default: all."
)
@click.option("--list", "list_only", is_flag=True, help="List the scenarios and exit.")
@_common
def compare_command(
    scenarios: tuple[str, ...],
    list_only: bool,
    policies: tuple[str, ...],
    out: str | None,
    csv_path: str | None,
    seed: int | None,
    duration: str | None,
    config_path: str | None,
    jobs: int,
    no_oracle: bool,
    iso_limit: bool,
) -> None:
    """Run policies on identical scenarios (same seed) and tabulate them against the oracle."""
    if list_only:
        for n in scenario_names():
            click.echo(f"{n:<22} {scenario_info(n).description}")
        return
    base = _base(config_path, seed)
    names = _scenarios(scenarios)
    pols = _policies(policies)
    configs = []
    for n in names:
        cfg = _with_duration(load_scenario(n, base), duration)
        validate_events(cfg, cfg.load_board())
        configs.append((n, cfg))
    rows, oracles = run_grid(
        configs,
        pols,
        Path(out) if out else None,
        jobs=jobs,
        with_oracle=not no_oracle,
        iso_limit=iso_limit,
        progress=lambda msg: click.echo(msg, err=True),
    )
    click.echo(format_table(rows, oracles), nl=False)
    path = _csv_path(csv_path, out, "compare.csv")
    write_csv(rows, path)
    click.echo(f"csv: {path}")


@click.command("sweep")
@click.option("--scenario", help="Scenario to vary (default: the base config's world).")
@click.option("--ambient", help="Ambient temperatures in °C, comma-separated (e.g. 20,30,40).")
@click.option("--seeds", help="Seeds, comma-separated (e.g. 1,2,3); overrides --seed.")
@_common
def sweep_command(
    scenario: str | None,
    ambient: str | None,
    seeds: str | None,
    policies: tuple[str, ...],
    out: str | None,
    csv_path: str | None,
    seed: int | None,
    duration: str | None,
    config_path: str | None,
    jobs: int,
    no_oracle: bool,
    iso_limit: bool,
) -> None:
    """What-if grid: every policy at every ambient (and seed), one CSV row per run."""
    base = _base(config_path, seed)
    if scenario is not None:
        _scenarios((scenario,))
        base = load_scenario(scenario, base)
    base = _with_duration(base, duration)
    pols = _policies(policies)
    ambients = _floats(ambient, "--ambient") if ambient else [base.sim.ambient_c]
    for a in ambients:
        if not -40.0 <= a <= 85.0:
            raise ConfigError(f"--ambient: {a:g} °C is out of range; use -40..85")
    seed_list = [int(s) for s in _floats(seeds, "--seeds")] if seeds else [base.seed]
    if any(not 0 <= s <= 2**32 - 1 for s in seed_list):
        raise ConfigError("--seeds: seeds must be in 0..4294967295")
    configs = []
    for a in ambients:
        for s in seed_list:
            cfg = dataclasses.replace(base, seed=s, sim=dataclasses.replace(base.sim, ambient_c=a))
            validate_events(cfg, cfg.load_board())
            configs.append((f"{scenario or 'base'}@{a:g}C-s{s}", cfg))
    rows, oracles = run_grid(
        configs,
        pols,
        Path(out) if out else None,
        jobs=jobs,
        with_oracle=not no_oracle,
        iso_limit=iso_limit,
        progress=lambda msg: click.echo(msg, err=True),
    )
    click.echo(format_table(rows, oracles), nl=False)
    path = _csv_path(csv_path, out, f"sweep-{safe_name(scenario or 'base')}.csv")
    write_csv(rows, path)
    click.echo(f"csv: {path}")


__all__ = ["compare", "compare_command", "sweep_command"]
