"""The workload's activity: how much more (or less) a busy core heats under the benchmark a log names.

The power model takes a busy core as the same power whatever runs on it (``u · C_dyn · V² · f``),
and ``C_dyn`` comes from one load (``rpi4.toml``: ``stress-ng --matrix``).  sbc-bench names each
benchmark it runs (``LogData.phases``), and those differ at the same utilisation: cpuminer is "the
most demanding" of them, its SIMD code "generating more heat than unoptimized 'standard' code"
(ThomasKaiser/sbc-bench README, *cpuminer*), and on the Pi 5 reports with a PMIC column it draws
1.15-1.72× the power per busy core of 7-zip multi (docs/calibration.md, *Ninth session: the all-core
phase*).  A profile states the factor per workload (``DomainProfile.workload_activity``); this
module turns the log's phases into a factor per row, which multiplies the logged utilisation of the
profile's CPU domains (``derive_inputs``).  Why only where a profile says so, and the factor chosen:
docs/calibration.md, *Twelfth session: the Pi 4 reports*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def factor_per_row(
    t_s: np.ndarray, phases: Sequence[tuple[str, float]], activity: Mapping[str, float]
) -> np.ndarray | None:
    """Each row's activity factor from the phase it belongs to, or None when no phase is named in
    ``activity``.

    A phase's first row keeps the factor of the phase before: sbc-bench prints that line as the
    benchmark starts, with the previous load (``LogData.load_starts_at_gaps``), and the model takes
    the next row's load from that row on, so the factor follows the load it multiplies."""
    if not phases or not activity:
        return None
    out = np.ones(len(t_s))
    hit = False
    for i, (name, start) in enumerate(phases):
        # the longest name the phase holds: "tinymembench latency" before "tinymembench" (membench.py)
        keys = [key for key in activity if key in name.lower()]
        if not keys:
            continue
        factor = activity[max(keys, key=len)]
        end = phases[i + 1][1] if i + 1 < len(phases) else np.inf
        rows = (t_s > start + 1e-6) & (t_s <= end + 1e-6)
        out[rows] = factor
        hit = hit or bool(rows.any())
    return out if hit else None
