"""``thermogov sweep SWEEP.toml``: what-if sweeps on this machine's cores or on a Dask cluster.

The whole file is validated (every point resolved and checked) before the executor starts, so a
bad file costs one line and exit status 2.  Progress (points done, failures, time left) goes to
stderr; the result lines (or ``--json``) to stdout.  Exit status 1 when any point failed (its
error is in the table's ``error`` column); the other points still ran.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from thermogov.cliopts import GivenPath, check_out_dir
from thermogov.display import figure
from thermogov.sim.sweep import table
from thermogov.sim.sweep.engine import SweepRun, probe_s_per_sim_s, run_sweep
from thermogov.sim.sweep.executors import EXECUTORS, check_executor, cpu_count, make_executor
from thermogov.sim.sweep.point import PointResult
from thermogov.sim.sweep.spec import Sweep, describe, load_sweep


def fig(v: Any) -> str:
    """A number as every table prints it (:func:`thermogov.display.figure`); text unchanged."""
    return v if isinstance(v, str) else figure(v)


def _default_out(sweep: Sweep) -> Path:
    return Path("traces") / "sweeps" / sweep.name


@click.command(
    "sweep",
    epilog="""\b
Example:
  thermogov sweep examples/ambient-heatsink-sweep.toml --dry-run
  thermogov sweep examples/ambient-heatsink-sweep.toml --workers 2 --out traces/sweeps/example
  thermogov sweep SWEEP.toml --executor dask --scheduler tcp://10.0.0.5:8786 --out /shared/sweep""",
)
@click.argument("sweep_file", metavar="SWEEP.toml")
@click.option(
    "--executor",
    type=click.Choice(EXECUTORS),
    default="local",
    show_default=True,
    help="local: worker processes on this machine; dask: a Dask distributed cluster.",
)
@click.option("--workers", type=click.IntRange(1, 4096), help="Worker processes (default: all cores).")
@click.option("--scheduler", help="Dask scheduler address (tcp://host:8786); default: a LocalCluster.")
@click.option("--out", type=GivenPath(file_okay=False), help="Output folder (default: traces/sweeps/NAME).")
@click.option("--resume", is_flag=True, help="Reuse every point whose run folder is complete.")
@click.option(
    "--dry-run", is_flag=True, help="Print the number of points and the estimated time; run nothing."
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def sweep_command(
    sweep_file: str,
    executor: str,
    workers: int | None,
    scheduler: str | None,
    out: str | None,
    resume: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Run every point of a sweep file as a normal run and tabulate them (CSV, Parquet)."""
    check_executor(executor, scheduler)
    sweep = load_sweep(sweep_file)
    out_dir = Path(out) if out else _default_out(sweep)
    if dry_run:
        _dry_run(sweep, executor, workers, scheduler, as_json)
        return
    check_out_dir(out_dir)
    with make_executor(executor, workers, scheduler) as ex:
        click.echo(f"sweep {sweep.name}: {len(sweep.points)} points on {ex.describe()}", err=True)
        run = _run_with_bar(sweep, ex, out_dir, resume)
    _report(run, as_json)
    if run.failed:
        click.echo(
            f"thermogov: error: {run.failed} of {len(sweep.points)} points failed; "
            f"see the error column of {run.paths[0]}",
            err=True,
        )
        sys.exit(1)


def _run_with_bar(sweep: Sweep, ex: Any, out_dir: Path, resume: bool) -> SweepRun:
    n = len(sweep.points)
    state = {"done": 0, "failed": 0}

    def status(_: Any) -> str:
        return f"{state['done']}/{n} done, {state['failed']} failed"

    with click.progressbar(
        length=n, label="points", file=sys.stderr, show_eta=True, item_show_func=status
    ) as bar:

        def on_result(r: PointResult) -> None:
            state["done"] += 1
            state["failed"] += 0 if r.ok else 1
            bar.update(1, r)

        try:
            return run_sweep(sweep, ex, out_dir, resume=resume, on_result=on_result)
        except KeyboardInterrupt:
            click.echo(
                f"\nthermogov: interrupted after {state['done']} of {n} points; the table has them, "
                "rerun with --resume for the rest",
                err=True,
            )
            sys.exit(130)


def _report(run: SweepRun, as_json: bool) -> None:
    sweep = run.sweep
    goal = f"{sweep.direction} {sweep.objective}" + (
        f" with {', '.join(str(c) for c in sweep.require)}" if sweep.require else ""
    )
    best = run.best
    best_params = None if best is None else {k.name: best[k.name] for k in sweep.keys}
    if as_json:
        doc = {
            "sweep": str(sweep.path),
            "points": len(sweep.points),
            "ran": run.ran,
            "reused": run.reused,
            "failed": run.failed,
            "wall_s": round(run.wall_s, 3),
            "tables": [str(p) for p in run.paths],
            "objective": sweep.objective,
            "direction": sweep.direction,
            "require": [str(c) for c in sweep.require],
            "best": None
            if best is None
            else {"point_id": best["point_id"], "params": best_params, **{k: best[k] for k in table.COLUMNS}},
        }
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(
        f"{len(sweep.points)} points: {run.ran} ran, {run.reused} reused, {run.failed} failed "
        f"in {fig(run.wall_s)} s"
    )
    for p in run.paths:
        click.echo(f"table: {p}")
    if best is None:
        click.echo(f"best ({goal}): no point qualifies")
        return
    click.echo(
        f"best ({goal}): {best['point_id']} {describe(best_params or {})}: "
        + ("" if sweep.objective == "sustained_ips" else f"{sweep.objective} {fig(best[sweep.objective])}, ")
        + f"sustained {fig(best['sustained_ips'])} inf/s, max fused {fig(best['max_fused_c'])} °C, "
        f"{fig(best['time_above_trip_s'])} s above trip"
    )


def _dry_run(sweep: Sweep, executor: str, workers: int | None, scheduler: str | None, as_json: bool) -> None:
    rate, probe_wall = probe_s_per_sim_s(sweep)
    sim_total = sum(p.world.config.sim.duration_s for p in sweep.points)
    n_workers = workers or (None if scheduler else cpu_count())
    per_worker = sim_total * rate
    estimate = per_worker / n_workers if n_workers else None
    if as_json:
        doc = {
            "points": len(sweep.points),
            "simulated_s": sim_total,
            "wall_s_per_simulated_s": rate,
            "workers": n_workers,
            "estimated_s": estimate,
            "estimated_s_one_worker": per_worker,
        }
        click.echo(json.dumps(doc, indent=2))
        return
    t0 = time.strftime("%H:%M:%S")
    click.echo(f"{len(sweep.points)} points, {fig(sim_total)} simulated seconds in all ({sweep.mode})")
    click.echo(
        f"probe at {t0}: {fig(probe_wall)} s wall for {fig(min(sweep.points[0].world.config.sim.duration_s, 60.0))} simulated s"
    )
    if estimate is None:
        click.echo(
            f"estimated: {fig(per_worker)} s on one worker; divide by the cluster's workers ({executor})"
        )
    else:
        click.echo(
            f"estimated: {fig(estimate)} s on {n_workers} {executor} worker{'s' if n_workers != 1 else ''}"
        )
