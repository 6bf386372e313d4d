"""The all-core phase of sbc-bench reports: how the held-out forecast errs, per benchmark, and the power each draws.

Run: ``python bench/allcore.py [--data DIR ...] [--holdout 0.6] [--enclosure NAME] [--json]``
(default: ``$THERMOGOV_REAL_DATA``; pass several ``--data`` to pool folders;
``--enclosure`` fits every report in that housing instead of the pre-fit's pick, to measure what the
housing contributes to an error).

Every sbc-bench report with a profile is fitted on its first 40 % exactly as ``bench/fidelity.py``
does; then, per monitor section (one benchmark), the table gives the measured and forecast change
of the temperature from the last reading before the section to the section's last reading, their
difference (the *step error*, forecast minus measured: positive means the model heats too much),
and the mean error over the section.  A report with power readings (an external ``mW`` meter, the
board's power; a Pi 5's ``PMIC`` rail) also gets the mean power of each section and the model's
load proxy ``u * V^2 * f`` (what the power model multiplies by ``C_dyn``), so the power each
benchmark draws *per unit of proxy* can be compared across benchmarks: if 7-zip and cpuminer drew
the same per unit, the proxy would be a sufficient load description (docs/calibration.md, *Ninth
session: the all-core phase*).  The JSON also gives the measured change at the section's second
reading and the fitted model's dynamic power per section, so the early rise *per watt of the
model* can be compared with the profile's fast path (*Ninth session: the Pi 4 at 1800 MHz*).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from fidelity import _f, candidate  # noqa: E402  (the same candidates, board choice and number format)

from tests.realdata import REAL_DATA  # noqa: E402

# Benchmark kinds by section name: what runs on how many cores (sbc-bench.sh runs each of these).
KINDS: tuple[tuple[str, str], ...] = (
    ("7-zip multi", "7zip-multi"),
    ("cpuminer", "cpuminer"),
    ("7-zip single", "7zip-single"),
    ("openssl", "openssl"),
    ("tinymembench", "tinymembench"),
    ("ramlat", "ramlat"),
)


def kind_of(section: str) -> str:
    low = section.lower()
    return next((kind for key, kind in KINDS if key in low), low)


@dataclass
class SectionRow:
    log: str
    board: str
    section: str
    held_out: bool  # the section starts after the split (its forecast is open-loop)
    rows: int
    load: float  # mean logged utilisation over the section's rows (the first row's is not logged)
    measured_rise_k: float  # last reading of the section minus the last reading before it
    forecast_rise_k: float
    step_error_k: float  # forecast minus measured rise
    early_error_k: float | None  # the same at the section's second reading (the fast mode's share)
    early_measured_k: float | None  # measured change from the reading before the section to its second one
    early_after_s: float | None  # ... and the time between those two readings
    mean_error_k: float  # mean (forecast - measured) over the section's rows
    proxy: float | None  # mean u * V^2 * f (V^2 GHz, summed over the domains' logged load)
    dyn_power_w: (
        float | None
    )  # mean dynamic power the fitted model puts in the section (C_dyn, its scale, cores)
    power_w: float | None  # mean external meter power over the section, W
    pmic_w: float | None  # mean PMIC rail power over the section, W


def _mean(a: np.ndarray) -> float | None:
    a = a[np.isfinite(a)]
    return float(a.mean()) if a.size else None


def sections_of(path: Path, t: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """(section name, boolean mask over ``t``) in the order the report ran them."""
    from thermogov.importers.sbcbench import section_starts

    starts = section_starts(path)
    out = []
    for i, (name, t0) in enumerate(starts):
        t1 = starts[i + 1][1] if i + 1 < len(starts) else math.inf
        out.append((name, (t >= t0 - 1e-6) & (t < t1 - 1e-6)))
    return out


def dyn_power(board: Any, inputs: Any, scales: dict[str, float]) -> np.ndarray:
    """Dynamic power per row as the power model computes it: ``C_dyn · V² · f · u · cores`` per domain,
    times the fit's ``dyn_scale`` (leakage and idle power left out: they do not step with the load)."""
    total = np.zeros_like(next(iter(inputs.load.values())))
    for d in board.domains:
        if d.name in inputs.load:
            v, f, u = inputs.volt_v[d.name], inputs.freq_hz[d.name], inputs.load[d.name]
            unit = d.c_dyn_uw_per_mhz_v2 * 1e-6 * v * v * (f / 1e6) * u * d.cores
            total = total + unit * scales.get(d.name, 1.0)
    return total


def measure(path: Path, holdout: float, enclosure: str | None = None) -> list[SectionRow]:
    """One report's sections, or [] when it is no calibration candidate or does not fit.

    ``enclosure`` fits the report in that housing of its profile instead of the one the pre-fit picks
    (a report whose profile has no such housing gives []), so the housing's share of an error can be
    measured by swapping it."""
    from thermogov.importers import parse_log
    from thermogov.interfaces import ThermogovError
    from thermogov.sim.calibration.calibrate import calibrate
    from thermogov.sim.calibration.inputs import derive_inputs

    got = candidate(path)
    if got is None:
        return []
    data, board = got
    if enclosure is not None and enclosure not in {board.enclosure, *(e.name for e in board.enclosures)}:
        print(f"  {path.name}: profile {board.name} has no housing {enclosure!r}; skipped", file=sys.stderr)
        return []
    try:
        r = calibrate(data, board, holdout=holdout, enclosure=enclosure)
    except ThermogovError as e:
        print(f"  {path.name}: {e}", file=sys.stderr)
        return []
    inputs = derive_inputs(data, board)
    proxy = sum(inputs.load[d] * inputs.volt_v[d] ** 2 * inputs.freq_hz[d] / 1e9 for d in inputs.load)
    scales = {p.name[len("dyn_scale[") : -1]: p.value for p in r.params if p.name.startswith("dyn_scale[")}
    dyn_w = dyn_power(board, inputs, scales)
    pmic = np.array([s.rails_w.get("PMIC", np.nan) for s in parse_log(path).samples], dtype=float)
    if len(pmic) != len(data.t_s):
        pmic = np.full(len(data.t_s), np.nan)
    power = data.power_w if data.power_w is not None else np.full(len(data.t_s), np.nan)
    load = sum(inputs.load.values()) / max(len(inputs.load), 1)
    t, meas, pred = r.t_s, r.measured_c, r.predicted_c
    out: list[SectionRow] = []
    prev: int | None = None  # index in r.t_s of the last reading before the section
    on_fit = sections_of(path, t)  # the fit's axis (rows merged or trimmed by its checks)
    for (name, mask_data), (_, mask) in zip(sections_of(path, data.t_s), on_fit, strict=True):
        idx = np.flatnonzero(mask & np.isfinite(meas))
        if idx.size == 0:
            continue
        before = idx[0] - 1 if idx[0] > 0 else None
        if before is not None:
            prev = before
        last = idx[-1]
        if prev is None:
            prev = last
            continue
        held = bool(t[idx[0]] >= r.holdout_from_s)
        early = idx[1] if idx.size > 1 else None
        rows_data = np.flatnonzero(mask_data)
        body = rows_data[1:] if rows_data.size > 1 else rows_data  # the first row's power is pre-benchmark
        out.append(
            SectionRow(
                path.name,
                board.name + (f" ({r.variant})" if r.variant else ""),
                name,
                held,
                int(idx.size),
                float(np.mean(load[body])),
                float(meas[last] - meas[prev]),
                float(pred[last] - pred[prev]),
                float((pred[last] - pred[prev]) - (meas[last] - meas[prev])),
                None if early is None else float((pred[early] - pred[prev]) - (meas[early] - meas[prev])),
                None if early is None else float(meas[early] - meas[prev]),
                None if early is None else float(t[early] - t[prev]),
                float(np.mean(pred[idx] - meas[idx])),
                _mean(proxy[body]),
                _mean(dyn_w[body]),
                _mean(power[body]),
                _mean(pmic[body]),
            )
        )
        prev = last
    return out


@dataclass
class PhaseResidual:
    """One benchmark phase's share of a report's held-out error (every held-out reading, the first
    section's too, which the step table above cannot measure a step for)."""

    log: str
    board: str
    section: str
    rows: int  # held-out readings in the phase
    mean_error_k: float  # mean (forecast - measured) over them
    first_error_k: float
    last_error_k: float
    sq_share: float  # their share of the report's held-out sum of squared errors


def phase_residuals(path: Path, holdout: float) -> list[PhaseResidual]:
    """Per benchmark phase, the held-out residual of the fit ``bench/fidelity.py`` makes ([] when the
    report is no candidate or does not fit): where in the report the held-out RMSE comes from."""
    from thermogov.interfaces import ThermogovError
    from thermogov.sim.calibration.calibrate import calibrate

    got = candidate(path)
    if got is None:
        return []
    data, board = got
    try:
        r = calibrate(data, board, holdout=holdout)
    except ThermogovError as e:
        print(f"  {path.name}: {e}", file=sys.stderr)
        return []
    err = r.predicted_c - r.measured_c
    held = (r.t_s >= r.holdout_from_s) & np.isfinite(err)
    total = float(np.sum(err[held] ** 2)) or 1.0
    label = board.name + (f" ({r.variant})" if r.variant else "")
    out = []
    for name, mask in sections_of(path, r.t_s):
        e = err[mask & held]
        if e.size:
            out.append(
                PhaseResidual(
                    path.name,
                    label,
                    name,
                    int(e.size),
                    float(e.mean()),
                    float(e[0]),
                    float(e[-1]),
                    float(np.sum(e**2)) / total,
                )
            )
    return out


def _signed(v: float | None) -> str:
    return _f(v, "{:+.2f}")


def table(rows: list[SectionRow]) -> str:
    head = (
        "| log | board | section | held out | load | measured rise K | forecast rise K | step error K | "
        "early step error K | mean error K | u·V²·f | meter W | PMIC W |"
    )
    out = [head, "|" + "---|" * 13]
    for s in rows:
        out.append(
            f"| {s.log} | {s.board} | {s.section} | {'yes' if s.held_out else 'no'} | {s.load:.2f} | "
            f"{_signed(s.measured_rise_k)} | {_signed(s.forecast_rise_k)} | {_signed(s.step_error_k)} | "
            f"{_signed(s.early_error_k)} | {_signed(s.mean_error_k)} | "
            f"{_f(s.proxy, '{:.2f}')} | {_f(s.power_w, '{:.2f}')} | {_f(s.pmic_w, '{:.2f}')} |"
        )
    return "\n".join(out)


def family_of(board: str) -> str:
    """Board family: the profile name without its housing or variant ("rpi4", "jetson-nano", ...)."""
    name = board.split(" ")[0]
    return "jetson" if name.startswith("jetson") else name


def summary(rows: list[SectionRow]) -> dict[str, Any]:
    """Per board family and benchmark kind, over the held-out sections: count, median step error, early
    step error and mean error, and how many steps the forecast put too high."""
    out: dict[str, Any] = {}
    keys = sorted({(family_of(s.board), kind_of(s.section)) for s in rows if s.held_out})
    for family, kind in keys:
        sel = [s for s in rows if s.held_out and family_of(s.board) == family and kind_of(s.section) == kind]
        step = np.array([s.step_error_k for s in sel])
        early = np.array([s.early_error_k for s in sel if s.early_error_k is not None])
        out[f"{family} {kind}"] = {
            "n": len(sel),
            "step_median_k": float(np.median(step)),
            "early_median_k": float(np.median(early)) if early.size else None,
            "mean_error_median_k": float(np.median([s.mean_error_k for s in sel])),
            "step_high": int((step > 0).sum()),
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, action="append", help="folder of real logs (repeatable)")
    ap.add_argument("--holdout", type=float, default=0.6, help="tail fraction kept out of the fit")
    ap.add_argument("--json", action="store_true", help="rows and summary as JSON")
    ap.add_argument(
        "--enclosure", help="fit every report in this housing of its profile (reports without it are skipped)"
    )
    ap.add_argument(
        "--residuals",
        action="store_true",
        help="instead: each report's held-out residual per benchmark phase (mean, first, last, share)",
    )
    args = ap.parse_args()
    folders = args.data or [REAL_DATA]
    if args.residuals:
        return residuals_main(folders, args.holdout, args.json)
    rows: list[SectionRow] = []
    for folder in folders:
        if not folder.is_dir():
            print(f"{folder}: no real logs here; skipped", file=sys.stderr)
            continue
        for path in sorted(folder.glob("sbcbench_*")):
            got = measure(path, args.holdout, args.enclosure)
            rows.extend(got)
            print(f"  {path.name}: {len(got)} section(s)", file=sys.stderr)
    summ = summary(rows)
    if args.json:
        print(json.dumps({"rows": [asdict(s) for s in rows], "summary": summ}, indent=2))
        return 0
    print(table(rows))
    print()
    for key, s in summ.items():
        print(
            f"{key}: {s['n']} held-out section(s); medians: step error {s['step_median_k']:+.2f} K, early "
            f"{_signed(s['early_median_k'])} K, mean error {s['mean_error_median_k']:+.2f} K; {s['step_high']} step(s) too high"
        )
    return 0


def residuals_main(folders: list[Path], holdout: float, as_json: bool) -> int:
    """``--residuals``: the per-phase held-out residual of every sbc-bench report in ``folders``."""
    rows: list[PhaseResidual] = []
    for folder in folders:
        for path in sorted(folder.glob("sbcbench_*")) if folder.is_dir() else []:
            rows.extend(phase_residuals(path, holdout))
    if as_json:
        print(json.dumps({"residuals": [asdict(r) for r in rows]}, indent=2))
        return 0
    print(
        "| log | board | phase | held-out rows | mean error K | first K | last K | share of squared error |"
    )
    print("|" + "---|" * 8)
    for r in rows:
        print(
            f"| {r.log} | {r.board} | {r.section} | {r.rows} | {r.mean_error_k:+.2f} | {r.first_error_k:+.2f} | "
            f"{r.last_error_k:+.2f} | {r.sq_share:.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
