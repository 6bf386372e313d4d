"""What each log's training part cannot decide: the held-out RMSE along the fit's flattest valley.

Run: ``python bench/ridge.py [--data DIR] [--only SUBSTRING] [--holdout 0.6] [--param NAME]
[--factors 0.5,0.7,1.4,2]``.

Per log (the logs and boards of ``bench/fidelity.py``), in the housing the calibration picks:
the full model's optimum on the training part, then each path to air (``G[<node>-ambient]``, or
``--param``) pinned at the factors times its optimum with every other parameter refitted
(:mod:`thermogov.sim.calibration.ridge`).  Each point prints the cost rise (0.5 is one standard
deviation: below it the training part cannot tell the values apart) and the held-out RMSE of
that point's forecast.  ``whole`` is the value a fit of the whole log gives in the same housing:
what the held-out part says the training part should have found.

The optimum here is the full model's plain MAP (no model-size choice, no forecast shrink), so
its RMSE can differ from ``bench/fidelity.py``'s where those act; on the stressberry logs they
do not (docs/calibration.md, ninth session).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.fidelity import add_log_options, candidate, real_logs, wanted  # noqa: E402  (the same logs)


def held_out_rmse(forecast: np.ndarray, obs: np.ndarray, train: np.ndarray) -> float:
    test = np.isfinite(obs) & ~train
    return float(np.sqrt(np.mean((forecast[test] - obs[test]) ** 2))) if test.any() else math.nan


def report(path: Path, holdout: float, param: str | None, factors: list[float]) -> list[str]:
    """The lines for one log, or none when it is no calibration candidate."""
    from thermogov.board import with_enclosure
    from thermogov.interfaces import ThermogovError
    from thermogov.sim.calibration.calibrate import calibrate
    from thermogov.sim.calibration.checks import checked_log
    from thermogov.sim.calibration.data import decimate
    from thermogov.sim.calibration.fit import FitProblem, _fit
    from thermogov.sim.calibration.ridge import profile

    got = candidate(path)
    if got is None:
        return []
    data, board = got
    try:
        housing = calibrate(data, board, holdout=holdout).variant or board.enclosure
        board = with_enclosure(board, housing)
        data = decimate(checked_log(data)[0])
        whole = FitProblem.build(data, board, holdout=0.0, ambient_c=25.0)
        whole_res = _fit(whole, lambda _m: None)[0]
        prob = FitProblem.build(data, board, holdout=holdout, ambient_c=25.0)
        res = _fit(prob, lambda _m: None)[0]
    except ThermogovError as e:
        return [f"{path.name}: not fitted ({e})"]
    obs = data.temps_c[next(iter(prob.sensors))]
    phi = prob.expand(res.x)
    at = {s.name: s.value(p) for s, p in zip(prob.specs, phi, strict=True)}
    at_whole = {s.name: s.value(p) for s, p in zip(whole.specs, whole.expand(whole_res.x), strict=True)}
    names = [param] if param else [s.name for s in prob.specs if s.kind == "ambient_link" and not s.fixed]
    base = held_out_rmse(prob.forecast_parts(phi, drift=False).full[0], obs, prob.train)
    lines = [f"{path.name} ({board.name}, {housing}): held-out RMSE at the optimum {base:.2f} °C"]
    for name in names:
        spec = next(s for s in prob.specs if s.name == name) if name in at else None
        prior = f"prior {spec.prior:.3g}, " if spec is not None else ""
        lines.append(
            f"  {name}: {prior}optimum {at.get(name, math.nan):.3g}, whole {at_whole.get(name, math.nan):.3g}"
        )
        try:
            points = profile(prob, res, name, factors)
        except ThermogovError as e:
            lines.append(f"    {e}")
            continue
        for f, p in zip(factors, points, strict=True):
            lines.append(
                f"    x{f:g} = {p.value:.3g}: cost rise {p.cost_rise:+.2f}, held-out RMSE "
                f"{held_out_rmse(p.forecast_c, obs, prob.train):.2f} °C"
                + (f" (static_scale {p.values['static_scale']:.2f})" if "static_scale" in p.values else "")
            )
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_log_options(ap)
    ap.add_argument("--param", default=None, help="the parameter to pin (default: every free path to air)")
    ap.add_argument("--factors", default="0.5,0.7,1.4,2", help="multiples of the optimum to pin it at")
    args = ap.parse_args()
    try:
        factors = [float(f) for f in args.factors.split(",")]
    except ValueError:
        print(
            f"--factors: {args.factors!r} is not a comma-separated list of numbers, e.g. 0.5,2",
            file=sys.stderr,
        )
        return 2
    if not factors or not all(math.isfinite(f) and f > 0 for f in factors):
        print(f"--factors: {args.factors!r} must be numbers above 0, e.g. 0.5,2", file=sys.stderr)
        return 2
    if not args.data.is_dir():
        print(f"{args.data}: no real logs here (set THERMOGOV_REAL_DATA); nothing to measure")
        return 0
    for path in real_logs(args.data):
        if not wanted(path, args.only):
            continue
        for line in report(path, args.holdout, args.param, factors):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
