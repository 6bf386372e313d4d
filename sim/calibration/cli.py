"""``thermogov calibrate RUN --board B``: fit a board profile to a logged run and write it.

The command loads and checks everything (run, board, holdout) before fitting, and writes the
profile only after the fit succeeded and the written file has been read back by
:func:`thermogov.board.load_board_file`, so ``thermogov sim --board FILE`` is guaranteed to
accept what it wrote.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from thermogov.cliopts import GivenPath, board_options, check_out_dir, merge_board
from thermogov.display import figure
from thermogov.interfaces import ConfigError
from thermogov.steadystate import RUNAWAY_C

if TYPE_CHECKING:
    from thermogov.sim.calibration.steady import SteadyState


def _board(option: str | None, run: Path) -> Any:
    """``--board NAME|FILE``, else the board the run's summary names."""
    from thermogov.board import builtin_board_names, load_board
    from thermogov.cliopts import load_board_option

    if option is not None:  # '' is said to be empty (31h's rule), not taken as no --board (32h)
        return load_board_option(option)
    names = builtin_board_names()
    from thermogov.runs import SUMMARY_FILE

    summary = run / SUMMARY_FILE if run.is_dir() else run.parent / SUMMARY_FILE
    name = None
    if summary.is_file():
        try:
            named = json.loads(summary.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:  # a damaged run folder is bad input, not a crash
            raise ConfigError(
                f"{summary}: not readable as JSON ({e}); pass --board NAME|FILE, or import the log again"
            ) from None
        name = named.get("board") if isinstance(named, dict) else None
    if name not in names:
        raise ConfigError(
            f"--board: the run does not name a known board; pass one of {', '.join(names)} or a board TOML"
        )
    return load_board(name)


def _check_run_config(run: Path) -> None:
    """A run folder's ``config.toml`` is input too: refuse it with ``run --config``'s checks.

    The fit does not read it, but the folder is the evidence the profile is written from, and a
    hand-edited or damaged config (a NaN seed, a string for a period) says the folder is not the
    run it claims to be; fitting it anyway wrote a profile from a folder ``sim --config`` refuses.
    """
    from thermogov.config import load_config
    from thermogov.runs import CONFIG_FILE

    config = run / CONFIG_FILE
    if run.is_dir() and (config.exists() or config.is_symlink()):
        load_config(config)  # a ConfigError naming the file and the field


def result_dict(result: Any) -> dict[str, Any]:
    steady = result.steady
    return {
        "source": result.source,
        "board": result.board.name,
        "sensor": result.sensor,
        "enclosure": result.board.enclosure,
        "rmse_train_c": round(result.rmse_train_c, 3),
        "rmse_holdout_c": None if result.rmse_holdout_c is None else round(result.rmse_holdout_c, 3),
        "rmse_persistence_c": None
        if result.rmse_persistence_c is None
        else round(result.rmse_persistence_c, 3),
        "skill": None if result.skill is None else round(result.skill, 3),
        "drift_weight": result.drift_weight,
        "level_share": result.level_share,
        "holdout_from_s": round(result.holdout_from_s, 1),
        "ambient_c": round(result.ambient_c, 2),
        "time_constants_s": [round(t, 3) for t in result.time_constants_s],
        "params": [
            {
                "name": p.name,
                "unit": p.unit,
                "prior": p.prior,
                "value": p.value,
                "sd": p.sd,
                "determined_by": p.determined_by,
            }
            for p in result.params
        ],
        "steady_state": None
        if steady is None
        else {
            "segment_s": list(steady.segment_s),
            "window_s": list(steady.window_s),
            "predicted_c": None if _runs_away(steady) else round(steady.predicted_c, 2),
            "runaway": _runs_away(steady),
            "measured_c": None if steady.measured_c is None else round(steady.measured_c, 2),
            "error_c": None if steady.error_c is None or _runs_away(steady) else round(steady.error_c, 2),
        },
        "notes": list(result.notes),
        "held_out": held_out_series(result),
    }


def held_out_series(result: Any) -> dict[str, list[float]]:
    """The held-out readings and the forecast at each, seconds from the log's first reading.

    The RMSE is one number; where a forecast misses (a fan that never switches, a step that falls
    short, a drift the board does not show) is in the series, which a user plots or prints beside
    the log without refitting (docs/calibration.md, *Fourteenth session: the external misses*).
    Readings the sensor did not give (NaN) are left out, as they are from the RMSE."""
    import numpy as np

    t = np.asarray(result.t_s, dtype=float)
    since = t - t[0] if len(t) else t
    keep = (since > result.holdout_from_s) & np.isfinite(result.measured_c) & np.isfinite(result.predicted_c)
    return {
        "t_s": [round(float(v), 3) for v in since[keep]],
        "measured_c": [round(float(v), 3) for v in result.measured_c[keep]],
        "predicted_c": [round(float(v), 3) for v in result.predicted_c[keep]],
    }


def _runs_away(steady: SteadyState) -> bool:
    """Whether the fitted model's steady state is no temperature: past ``RUNAWAY_C`` its leakage
    outgrows the fitted cooling (a short log leaves the paths to ambient at their floor), and
    the number the model reaches (10^23 °C) would read as a prediction."""
    return not (math.isfinite(steady.predicted_c) and steady.predicted_c <= RUNAWAY_C)


@click.command(
    "calibrate",
    epilog="""\b
Example:
  thermogov import pi4-stressberry.dat --board rpi4 --out traces
  thermogov calibrate traces/<run folder> --out profiles
  thermogov sim --board profiles/rpi4-calibrated.toml""",
)
@click.argument("run", type=GivenPath())
@board_options("Board to start from: a built-in name or a board TOML. Default: the run's board.")
@click.option(
    "--holdout",
    type=float,
    default=0.3,
    show_default=True,
    help="Fraction of the log's tail kept out of the fit.",
)
@click.option(
    "--ambient", type=float, default=25.0, show_default=True, help="Prior for the ambient temperature (°C)."
)
@click.option(
    "--free-ambient",
    is_flag=True,
    help="Let the fit move the ambient far from --ambient (or the logged ambient): ±10 °C prior, "
    "±30 °C bound instead of ±2 / ±6 °C.",
)
@click.option(
    "--enclosure",
    help="The board's housing: the profile's [board] enclosure or one of its [enclosures.NAME] tables. "
    "Default: each is pre-fitted and the best kept.",
)
@click.option(
    "--out",
    type=GivenPath(file_okay=False),
    help="Folder for the profile, written as <out>/<board>-calibrated.toml. "
    "Default: the run folder (the current folder for a log file).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (no progress lines).")
def calibrate_command(
    run: str,
    board: str | None,
    board_file: str | None,
    holdout: float,
    ambient: float,
    free_ambient: bool,
    enclosure: str | None,
    out: str | None,
    as_json: bool,
) -> None:
    """Fit the board's thermal model to a logged run (from `thermogov import`) and write a profile.

    Progress goes to stderr, one line per stage (a long log takes minutes)."""
    from thermogov.board import load_board_file
    from thermogov.sim.calibration.calibrate import calibrate, calibrated_profile_text, load_log_data

    if not (math.isfinite(holdout) and 0.0 <= holdout < 0.9):
        raise ConfigError(f"--holdout: {holdout:g} must be in [0, 0.9)")
    if not (math.isfinite(ambient) and -40.0 <= ambient <= 85.0):
        raise ConfigError(f"--ambient: {ambient:g} °C is out of range; use -40..85")
    if out is not None and out.endswith(".toml"):
        raise ConfigError(
            f"--out: {out} looks like a file; --out names a folder (the profile is written as "
            "<out>/<board>-calibrated.toml)"
        )
    run_path = Path(run)
    data = load_log_data(run_path)
    _check_run_config(run_path)
    profile = _board(merge_board(board, board_file), run_path)
    if enclosure is not None:
        from thermogov.board import with_enclosure

        with_enclosure(profile, enclosure)  # an unknown name is bad input: refused before the fit
    folder = Path(out) if out else (run_path if run_path.is_dir() else Path.cwd())
    check_out_dir(folder)
    target = folder / f"{profile.name}-calibrated.toml"
    started = time.monotonic()

    def progress(msg: str) -> None:
        click.echo(f"calibrate [{time.monotonic() - started:5.1f} s] {msg}", err=True)

    result = calibrate(
        data,
        profile,
        holdout=holdout,
        ambient_c=ambient,
        free_ambient=free_ambient,
        enclosure=enclosure,
        progress=None if as_json else progress,
    )
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(calibrated_profile_text(result, profile), encoding="utf-8")
    try:
        load_board_file(tmp)
    except Exception:
        tmp.unlink()
        raise
    tmp.replace(target)
    if as_json:
        click.echo(json.dumps({**result_dict(result), "profile": str(target)}, indent=2))
        return
    _print(result, target)


def _print(result: Any, target: Path) -> None:
    click.echo(
        f"calibrated {result.board.name} from {result.source} (sensor {result.sensor}, enclosure {result.board.enclosure})"
    )
    click.echo(f"{'parameter':<24} {'prior':>10} {'fitted':>10} {'± 1 sd':>9}  determined by")
    for p in result.params:
        click.echo(
            f"{p.name:<24} {figure(p.prior):>10} {figure(p.value):>10} {figure(p.sd):>9}  {p.determined_by} ({p.unit})"
        )
    taus = ", ".join(figure(t) for t in result.time_constants_s)
    click.echo(f"time constants (s)       {taus}")
    click.echo(f"RMSE train               {figure(result.rmse_train_c, ' °C')}")
    hold = "n/a (no holdout)" if result.rmse_holdout_c is None else figure(result.rmse_holdout_c, " °C")
    click.echo(
        f"RMSE held-out tail       {hold} (from {figure(result.holdout_from_s, ' s')}, open-loop simulation)"
    )
    if result.rmse_persistence_c is not None:
        skill = "n/a" if result.skill is None else f"{result.skill:+.2f}"
        click.echo(
            f"persistence baseline     {figure(result.rmse_persistence_c, ' °C')} (last training reading held); "
            f"skill {skill} (1 - RMSE/persistence, > 0 beats it)"
        )
        click.echo(
            f"forecast drift weight    {result.drift_weight:g}, level share {result.level_share:.2g} (1, 1 = the model "
            "as fitted; forecast only, not in the profile: sim/calibration/shrink.py, evidence.py)"
        )
    s = result.steady
    if s is not None:
        window = f"under the load of {figure(s.window_s[0])}-{figure(s.window_s[1], ' s')}"
        if _runs_away(s):
            line = (
                f"steady state             thermal runaway predicted {window} (the fitted paths to ambient "
                f"cannot carry the heat: no steady state under {RUNAWAY_C:g} °C; a longer log with a cool-down "
                "determines them)"
            )
        else:
            line = f"steady state             predicted {figure(s.predicted_c, ' °C')} {window}"
        if s.measured_c is not None and not _runs_away(s):
            line += f"; measured {figure(s.measured_c, ' °C')} (error {figure(s.error_c, ' °C')})"
        click.echo(line)
    for n in result.notes:
        click.echo(f"note: {n}")
    click.echo(f"wrote {target}")
