"""``thermogov compare``: paired policy comparisons from the command line.

It validates every scenario, policy and number before simulating anything, so a typo costs an
exit status 2 and one line, not half an hour of simulation and a half-written CSV.  The work
itself lives in :mod:`thermogov.sim.compare`; this module only parses and prints.

``--iso-limit`` is off by default here: the plain rows are the kernel governors as configured
(what a board ships with), and the iso-limit bisection costs ~7 simulations per baseline and
scenario.  ``bench/control_quality.py``, which backs the product claim, turns it on.

The runs go through the sweep executors (``--executor local|dask``, ``--workers``,
``--scheduler``), so a suite with ``--iso-limit`` bisections can use a Dask cluster too.
What-if grids over config and board keys are ``thermogov sweep`` (:mod:`thermogov.sim.sweep`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import click

from thermogov.config import Config, load_config
from thermogov.interfaces import ConfigError
from thermogov.policies import check_policy_name
from thermogov.sim.compare import compare, format_table, run_grid, write_csv
from thermogov.sim.runner import validate_events
from thermogov.sim.scenarios import load_scenario, scenario_info, scenario_names
from thermogov.sim.sweep.executors import EXECUTORS, make_executor
from thermogov.units import parse_duration_s


def _base(config_path: str | None, seed: int | None) -> Config:
    cfg = load_config(config_path) if config_path else Config()
    if seed is not None:
        if seed < 0:
            raise ConfigError("--seed: must be >= 0")
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
    click.option(
        "--executor",
        type=click.Choice(EXECUTORS),
        default="local",
        show_default=True,
        help="local: processes on this machine; dask: a Dask cluster (see `thermogov sweep`).",
    ),
    click.option(
        "--workers",
        "--jobs",
        "workers",
        type=click.IntRange(1, 4096),
        default=1,
        show_default=True,
        help="Parallel runs (local processes, or a LocalCluster's workers).",
    ),
    click.option("--scheduler", help="Dask scheduler address (tcp://host:8786); default: a LocalCluster."),
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
    executor: str,
    workers: int,
    scheduler: str | None,
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
    if scheduler and executor != "dask":
        raise ConfigError("--scheduler: only with --executor dask")
    with make_executor(executor, workers, scheduler) as ex:
        rows, oracles = run_grid(
            configs,
            pols,
            Path(out) if out else None,
            with_oracle=not no_oracle,
            iso_limit=iso_limit,
            progress=lambda msg: click.echo(msg, err=True),
            executor=ex,
        )
    click.echo(format_table(rows, oracles), nl=False)
    path = _csv_path(csv_path, out, "compare.csv")
    write_csv(rows, path)
    click.echo(f"csv: {path}")


__all__ = ["compare", "compare_command"]
