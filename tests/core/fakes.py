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
    """Plain attributes satisfy the protocol's read-only properties."""

    def __init__(self, name: str, table: tuple[int, ...]) -> None:
        self.name = name
        self.table_hz = table
        self.cap_hz = table[-1]
        self.writes: list[int] = []
        self.fail = False

    def apply(self, cap_hz: int) -> int:
        if self.fail:
            raise ActuatorError(f"{self.name}: EBUSY")
        assert cap_hz in self.table_hz
        self.writes.append(cap_hz)
        self.cap_hz = cap_hz
        return cap_hz

    def effective_hz(self) -> int:
        return self.cap_hz

    def restore(self) -> None:
        self.cap_hz = self.table_hz[-1]
