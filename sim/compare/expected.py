"""The expected time above the trip: the trip target judged without the seed's luck.

The trip target counts the control ticks whose fused *reading* is at or above the trip
(:class:`.compare._TickMeter`).  On a board with 0.5-°C codes and 0.15-°C read noise a policy
that holds the true value a few tenths under the code's edge reads the trip code once or twice
an hour by chance, so one seed's count (0, 0.1 or 0.2 s) says more about that seed's noise than
about the rule (docs/policies.md, sessions 17a and 18b).  This module replaces the count by its
expectation given what the policy actually did: for every tick, the probability that the
readings it fused reach the trip, from the *true* (lagged) values the sensors read and the
sensor model of :mod:`thermogov.sim.model.sensors` (white Gaussian noise of ``noise_c``, then
rounding to ``quant_c`` steps), summed with each tick's duration as the meter sums it.  The
trajectory is still one seed's; what is removed is the lottery of the noise on it.

The true values are taken by :func:`recording_reads`, which wraps :meth:`SimSensor.read` for
the runs inside it (this process only) and keeps each read's lagged value: the simulator itself
is untouched, so its results stay bit-identical, and the wrapper costs the bench only.
"""

from __future__ import annotations

import contextlib
import csv
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from thermogov.board import BoardProfile, SensorProfile
from thermogov.interfaces import Reading
from thermogov.sim.model.sensors import SimSensor

#: Codes further than this many noise sigmas from the true value are not enumerated (their
#: probability is under 1e-9 each).
TAIL_SIGMAS = 6.0
#: Above this many code combinations per tick the weighted sum of the readings is taken as
#: normal (fine codes: the rounding is then a small uniform term in its variance).
MAX_COMBOS = 4096


@dataclass
class ReadLog:
    """Every successful read of each sensor: its instant and the lagged true value it read."""

    t_s: dict[str, list[float]] = field(default_factory=dict)
    true_c: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, t_s: float, true_c: float) -> None:
        self.t_s.setdefault(name, []).append(t_s)
        self.true_c.setdefault(name, []).append(true_c)


@contextlib.contextmanager
def recording_reads() -> Iterator[ReadLog]:
    """Within the block, every simulated sensor read's lagged true value goes into the log.

    A failed read (dropout) raises before it is logged, as the governor never sees it; a stuck
    or spiking sensor's true value is logged, which the expectation then treats as an ordinary
    read (the fault worlds are not what this judges).
    """
    log = ReadLog()
    original = SimSensor.read

    def read(self: SimSensor) -> Reading:
        reading = original(self)
        if self._lagged is not None:  # every read sets it (the first takes the true value)
            log.add(self.profile.name, reading.t_s, float(self._lagged))
        return reading

    SimSensor.read = read  # type: ignore[method-assign]
    try:
        yield log
    finally:
        SimSensor.read = original  # type: ignore[method-assign]


def _phi(x: np.ndarray) -> np.ndarray:
    """The standard normal distribution function, elementwise."""
    return 0.5 * np.vectorize(math.erfc)(-x / math.sqrt(2.0))


def _code_probs(true_c: np.ndarray, p: SensorProfile) -> tuple[np.ndarray, np.ndarray]:
    """Per tick, the codes a read of ``true_c`` can give and their probabilities (ticks x codes)."""
    q, s = p.quant_c, p.noise_c
    k = math.ceil(TAIL_SIGMAS * s / q) + 1
    centre = np.round(true_c / q)
    codes = (centre[:, None] + np.arange(-k, k + 1)[None, :]) * q
    hi = _phi((codes + q / 2.0 - true_c[:, None]) / s)
    lo = _phi((codes - q / 2.0 - true_c[:, None]) / s)
    return codes, hi - lo


def prob_at_or_above(
    true_c: Mapping[str, np.ndarray], profiles: Mapping[str, SensorProfile], trip_c: float
) -> np.ndarray:
    """Per tick, P(the weighted mean of the sensors' readings >= ``trip_c``).

    ``true_c`` gives, per sensor fused at every tick, the true value of its latest read.  With
    coarse codes every combination of codes is enumerated (exact under the sensor model);
    otherwise the weighted mean is normal with the rounding as a uniform term.
    """
    names = list(true_c)
    w = np.array([profiles[n].weight for n in names], dtype=float)
    w = w / w.sum()
    n_ticks = len(next(iter(true_c.values())))
    noisy = [profiles[n].noise_c > 0.0 for n in names]
    sizes = [
        2 * math.ceil(TAIL_SIGMAS * profiles[n].noise_c / profiles[n].quant_c) + 3
        if profiles[n].quant_c > 0.0 and profiles[n].noise_c > 0.0
        else 0
        for n in names
    ]
    if all(noisy) and all(sizes) and math.prod(sizes) <= MAX_COMBOS:
        # Exact: the distribution of the weighted sum of independent discrete readings.
        total = np.zeros((n_ticks, 1))
        prob = np.ones((n_ticks, 1))
        for wi, n in zip(w, names, strict=True):
            codes, probs = _code_probs(np.asarray(true_c[n], dtype=float), profiles[n])
            total = (total[:, :, None] + wi * codes[:, None, :]).reshape(n_ticks, -1)
            prob = (prob[:, :, None] * probs[:, None, :]).reshape(n_ticks, -1)
        # A reading equal to the trip counts (>=); float sums of codes need a hair of slack.
        return (prob * (total >= trip_c - 1e-9)).sum(axis=1)
    mean = sum(wi * np.asarray(true_c[n], dtype=float) for wi, n in zip(w, names, strict=True))
    var = sum(
        wi * wi * (profiles[n].noise_c ** 2 + profiles[n].quant_c ** 2 / 12.0)
        for wi, n in zip(w, names, strict=True)
    )
    if var <= 0.0:  # noiseless and exact: the reading is the value
        return (mean >= trip_c).astype(float)
    return 1.0 - _phi((trip_c - mean) / math.sqrt(var))


def expected_above_s(
    log: ReadLog,
    tick_t_s: Sequence[float],
    tick_used: Sequence[str],
    board: BoardProfile,
    trip_c: float,
) -> float:
    """Expected seconds with the fused reading at or above ``trip_c``, as the bench's meter sums.

    ``tick_t_s`` and ``tick_used`` are the control ticks' instants and fused sensors (the trace's
    ``t_s`` and ``sensors_used``, ``+``-joined); each tick counts the time to the next one, so
    the last tick counts nothing, as in the meter.  Ticks fusing the same sensors are taken
    together.
    """
    t = np.asarray(tick_t_s, dtype=float)
    if t.size < 2:
        return 0.0
    dt = np.diff(t)
    used = np.asarray(tick_used[:-1], dtype=object)
    profiles = {s.name: s for s in board.sensors}
    total = 0.0
    for label in set(used.tolist()):
        if not label:
            continue  # no fresh sensor: no fused value, never above the trip
        rows = np.flatnonzero(used == label)
        true: dict[str, np.ndarray] = {}
        for name in str(label).split("+"):
            rt = np.asarray(log.t_s.get(name, []), dtype=float)
            idx = np.searchsorted(rt, t[rows] + 1e-9, side="right") - 1
            if rt.size == 0 or (idx < 0).any():
                raise ValueError(f"expected_above_s: sensor {name} fused before its first logged read")
            true[name] = np.asarray(log.true_c[name], dtype=float)[idx]
        total += float((prob_at_or_above(true, profiles, trip_c) * dt[rows]).sum())
    return total


def trace_ticks(run_dir: Path) -> tuple[list[float], list[str]]:
    """The control ticks' instants and fused sensors from a run folder's ``trace.csv``."""
    with (Path(run_dir) / "trace.csv").open(newline="") as fh:
        rows = [(float(r["t_s"]), r["sensors_used"]) for r in csv.DictReader(fh)]
    return [t for t, _ in rows], [u for _, u in rows]


__all__ = ["ReadLog", "expected_above_s", "prob_at_or_above", "recording_reads", "trace_ticks"]
