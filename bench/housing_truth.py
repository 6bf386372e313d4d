"""Whether the calibration's housing choice finds a housing it is shown: the simulator's own plant as the log.

Run: ``python bench/housing_truth.py [--board rpi4] [--seeds 1,2,3] [--idle 300,60] [--holdout 0.6] [--json]``.

Why: a rule that chooses between housings (the pre-fit, its tie-break, a prior) can be scored on
real logs only where their housing is known, and the sparse reports it matters for do not say it.
On a log drawn from the profile's own network in a known housing (``steptest.step_log``: idle, a
full load at the top clock, cooling; 1 Hz with the sensor's noise and step), the right answer is
known and the model cannot be wrong about anything else.  A rule that loses here, where the
pre-fit's order inside its tie (``enclosure.TIE_COST``) carries the truth, is taking a guess where
the data had an answer (docs/calibration.md, Session 32f: a maker's-housing prior flipped a metal
case to bare on every seed).  A rule that wins here may still lose on real logs, whose misfits
the plant does not have: this bench is a necessary check, not a sufficient one.

Per case (true housing, seed, idle seconds before the load): the housing the fit chooses, its
held-out RMSE, and the held-out RMSE with the true housing declared (the floor the choice can
reach).  ``idle`` at or past the split (``holdout`` 0.6 of 750 s: 300 s) makes the training part
idle, a levels-only fit; a short idle puts the load step inside it.

Housings with a fan of their own (the Pi 5 Active Cooler, the Pi 4 ``gpio-fan``) are left out:
``step_log`` runs the board's network without a fan, so such a log is not the housing's plant
(rpi5 ``active-cooler`` declared scored 5.0 °C on it, Session 32f).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

LOAD_S = 300.0  # long enough that the held-out tail holds the rise and the cooling
COOL_S = 150.0


@dataclass
class Case:
    truth: str
    seed: int
    idle_s: float
    chosen: str
    rmse_c: float
    truth_rmse_c: float  # the true housing declared: what a perfect choice scores


def measure(board_name: str, truth: str, seed: int, idle_s: float, holdout: float) -> Case:
    """Fit one synthetic log of ``board_name`` in housing ``truth``, once choosing and once declared."""
    from thermogov.board import load_board, with_enclosure
    from thermogov.importers.runfolder import write_run_folder
    from thermogov.sim.calibration.calibrate import calibrate, load_log_data
    from thermogov.sim.calibration.steptest import step_log

    board = load_board(board_name)
    log = step_log(with_enclosure(board, truth), idle_s=idle_s, load_s=LOAD_S, cool_s=COOL_S, seed=seed)
    with tempfile.TemporaryDirectory(prefix="housing-truth-") as tmp:
        data = load_log_data(write_run_folder(log, Path(tmp)).run_dir)
    chosen = calibrate(data, board, holdout=holdout)
    floor = calibrate(data, board, holdout=holdout, enclosure=truth)
    return Case(
        truth, seed, idle_s, chosen.variant or board.enclosure, chosen.rmse_holdout_c, floor.rmse_holdout_c
    )


def fanless_housings(board_name: str) -> list[str]:
    """The housings the pre-fit ranks whose plant ``step_log`` can draw: those without a fan."""
    from thermogov.board import load_board, with_enclosure
    from thermogov.sim.calibration.enclosure import candidates

    board = load_board(board_name)
    return [h for h in candidates(board) if with_enclosure(board, h).fan is None]


def summary(cases: list[Case]) -> dict[str, float | int]:
    """How often the truth was found, and what the misses cost over the floor."""
    found = sum(c.chosen == c.truth for c in cases)
    return {
        "cases": len(cases),
        "found": found,
        "rmse_sum_c": sum(c.rmse_c for c in cases),
        "floor_sum_c": sum(c.truth_rmse_c for c in cases),
    }


def _numbers(text: str, kind: type) -> list:
    return [kind(v) for v in text.split(",") if v.strip()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="rpi4")
    ap.add_argument("--seeds", default="1,2,3", help="noise seeds (comma-separated)")
    ap.add_argument("--idle", default="300,60", help="idle seconds before the load (comma-separated)")
    ap.add_argument("--housings", default="", help="true housings (default: every one the pre-fit ranks)")
    ap.add_argument("--holdout", type=float, default=0.6)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    fanless = fanless_housings(args.board)
    housings = args.housings.split(",") if args.housings else fanless
    if unfit := [h for h in housings if h not in fanless]:
        print(
            f"--housings: {', '.join(unfit)} not a fanless housing the pre-fit ranks; choose from {', '.join(fanless)}"
        )
        return 2
    cases = [
        measure(args.board, h, seed, idle, args.holdout)
        for h in housings
        for seed in _numbers(args.seeds, int)
        for idle in _numbers(args.idle, float)
    ]
    totals = summary(cases)
    if args.json:
        print(json.dumps({"rows": [asdict(c) for c in cases], "totals": totals}, indent=1))
        return 0
    print(f"{'truth':<14} {'seed':>4} {'idle s':>6}  {'chosen':<14} {'RMSE °C':>8} {'truth °C':>8}")
    for c in cases:
        mark = "" if c.chosen == c.truth else "  <- missed"
        print(
            f"{c.truth:<14} {c.seed:>4} {c.idle_s:>6g}  {c.chosen:<14} {c.rmse_c:>8.3f} {c.truth_rmse_c:>8.3f}{mark}"
        )
    print(
        f"found {totals['found']}/{totals['cases']}; held-out RMSE sum {totals['rmse_sum_c']:.3f} °C "
        f"(floor with the truth declared {totals['floor_sum_c']:.3f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
