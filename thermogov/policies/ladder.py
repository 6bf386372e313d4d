"""An OPP ladder: joint caps ordered from slowest to fastest, each rung worth its power.

A board with several domains has many cap combinations, most of them wasteful: on the Orin
Nano's YOLO pipeline the GPU stage is the bottleneck at every GPU clock, so a CPU cap above its
lowest OPP buys nothing and costs power.  The ladder keeps the *Pareto frontier* of
(throughput, power) from :mod:`thermogov.costmodel` (power at full utilisation and the reference
leakage temperature): each rung is faster than the one below and no combination is both
faster and cheaper.  The top rung is always every domain at its maximum, so "full speed" means
what it means for ``hysteresis`` even when a cheaper combination is as fast.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

from thermogov import costmodel
from thermogov.board import BoardProfile, ModelProfile


def governed_model(model: ModelProfile, governed: set[str]) -> ModelProfile:
    """The model's stages on the governed domains only.

    A domain the board lacks (no GPU devfreq, an unusable OPP table) still runs, at clocks
    thermogov does not set: its stage is a constant that cannot order the rungs, so the ladder
    is built on the stages it can change.  Without this the ladder asked for a clock of a
    domain that was never bound (``KeyError: 'gpu'`` on an Orin without GPU devfreq).
    """
    return dataclasses.replace(
        model,
        cycles={d: c for d, c in model.cycles.items() if d in governed},
        threads={d: n for d, n in model.threads.items() if d in governed},
    )


def domain_powers_w(board: BoardProfile, model: ModelProfile, caps: dict[str, int]) -> dict[str, float]:
    """Each capped domain's power at ``caps`` with the pipeline saturated, leakage at its
    reference temperature: the ladder's own power model (also :mod:`.gain`'s step size)."""
    clocks = {d: caps[d] for d in model.cycles}
    cores = costmodel.busy_cores(model, clocks, 1.0) if clocks else {}
    return {
        d.name: costmodel.domain_power_w(d, caps[d.name], cores.get(d.name, 0.0), d.leak_ref_c)
        for d in board.domains
        if d.name in caps
    }


def _rate_and_power(board: BoardProfile, model: ModelProfile, caps: dict[str, int]) -> tuple[float, float]:
    clocks = {d: caps[d] for d in model.cycles}
    rate = 1.0 / costmodel.inference_time_s(model, clocks) if clocks else 1.0
    return rate, sum(domain_powers_w(board, model, caps).values())


def rung_rate(board: BoardProfile, governed: set[str], caps: dict[str, int]) -> float:
    """The inference rate the board's model gives ``caps`` with the ``governed`` domains capped."""
    return _rate_and_power(board, governed_model(board.model, governed), caps)[0]


# The most cap combinations a ladder weighs.  The profiles' boards have at most 294 (the AGX
# Xavier's 21 CPU x 14 GPU OPPs), so none of them is thinned and the suite is unchanged; a tree
# listing 1000 OPPs per domain (a hostile or broken driver, session 19) made 10^6 combinations
# and the daemon's start took minutes, longer than systemd waits for it.
MAX_LADDER_COMBINATIONS = 10_000


def bounded_tables(
    tables_hz: dict[str, tuple[int, ...]], limit: int = MAX_LADDER_COMBINATIONS
) -> dict[str, tuple[int, ...]]:
    """``tables_hz`` unchanged when their combinations are at most ``limit``; else each table
    longer than the ``len(tables)``-th root of ``limit`` thinned to that many OPPs, evenly by
    index with both ends kept: every rung is still the hardware's OPPs, its lowest and its top."""
    if math.prod(len(t) for t in tables_hz.values()) <= limit:
        return tables_hz
    keep = max(2, int(limit ** (1.0 / len(tables_hz))))
    return {name: _thinned(t, keep) for name, t in tables_hz.items()}


def _thinned(table: tuple[int, ...], keep: int) -> tuple[int, ...]:
    if len(table) <= keep:
        return table
    step = (len(table) - 1) / (keep - 1)
    return tuple(sorted({table[round(i * step)] for i in range(keep)}))


def build_ladder(board: BoardProfile, tables_hz: dict[str, tuple[int, ...]]) -> list[dict[str, int]]:
    """Rungs from slowest (index 0, every domain at its lowest OPP) to all-maximum (last)."""
    tables_hz = bounded_tables(tables_hz)
    names = list(tables_hz)
    model = governed_model(board.model, set(names))
    scored = []
    for combo in itertools.product(*(tables_hz[n] for n in names)):
        caps = dict(zip(names, combo, strict=True))
        rate, power = _rate_and_power(board, model, caps)
        scored.append((rate, power, caps))
    scored.sort(key=lambda s: (s[0], -s[1]))
    frontier: list[tuple[float, float, dict[str, int]]] = []
    # Walk from the fastest down, keeping a point only if it is strictly cheaper than every
    # faster point kept so far; equal-rate points keep the cheapest.
    best_power = float("inf")
    for rate, power, caps in sorted(scored, key=lambda s: (-s[0], s[1])):
        if power < best_power - 1e-12:
            if frontier and abs(frontier[-1][0] - rate) < 1e-9:
                continue  # same rate as a cheaper point already kept
            frontier.append((rate, power, caps))
            best_power = power
    rungs = [caps for _, _, caps in reversed(frontier)]
    lowest = {n: tables_hz[n][0] for n in names}
    if rungs[0] != lowest:
        rungs.insert(0, lowest)
    top = {n: tables_hz[n][-1] for n in names}
    if rungs[-1] != top:
        rungs.append(top)
    return rungs
