"""How well the calibration generalises: every real log with a load change, fitted on its first 40 %.

Run: ``python bench/fidelity.py [--data DIR] [--holdout 0.6] [--only SUBSTRING] [--json] [--fleet]``.
The logs are read from ``$THERMOGOV_REAL_DATA`` (``tests/realdata.py``) or ``--data``; the bench
says so and exits 0 when the folder does not exist.

Per log: the board (named by the log, else by the board the log's source says it was recorded
on, see :data:`RECORDED_ON`), held-out RMSE of the open-loop prediction over the last 60 %,
the persistence baseline (last training reading held), skill ``1 - rmse/persistence``, the
steady-state error where the log reaches one, and the fit's CPU time (``time.process_time``:
what the fit costs, less sensitive than wall time to other jobs on a shared machine; the
summary names the slowest fits).  Totals are checked
against issue 10's targets: held-out RMSE <= 1.5 °C on >= 80 % of the logs, skill > 0 on all,
steady state within 2 °C.  A log that cannot be calibrated is a row with its one-line cause
and counts as a miss.  The totals also carry the sum of the held-out RMSEs and the number of logs
it covers (``rmse_sum_c``, ``fitted``): the figure two versions of the fit are compared by, which
means something only where both versions fitted the same logs.

``--fleet`` first fits every candidate log on its whole length, then judges each log with the
profile's priors corrected by the same board's *other* logs only (leave-one-out,
:mod:`thermogov.sim.calibration.fleet`); the corrections the whole fleet implies for each
profile are printed to stderr.

Beside each skill, two diagnostics of the baseline's luck (:mod:`thermogov.sim.calibration.baseline`,
read from the held-out tail, never counted): the median RMSE of holding each of the last 10
training readings instead of the last, and the best constant forecast in hindsight (the tail's
own spread); and the grid the sensor's readings lie on with what it costs a continuous forecast
(:mod:`thermogov.sim.calibration.resolution`); the model's and persistence's mean error over the
tail, how close to the tail's mean a constant must lie to beat persistence, and the tail's
sample-to-sample scatter (session 29p).  The text names them for every log without skill.
For every log over the RMSE target the text splits its held-out error into a level, a drift and
the rest (:mod:`thermogov.sim.calibration.tailparts`, session 30f): a fitted ambient or path to
air that is off shows as level, a capacitance or slow mode that is off as drift, a missed step as
rest.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.realdata import REAL_DATA  # noqa: E402  (the one locator of the real-log folder)

TARGET_RMSE_C = 1.5
TARGET_SHARE = 0.8
TARGET_STEADY_C = 2.0
TARGET_FIT_S = 10.0  # issue 10: a fit of a one-hour log takes <= 10 s of CPU
SLOWEST = 3  # the summary names this many of the slowest fits

# Logs that do not name their board (stressberry's free-text name, home-made CSV loggers): the
# board their source recorded them on (SOURCES.md beside the logs), by file-name prefix.
RECORDED_ON: tuple[tuple[str, str], ...] = (
    (r"^rpi_3b_", "rpi3"),  # not rpi_3bplus_: the B+ is another board (no profile)
    (r"^rpi_4b", "rpi4"),
    (r"^rpi_cm5_", "rpi5"),  # Compute Module 5: the Pi 5's BCM2712 and its firmware throttle
)
SKIP_PREFIXES = ("sysfs_",)  # single sysfs snapshots, not time series


@dataclass
class Row:
    log: str
    board: str
    rows: int = 0
    span_s: float = 0.0
    rmse_c: float | None = None
    persistence_c: float | None = None
    skill: float | None = None
    steady_err_c: float | None = None
    fit_s: float = 0.0
    variant: str | None = None
    persistence_recent_median_c: float | None = None  # holding one of the last 10 training readings, median
    flat_floor_c: float | None = None  # the tail's own mean held: no constant forecast scores below it
    sensor_step_c: float | None = None  # the grid the readings lie on (resolution.reading_step), if any
    quantisation_floor_c: float | None = None  # what that grid costs a continuous forecast (step / sqrt 12)
    model_offset_c: float | None = None  # the forecast's mean error over the tail (baseline.tail_offset)
    persistence_offset_c: float | None = None  # the last training reading less the tail's mean
    tie_band_c: float | None = None  # a constant within this of the tail's mean beats persistence
    scatter_c: float | None = None  # the tail's sample-to-sample scatter (baseline.sample_scatter)
    # The held-out error split (tailparts.tail_parts): level² + drift² + rest² = held-out RMSE²
    tail_level_c: float | None = None
    tail_drift_c: float | None = None
    tail_rest_c: float | None = None
    cause: str = ""

    @property
    def ok_rmse(self) -> bool:
        return self.rmse_c is not None and self.rmse_c <= TARGET_RMSE_C

    @property
    def ok_skill(self) -> bool:
        return self.skill is not None and self.skill > 0


def board_for(path: Path, hint: str | None) -> str | None:
    from thermogov.board import builtin_board_names
    from thermogov.importers.models import profile_for

    names = builtin_board_names()
    name, _why = profile_for(hint, names)
    if name is not None:
        return name
    for pattern, board in RECORDED_ON:
        if re.search(pattern, path.name) and board in names:
            return board
    return None


def has_load_change(data: Any, board: Any) -> bool:
    """Whether anything drives the model: a varying logged input or a step seen in the temperature."""
    from thermogov.interfaces import ThermogovError
    from thermogov.sim.calibration.inputs import derive_inputs

    try:
        return bool(derive_inputs(data, board).varying)
    except ThermogovError:
        return False


def candidate(path: Path) -> tuple[Any, Any] | None:
    """(log data, board profile), or None when the log is no calibration candidate (no board, no
    temperature, no load change)."""
    import numpy as np

    from thermogov.board import load_board
    from thermogov.importers import parse_log
    from thermogov.interfaces import ThermogovError
    from thermogov.sim.calibration.calibrate import load_log_data

    try:
        hint = parse_log(path).board_hint
        data = load_log_data(path)
    except ThermogovError:
        return None
    name = board_for(path, hint)
    if name is None:
        return None
    board = load_board(name)
    if not any(np.isfinite(v).any() for v in data.temps_c.values()) or not has_load_change(data, board):
        return None
    return data, board


def fleet_fits(logs: list[tuple[Path, Any, Any]]) -> list[Any]:
    """Every log fitted on its whole length: the fleet the leave-one-out priors are drawn from."""
    from thermogov.interfaces import ThermogovError
    from thermogov.sim.calibration.calibrate import calibrate
    from thermogov.sim.calibration.fleet import fleet_fit, product_of

    fits = []
    for path, data, board in logs:
        try:
            r = calibrate(data, board, holdout=0.0)
        except ThermogovError:
            continue
        product = product_of(data.model, board.name)
        fits.append(fleet_fit(path.name, board.name, r.variant or board.enclosure, r.params, product))
        print(f"  fleet: {path.name} ({len(fits[-1].ratios)} parameters from its data)", file=sys.stderr)
    return fits


def measure(path: Path, holdout: float, fleet: list[Any] | None = None) -> Row | None:
    """One log's row, or None when it is no calibration candidate (no board, no temperature, no load change).

    With ``fleet`` the profile's priors are corrected by the board's *other* logs
    (:mod:`thermogov.sim.calibration.fleet`, leave-one-out by file name)."""
    from thermogov.interfaces import ThermogovError
    from thermogov.sim.calibration.calibrate import calibrate

    got = candidate(path)
    if got is None:
        return None
    data, board = got
    name = board.name
    if fleet is not None:
        from thermogov.sim.calibration.fleet import board_side_nodes, loo_ratios, product_of, with_ratios

        product, nodes = product_of(data.model, name), board_side_nodes(board)
        board = with_ratios(board, loo_ratios(fleet, name, path.name, product, nodes))
    row = Row(path.name, name, len(data.t_s), float(data.t_s[-1] - data.t_s[0]))
    t0 = time.process_time()
    try:
        r = calibrate(data, board, holdout=holdout)
    except ThermogovError as e:
        row.cause = str(e).replace(str(path), path.name)
        row.fit_s = time.process_time() - t0
        return row
    row.fit_s = time.process_time() - t0
    row.rmse_c, row.persistence_c, row.skill = r.rmse_holdout_c, r.rmse_persistence_c, r.skill
    row.variant = r.variant
    baseline_luck(row, r)
    if r.steady is not None and r.steady.error_c is not None:
        row.steady_err_c = r.steady.error_c
    return row


def baseline_luck(row: Row, result: Any) -> None:
    """The row's diagnostics of how lucky its persistence baseline was (module docstring)."""
    import numpy as np

    from thermogov.sim.calibration.baseline import (
        hindsight_flat_rmse,
        persistence_offset,
        recent_persistence,
        sample_scatter,
        tail_offset,
        tie_band,
    )
    from thermogov.sim.calibration.resolution import quantisation_floor, reading_step
    from thermogov.sim.calibration.tailparts import tail_parts

    t = result.t_s
    train = t <= t[0] + result.holdout_from_s  # the fit's own training mask (FitProblem.build)
    recent = recent_persistence(result.measured_c, train)
    row.persistence_recent_median_c = float(np.median(recent)) if len(recent) else None
    row.flat_floor_c = hindsight_flat_rmse(result.measured_c, train)
    row.sensor_step_c = reading_step(result.measured_c)
    row.quantisation_floor_c = quantisation_floor(row.sensor_step_c)
    row.model_offset_c = tail_offset(result.predicted_c, result.measured_c, train)
    row.persistence_offset_c = persistence_offset(result.measured_c, train)
    row.tie_band_c = tie_band(result.measured_c, train)
    row.scatter_c = sample_scatter(result.measured_c, train)
    parts = tail_parts(t, result.predicted_c, result.measured_c, train)
    if parts is not None:
        row.tail_level_c, row.tail_drift_c, row.tail_rest_c = parts.level_c, parts.drift_c, parts.rest_c


def luck_lines(rows: list[Row]) -> list[str]:
    """One line per log without skill: its baseline against the two diagnostics."""
    return [
        f"  {r.log}: model {_f(r.rmse_c)} °C, persistence {_f(r.persistence_c)}, holding one of the last 10 "
        f"training readings (median) {_f(r.persistence_recent_median_c)}, best constant in hindsight "
        f"{_f(r.flat_floor_c)}, sensor step {_f(r.sensor_step_c, '{:.3f}')} (quantisation "
        f"{_f(r.quantisation_floor_c, '{:.3f}')}); mean error over the tail: model "
        f"{_f(r.model_offset_c, '{:+.3f}')}, persistence {_f(r.persistence_offset_c, '{:+.3f}')} (a constant "
        f"beats persistence only within {_f(r.tie_band_c, '{:.3f}')} of the tail's mean), sample-to-sample "
        f"scatter {_f(r.scatter_c, '{:.2f}')}"
        for r in rows
        if r.rmse_c is not None and not r.ok_skill
    ]


def miss_lines(rows: list[Row]) -> list[str]:
    """One line per log over the RMSE target: its held-out error as level, drift and rest."""
    return [
        f"  {r.log}: {_f(r.rmse_c)} °C = level {_f(r.tail_level_c, '{:+.2f}')}, drift "
        f"{_f(r.tail_drift_c, '{:+.2f}')}, rest {_f(r.tail_rest_c)} (root of the sum of squares)"
        for r in rows
        if r.rmse_c is not None and not r.ok_rmse
    ]


def _f(v: float | None, fmt: str = "{:.2f}") -> str:
    return "—" if v is None or not math.isfinite(v) else fmt.format(v)


def table(rows: list[Row]) -> str:
    head = (
        "| log | board | rows | span s | held-out RMSE °C | persistence °C | skill | steady err °C | fit s |"
    )
    out = [head, "|" + "---|" * 9]
    for r in rows:
        board = r.board + (f" ({r.variant})" if r.variant else "")
        rmse = _f(r.rmse_c) if not r.cause else f"refused: {r.cause}"
        out.append(
            f"| {r.log} | {board} | {r.rows} | {r.span_s:.0f} | {rmse} | {_f(r.persistence_c)} | "
            f"{_f(r.skill, '{:+.2f}')} | {_f(r.steady_err_c, '{:+.2f}')} | {r.fit_s:.1f} |"
        )
    return "\n".join(out)


def totals(rows: list[Row]) -> dict[str, Any]:
    n = len(rows)
    steady = [r.steady_err_c for r in rows if r.steady_err_c is not None]
    ok_rmse = sum(r.ok_rmse for r in rows)
    ok_skill = sum(r.ok_skill for r in rows)
    ok_steady = sum(abs(e) <= TARGET_STEADY_C for e in steady)
    fitted = [r.rmse_c for r in rows if r.rmse_c is not None]
    return {
        "logs": n,
        "rmse_ok": ok_rmse,
        "rmse_share": ok_rmse / n if n else 0.0,
        # The sum compares two versions of the fit only beside the number of logs it covers: a log
        # a version refuses leaves the sum, and would otherwise read as a gain.
        "rmse_sum_c": float(sum(fitted)),
        "fitted": len(fitted),
        "skill_positive": ok_skill,
        "steady_measured": len(steady),
        "steady_ok": ok_steady,
        "max_fit_s": max((r.fit_s for r in rows), default=0.0),
        "slowest_fits": [(r.log, round(r.fit_s, 2)) for r in sorted(rows, key=lambda r: -r.fit_s)[:SLOWEST]],
        "targets_met": n > 0 and ok_rmse >= TARGET_SHARE * n and ok_skill == n and ok_steady == len(steady),
    }


def add_log_options(ap: argparse.ArgumentParser) -> None:
    """``--data``, ``--holdout`` and ``--only``: which logs and how much of each is held out (also bench/ridge.py)."""
    ap.add_argument("--data", type=Path, default=REAL_DATA, help="folder of real logs")
    ap.add_argument("--holdout", type=float, default=0.6, help="tail fraction kept out of the fit")
    ap.add_argument(
        "--only", default="", help="only logs whose file name contains one of these (comma-separated)"
    )


def real_logs(folder: Path) -> list[Path]:
    """The files of ``folder`` that may be logs: not its notes, not single sysfs snapshots."""
    return [
        p
        for p in sorted(folder.iterdir())
        if p.is_file() and p.suffix != ".md" and not p.name.startswith(SKIP_PREFIXES)
    ]


def wanted(path: Path, only: str) -> bool:
    """Whether ``--only`` keeps the log (empty: every log)."""
    return not only or any(part in path.name for part in only.split(","))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_log_options(ap)
    ap.add_argument("--json", action="store_true", help="rows and totals as JSON")
    ap.add_argument(
        "--fleet",
        action="store_true",
        help="priors corrected by the same board's other logs, each fitted whole (leave-one-out)",
    )
    args = ap.parse_args()
    if not args.data.is_dir():
        print(f"{args.data}: no real logs here (set THERMOGOV_REAL_DATA); nothing to measure")
        return 0
    rows: list[Row] = []
    paths = real_logs(args.data)
    fleet = None
    if args.fleet:  # every candidate, also those --only leaves out: they are the other logs
        fleet = fleet_fits([(p, *got) for p in paths if (got := candidate(p)) is not None])
        from thermogov.sim.calibration.fleet import describe, loo_ratios

        for board in sorted({f.board for f in fleet}):  # what the whole fleet says of each profile
            print(
                f"  fleet correction of {board} (all its logs): {describe(loo_ratios(fleet, board, ''))}",
                file=sys.stderr,
            )
    for path in paths:
        if not wanted(path, args.only):
            continue
        row = measure(path, args.holdout, fleet)
        if row is not None:
            rows.append(row)
            if not args.json:
                skill = _f(row.skill, "{:+.2f}")
                print(f"  {row.log}: {_f(row.rmse_c)} °C, skill {skill}, {row.fit_s:.1f} s", file=sys.stderr)
    tot = totals(rows)
    if args.json:
        print(json.dumps({"rows": [r.__dict__ for r in rows], "totals": tot}, indent=2))
        return 0
    print(table(rows))
    print()
    print(
        f"held-out RMSE <= {TARGET_RMSE_C} °C: {tot['rmse_ok']}/{tot['logs']} ({tot['rmse_share']:.0%}, target >= "
        f"{TARGET_SHARE:.0%}); skill > 0: {tot['skill_positive']}/{tot['logs']} (target all); steady state within "
        f"{TARGET_STEADY_C} °C: {tot['steady_ok']}/{tot['steady_measured']} measured; slowest fit {tot['max_fit_s']:.1f} s; "
        f"targets {'met' if tot['targets_met'] else 'NOT met'}"
    )
    print(
        f"sum of held-out RMSE: {tot['rmse_sum_c']:.3f} °C over {tot['fitted']} fitted logs of {tot['logs']}"
    )
    slow = ", ".join(f"{name} {sec:.1f} s" for name, sec in tot["slowest_fits"])
    print(f"slowest fits (CPU, target <= {TARGET_FIT_S:g} s for a log up to an hour): {slow}")
    if misses := miss_lines(rows):
        print(
            "the misses' held-out error as level, drift and rest (tailparts; positive = forecast too warm):"
        )
        print("\n".join(misses))
    if lucky := luck_lines(rows):
        print("the baseline's luck where skill <= 0 (diagnostics; skill stays 1 - RMSE/persistence):")
        print("\n".join(lucky))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
