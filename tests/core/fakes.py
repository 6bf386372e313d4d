"""Minimal fakes of the contracts: a sensor is one function, an actuator records its writes."""

from __future__ import annotations

from collections.abc import Callable

from thermogov.interfaces import ActuatorError, Reading, SensorError


class FnSensor:
    def __init__(self, name: str, fn: Callable[[], float | None]) -> None:
        self._name = name
        self.fn = fn

    @property
    def name(self) -> str:
        return self._name

    def read(self) -> Reading:
        v = self.fn()
        if v is None:
            raise SensorError(f"sensor {self._name}: read failed")
        return Reading(self._name, v, 0.0)


class RecordingActuator:
    def __init__(self, name: str, table: tuple[int, ...]) -> None:
        self._name = name
        self._table = table
        self._cap = table[-1]
        self.writes: list[int] = []
        self.fail = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def table_hz(self) -> tuple[int, ...]:
        return self._table

    @property
    def cap_hz(self) -> int:
        return self._cap

    def apply(self, cap_hz: int) -> int:
        if self.fail:
            raise ActuatorError(f"{self._name}: EBUSY")
        assert cap_hz in self._table
        self.writes.append(cap_hz)
        self._cap = cap_hz
        return cap_hz

    def effective_hz(self) -> int:
        return self._cap

    def restore(self) -> None:
        self._cap = self._table[-1]
