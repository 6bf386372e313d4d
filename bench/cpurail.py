"""What a logged CPU power rail says about a profile's ``C_dyn``.

Run: ``python bench/cpurail.py [--data DIR ...] [--block 10] [--json]`` (default:
``$THERMOGOV_REAL_DATA``).

The fit takes a busy core's power as ``C_dyn * V^2 * f`` (the profile's voltage table), and on
reports whose training part holds no all-core load it keeps the profile's ``C_dyn`` (the fitted
``dyn_scale`` stays near 1), so the all-core step's forecast rests on that figure.  A log with a CPU
rail (tegrastats' ``POM_5V_CPU`` on the Nano, ``VDD_CPU_CV`` on Orin) measures it: every log with a
profile and such a rail is read exactly as the fit reads it (``derive_inputs``: the logged clock,
the profile's voltage at that clock, the logged utilisation) and the rail is regressed on the load
proxy ``u * cores * f[MHz] * V^2``.  The slope is the rail's ``C_dyn`` in uW/MHz/V^2, to compare
with the profile's; the intercept is what does not scale with the load (idle, leakage, the rail's
other loads).  tegrastats samples the rail at an instant and averages the utilisation over its
interval, so the regression is also made on means of ``--block`` consecutive samples, which
shrinks that mismatch.  A rail named with ``GPU`` as well (``VDD_CPU_GPU_CV``) mixes the GPU in
and is reported but not compared.  Rails are measured at the regulator's input: the slope is an
upper bound of the die's figure (docs/calibration.md, *Ninth session: the Jetson all-core gain*).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from fidelity import candidate  # noqa: E402  (the same candidates and board choice)

from tests.realdata import REAL_DATA  # noqa: E402


@dataclass
class RailFit:
    log: str
    board: str
    rail: str
    samples: int
    proxy_max: float  # largest u * cores * f[MHz] * V^2 seen
    profile_c_dyn: float
    c_dyn: float | None  # slope per sample, uW/MHz/V^2
    intercept_w: float | None
    r: float | None
    block_c_dyn: float | None  # slope over means of `block` samples
    block_intercept_w: float | None
    block_r: float | None
    shared: bool  # the rail also feeds the GPU: not comparable


def fit_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float] | None:
    """Least squares ``y = a + b x``: (a, b, r), or None when x does not vary (no slope to see)."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3 or np.ptp(x) <= 0.0 or np.ptp(y) <= 0.0:
        return None
    b, a = np.polyfit(x, y, 1)
    return float(a), float(b), float(np.corrcoef(x, y)[0, 1])


def block_means(a: np.ndarray, block: int) -> np.ndarray:
    n = len(a) // block * block
    return a[:n].reshape(-1, block).mean(axis=1) if block > 1 else a


def cpu_proxy(board: Any, inputs: Any) -> np.ndarray:
    """``u * cores * f[MHz] * V^2`` of the CPU domain, per row, as the fit's power model reads it."""
    cpu = next(d for d in board.domains if d.name == "cpu")
    return inputs.load["cpu"] * cpu.cores * (inputs.freq_hz["cpu"] / 1e6) * inputs.volt_v["cpu"] ** 2


def cpu_rails(names: list[str]) -> list[str]:
    return [n for n in names if "CPU" in n.upper()]


def measure(path: Path, block: int) -> list[RailFit]:
    from thermogov.importers import parse_log
    from thermogov.sim.calibration.inputs import derive_inputs

    got = candidate(path)
    if got is None:
        return []
    data, board = got
    if not any(d.name == "cpu" for d in board.domains):
        return []
    samples = parse_log(path).samples
    if len(samples) != len(data.t_s) or not samples:
        return []
    inputs = derive_inputs(data, board)
    if "cpu" not in inputs.load:
        return []
    x = cpu_proxy(board, inputs)
    c_profile = next(d for d in board.domains if d.name == "cpu").c_dyn_uw_per_mhz_v2
    out = []
    for rail in cpu_rails(sorted({k for s in samples for k in s.rails_w})):
        y = np.array([s.rails_w.get(rail, np.nan) for s in samples], dtype=float)
        one = fit_line(x, y)
        blk = fit_line(block_means(x, block), block_means(y, block))
        out.append(
            RailFit(
                log=path.name,
                board=board.name,
                rail=rail,
                samples=int(np.isfinite(y).sum()),
                proxy_max=float(np.nanmax(x)),
                profile_c_dyn=c_profile,
                c_dyn=one[1] * 1e6 if one else None,
                intercept_w=one[0] if one else None,
                r=one[2] if one else None,
                block_c_dyn=blk[1] * 1e6 if blk else None,
                block_intercept_w=blk[0] if blk else None,
                block_r=blk[2] if blk else None,
                shared="GPU" in rail.upper(),
            )
        )
    return out


def _g(v: float | None, fmt: str) -> str:
    return "—" if v is None else format(v, fmt)


def table(rows: list[RailFit], block: int) -> str:
    head = (
        f"| log | board | rail | samples | proxy max | profile C_dyn | C_dyn (r) | idle W | "
        f"C_dyn over {block} (r) | idle W over {block} |"
    )
    lines = [head, "|" + "---|" * 10]
    for f in rows:
        note = " (CPU+GPU: not compared)" if f.shared else ""
        lines.append(
            f"| {f.log} | {f.board} | {f.rail}{note} | {f.samples} | {f.proxy_max:.0f} | {f.profile_c_dyn:.0f} | "
            f"{_g(f.c_dyn, '.0f')} ({_g(f.r, '.2f')}) | {_g(f.intercept_w, '.2f')} | "
            f"{_g(f.block_c_dyn, '.0f')} ({_g(f.block_r, '.2f')}) | {_g(f.block_intercept_w, '.2f')} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, action="append", help="folder of real logs (repeatable)")
    ap.add_argument("--block", type=int, default=10, help="samples averaged per point in the second fit")
    ap.add_argument("--json", action="store_true", help="rows as JSON")
    args = ap.parse_args()
    if args.block < 1:
        print("--block must be 1 or more (samples averaged per point)", file=sys.stderr)
        return 2
    folders = args.data or [REAL_DATA]
    for folder in folders:
        if not folder.is_dir():
            print(f"--data {folder}: no such folder (point it at a folder of logs)", file=sys.stderr)
            return 2
    rows = [
        f
        for folder in folders
        for p in sorted(folder.iterdir())
        if p.is_file()
        for f in measure(p, args.block)
    ]
    if args.json:
        print(json.dumps([asdict(f) for f in rows], indent=2))
    else:
        print(table(rows, args.block))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
