"""The readable trip: where a policy that must not read the trip code can hold the fused value.

The oracle (:mod:`.oracle`) holds the *true* fused value at 85.0 °C.  A policy sees readings:
each sensor reports its node's (lagged) value plus white Gaussian noise, rounded to its code
step (``noise_c``, ``quant_c`` of the board profile; :mod:`thermogov.sim.model.sensors`), and
the fused reading is the weighted mean of the latest readings (:mod:`thermogov.fusion`),
evaluated once per control period.  The trip target (no more time above the trip than
``hysteresis``, which reads it once) allows about one fused reading at or above the trip per
run.  So a policy held to the target cannot sit where the oracle sits: the *readable trip* is

    trip - edge - z * sigma

``edge`` the fused code's lower edge under the trip (each fused sensor that can read the trip,
hard limit above it, by its weight share: :func:`thermogov.policies.stepped.sensor_code_edge_c`,
0.25 °C on the 0.5-°C codes of the Xavier NX, AGX Xavier and Nano, 0.025 on a Pi 5, none on
the Orins, whose profiles declare no code); ``sigma`` the fused read noise from the profile's
per-sensor noise and the fusion weights (``sqrt(sum (w_i / W)**2 sigma_i**2)``: each sensor's
noise is drawn from its own stream, so independent between sensors); ``z`` the quantile with
``P(N(0, 1) > z) = period / run``, so a level held for the whole run gives one fused reading at
or above the trip in expectation.

What the assumption is and how far it holds (checked against the simulator's noise model):
the noise is white per sensor (a fresh draw every read, added after the lag) and independent
between sensors.  Consecutive fused values are *not* independent (a sensor read every 150 ms
reappears in the next 100-ms fusion), but the target counts readings, and the expected count is
the per-reading chance times the count whatever the correlation: only the marginal matters.
The formula is exact for one coded sensor (the Pi: reading the trip code means the lagged value
plus noise reaches the edge) and for uncoded sensors (the Orins: the weighted sum of Gaussians
is Gaussian).  For several *coded* sensors it treats the fused rounding as one weighted edge,
which it is not: the fused reading reaches the trip only on combinations of codes
(:func:`read_chance` counts them exactly with :func:`.expected.prob_at_or_above`;
docs/policies.md, session 19b, gives the figures).

This level gives a *reference*, not a bound: a policy may read the trip (``hysteresis`` does,
once; ``stock`` at will) and beat the oracle at the readable trip.  The bound stays the oracle
at 85.0 (free and any-window); :mod:`tests.compare.test_oracle_bound` tests that one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from thermogov.board import BoardProfile, SensorProfile
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.policies.stepped import sensor_code_edge_c
from thermogov.sim.compare.expected import prob_at_or_above
from thermogov.sim.compare.oracle import TRIP_C, oracle

_NORMAL = NormalDist()


@dataclass(frozen=True, slots=True)
class ReadableTrip:
    """The readable trip and the terms it is made of (all °C but ``z``, ``period_s``, ``run_s``)."""

    trip_c: float
    edge_c: float
    sigma_c: float
    z: float
    period_s: float
    run_s: float

    @property
    def level_c(self) -> float:
        return self.trip_c - self.edge_c - self.z * self.sigma_c


def trip_quantile_z(period_s: float, run_s: float) -> float:
    """``z`` with ``P(N(0, 1) > z) = period_s / run_s``: one reading in the run above ``z`` sigmas.

    7200 s read every 0.1 s: 4.19.  A run of two periods or less gives 0 (no margin under the
    edge: a reading at the edge is as likely as not, and one is allowed).
    """
    for what, v in (("period_s", period_s), ("run_s", run_s)):
        if not (math.isfinite(v) and v > 0.0):
            raise ConfigError(f"readable trip: {what} must be a finite number > 0, got {v}")
    p = period_s / run_s
    if p >= 0.5:
        return 0.0
    return -_NORMAL.inv_cdf(p)


def fused_sensors(config: Config, board: BoardProfile) -> tuple[SensorProfile, ...]:
    """The fused sensors' profiles with the weights and hard limits the run uses (config overrides)."""
    return tuple(
        dataclasses.replace(board.sensor(spec.name), weight=spec.weight, hard_limit_c=spec.hard_limit_c)
        for spec in config.sensor_specs(board)
    )


def fused_edge_c(sensors: Sequence[SensorProfile], trip_c: float = TRIP_C) -> float:
    """How far under the trip the fused trip code starts: each sensor's code edge by weight share.

    Only sensors that can read the trip count (hard limit above it): a battery thermistor at
    40 °C has no code at 85.
    """
    total = sum(s.weight for s in sensors)
    if total <= 0.0:
        return 0.0
    return (
        sum(
            s.weight * sensor_code_edge_c(s.quant_c, trip_c)
            for s in sensors
            if s.quant_c > 0.0 and s.hard_limit_c > trip_c
        )
        / total
    )


def fused_sigma_c(sensors: Sequence[SensorProfile]) -> float:
    """The fused read noise: independent sensors' sigmas by their weight shares, in quadrature."""
    total = sum(s.weight for s in sensors)
    if total <= 0.0:
        return 0.0
    return math.sqrt(sum((s.weight / total) ** 2 * s.noise_c**2 for s in sensors))


def readable_trip(config: Config, board: BoardProfile | None = None, trip_c: float = TRIP_C) -> ReadableTrip:
    """The readable trip of ``config``'s world: its fused sensors, control period and run length."""
    board = board or config.load_board()
    sensors = fused_sensors(config, board)
    period_s = config.governor.control_period_ms / 1000.0
    run_s = config.sim.duration_s
    return ReadableTrip(
        trip_c,
        fused_edge_c(sensors, trip_c),
        fused_sigma_c(sensors),
        trip_quantile_z(period_s, run_s),
        period_s,
        run_s,
    )


def readable_anywindow_ips(config: Config, board: BoardProfile | None = None) -> float | None:
    """The any-window oracle held under ``config``'s readable trip: the worst-window reference.

    The yardstick of the views that score a run by its worst window (the open-ended view, the
    seed-set race), as :func:`thermogov.sim.compare.anywindow.anywindow_bound` is their bound; None
    where that bound is (an open load).  The level follows the world's own length, so a world
    continued past its end (``anywindow.extended``) gets its larger ``z``.
    """
    if config.sim.workload.kind != "saturating":
        return None
    board = board or config.load_board()
    level = readable_trip(config, board)
    return oracle(config, board, trip_c=level.level_c, any_window=True).throughput_ips


def read_chance(sensors: Sequence[SensorProfile], levels_c: Sequence[float], trip_c: float = TRIP_C) -> float:
    """Exact chance that one fused reading is at or above the trip, each sensor read at its level.

    The simulator's sensor model without the formula's one-edge approximation: codes enumerated
    (:func:`.expected.prob_at_or_above`, one tick).
    """
    true_c = {s.name: np.array([lv]) for s, lv in zip(sensors, levels_c, strict=True)}
    return float(prob_at_or_above(true_c, {s.name: s for s in sensors}, trip_c)[0])
