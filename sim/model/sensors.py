"""Simulated temperature sensors: lag, noise, quantisation and injectable faults.

A real sensor does not report the die node: the thermistor or diode lags it (first-order,
``lag_s``), adds noise and reports in steps (m°C, 0.1 °C, or an ADC code).  Faults are the ones
a governor must survive: a dropout (reads fail), a stuck value, and a one-sample spike.  Noise
comes from the sensor's own random stream, so the values a sensor reports at a given instant
do not depend on what the policy did (paired comparisons stay paired).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from thermogov.board import SensorProfile
from thermogov.interfaces import Reading, SensorError

_new_reading = tuple.__new__  # Reading's fields in order, without its keyword constructor


class SimSensor:
    def __init__(
        self,
        profile: SensorProfile,
        node_temp: Callable[[], float],
        now_s: Callable[[], float],
        rng: np.random.Generator,
    ) -> None:
        self.profile = profile
        self._node_temp = node_temp
        self._now = now_s
        self._rng = rng
        self._noise: list[float] = []  # a block of the stream, as Python floats
        self._pos = 0
        self._lag_factor: dict[float, float] = {}  # per interval: reads come at a few intervals
        self._lagged: float | None = None
        self._last_t = 0.0
        self._last_value: float | None = None
        self.dropout_until = -1.0
        self.stuck_until = -1.0
        self.spike_c = 0.0

    @property
    def name(self) -> str:
        return self.profile.name

    def _next_noise(self) -> float:
        pos = self._pos
        if pos >= len(self._noise):
            self._noise = self._rng.standard_normal(4096).tolist()
            pos = 0
        self._pos = pos + 1
        return self._noise[pos]

    def read(self) -> Reading:
        # Every sensor read of a simulated run comes through here (78,000 an hour by default):
        # the noise draw inlined, the reading built without the NamedTuple's Python constructor.
        t = self._now()
        true = self._node_temp()
        p = self.profile
        if self._lagged is None or p.lag_s <= 0.0:
            self._lagged = lagged = true
        else:
            dt = t - self._last_t
            k = self._lag_factor.get(dt)
            if k is None:
                k = 1.0 - math.exp(-dt / p.lag_s)
                if len(self._lag_factor) < 64:
                    self._lag_factor[dt] = k
            self._lagged = lagged = self._lagged + (true - self._lagged) * k
        self._last_t = t
        pos = self._pos
        if pos >= len(self._noise):
            self._noise = self._rng.standard_normal(4096).tolist()
            pos = 0
        self._pos = pos + 1
        noise = self._noise[pos] * p.noise_c  # drawn even when faulty: keeps streams aligned
        if t < self.dropout_until:
            raise SensorError(f"sensor {p.name}: simulated dropout (read failed)")
        if t < self.stuck_until and self._last_value is not None:
            return _new_reading(Reading, (p.name, self._last_value, t))
        value = lagged + noise
        if p.quant_c > 0.0:
            value = round(value / p.quant_c) * p.quant_c
        if self.spike_c:
            value += self.spike_c
            self.spike_c = 0.0
            return _new_reading(
                Reading, (p.name, value, t)
            )  # a spike is not what a stuck sensor would repeat
        self._last_value = value
        return _new_reading(Reading, (p.name, value, t))
