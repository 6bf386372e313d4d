"""Iso-limit baselines: kernel governors re-tuned to keep the same thermal limit as the rest.

The kernel governors act only once the zone is at or above their trip (``step_wise`` steps one
state per poll while ``T >= trip``; ``bang_bang`` switches at the trip; IPA's PID aims *at* its
control temperature).  Configured at the spec's 85 °C, as the kernel would be, they let the
fused temperature sit a few degrees above 85 °C for most of the run, so their throughput is
bought with heat the oracle and ``stepped`` are not allowed to spend.  Comparing "throughput at
the same thermal limit" therefore needs the baseline's trip lowered until it keeps the limit,
the way an integrator tuning a device tree would.

:func:`tune` finds, on the very scenario and seed being compared, the highest trip (control
temperature for ``power_allocator``) on a 0.5 °C grid between :data:`LOW_C` and :data:`HIGH_C`
whose run spends no more time at or above the 85 °C judging trip than the bound (the time
``hysteresis`` spends there on the same scenario, the spec's own policy, or
:data:`DEFAULT_BOUND_S` without it).  Bisection over the grid costs 1 + ceil(log2(51)) = 7
simulations, and it keeps two invariants that make the answer checkable: the reported trip was
simulated and passed, and the grid point 0.5 °C above it was simulated and failed (or the
trip is the top of the grid).  Time above the trip is not exactly monotone in the trip (sensor
noise, dither), so "highest" means the boundary bisection lands on, not a global search.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from thermogov.config import Config

#: Policies whose throttling threshold is a parameter the integrator sets.
TUNABLE = ("step_wise", "bang_bang", "power_allocator")
#: Suffix of the iso-limit rows' policy label (``step_wise@iso``).
ISO_SUFFIX = "@iso"
LOW_C = 60.0
HIGH_C = 85.0
STEP_C = 0.5
#: Bound on seconds above the trip when ``hysteresis`` is not in the comparison: the injected
#: single-sample spikes of the suite cost every policy 0.1 s, so 0 would be unreachable.
DEFAULT_BOUND_S = 1.0
#: Defaults of the policies' own parameters, mirrored so the shift below keeps their gaps.
_DEFAULT_TRIPS: list[dict[str, float]] = [{"temp_c": 85.0, "hyst_c": 2.0}]
_IPA_SWITCH_ON_C = 70.0
_IPA_CONTROL_C = 85.0


def is_tunable(policy: str) -> bool:
    return policy in TUNABLE


def iso_label(policy: str) -> str:
    return policy + ISO_SUFFIX


def with_trip(config: Config, policy: str, trip_c: float) -> Config:
    """``config`` with ``policy``'s (highest) trip / control temperature moved to ``trip_c``.

    Every other threshold moves by the same amount, so the shape the user configured (trip
    hysteresis, several trips, IPA's switch-on 15 °C below control, which also sets IPA's
    default gains through their difference) is kept: only the level is tuned.
    """
    params: dict[str, Any] = dict(config.policies.get(policy, {}))
    if policy == "power_allocator":
        control = float(params.get("control_c", _IPA_CONTROL_C))
        switch_on = float(params.get("switch_on_c", _IPA_SWITCH_ON_C))
        params["control_c"] = trip_c
        params["switch_on_c"] = trip_c - (control - switch_on)
    elif policy in ("step_wise", "bang_bang"):
        trips = [dict(t) for t in (params.get("trips") or _DEFAULT_TRIPS)]
        shift = trip_c - max(float(t["temp_c"]) for t in trips)
        params["trips"] = [{**t, "temp_c": float(t["temp_c"]) + shift} for t in trips]
    else:
        raise ValueError(f"{policy!r} has no trip to tune; tunable: {', '.join(TUNABLE)}")
    return dataclasses.replace(config, policies={**config.policies, policy: params})


def current_trip(config: Config, policy: str) -> float:
    """The trip / control temperature ``policy`` runs with in ``config`` (what :func:`with_trip` moves)."""
    params = config.policies.get(policy, {})
    if policy == "power_allocator":
        return float(params.get("control_c", _IPA_CONTROL_C))
    return max(float(t["temp_c"]) for t in (params.get("trips") or _DEFAULT_TRIPS))


def grid(low_c: float = LOW_C, high_c: float = HIGH_C, step_c: float = STEP_C) -> list[float]:
    n = round((high_c - low_c) / step_c)
    return [round(low_c + i * step_c, 3) for i in range(n + 1)]


@dataclass
class IsoResult:
    """The reported run and every probe (trip -> seconds above the judging trip)."""

    trip_c: float
    row: Any
    met: bool
    bound_s: float
    probes: dict[float, float] = field(default_factory=dict)


def tune(
    probe: Callable[[float], Any],
    bound_s: float,
    *,
    low_c: float = LOW_C,
    high_c: float = HIGH_C,
    step_c: float = STEP_C,
    cache: dict[float, Any] | None = None,
) -> IsoResult:
    """Bisect the trip grid for the highest trip whose ``probe(trip).above_trip_s <= bound_s``.

    ``probe`` simulates one trip and returns a row with ``above_trip_s``; ``cache`` (trip ->
    row) lets a caller reuse runs across calls of one compare.  The top of the grid is tried
    first: a baseline that already keeps the limit at 85 °C costs one run.  If no grid point
    passes, the lowest one is reported with ``met = False`` rather than hiding the row.
    """
    pts = grid(low_c, high_c, step_c)
    rows: dict[float, Any] = cache if cache is not None else {}

    def run(t: float) -> Any:
        if t not in rows:
            rows[t] = probe(t)
        return rows[t]

    def ok(t: float) -> bool:
        return float(run(t).above_trip_s) <= bound_s + 1e-9

    top = len(pts) - 1
    if ok(pts[top]):
        best = top
    else:
        lo, hi = -1, top  # invariant: pts[lo] passed (or lo = -1), pts[hi] failed
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ok(pts[mid]):
                lo = mid
            else:
                hi = mid
        best = lo
    met = best >= 0
    trip = pts[max(best, 0)]
    if not met:
        run(trip)
    probes = {t: float(r.above_trip_s) for t, r in sorted(rows.items()) if t in pts}
    return IsoResult(trip_c=trip, row=rows[trip], met=met, bound_s=bound_s, probes=probes)


def bound_from(rows: list[Any], scenario: str) -> float:
    """The iso-limit bound for ``scenario``: ``hysteresis``'s seconds above the trip there."""
    for r in rows:
        if r.scenario == scenario and r.policy == "hysteresis":
            return float(r.above_trip_s)
    return DEFAULT_BOUND_S


__all__ = [
    "DEFAULT_BOUND_S",
    "HIGH_C",
    "ISO_SUFFIX",
    "LOW_C",
    "STEP_C",
    "TUNABLE",
    "IsoResult",
    "bound_from",
    "current_trip",
    "grid",
    "is_tunable",
    "iso_label",
    "tune",
    "with_trip",
]
