"""The contracts every world implements, their value types and the error hierarchy.

The governor core is written only against these: a simulated board and a real sysfs tree are
interchangeable because both provide sensor sources, frequency actuators and a clock (and, where
the board has them, a fan actuator and load control).  Keeping
the contracts tiny (one call for a sensor, like the kernel's ``get_temp``) keeps fakes honest.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, runtime_checkable


class ThermogovError(Exception):
    """Any error a user can act on.  The message is one line naming the field/file and the fix.

    The CLI turns every ThermogovError into that line on stderr and exit status 2: bad input
    or usage, detected before anything was written.
    """


class RuntimeFailure(Exception):
    """The input was fine but the run failed: the board, the environment or another process.

    A sibling of :class:`ThermogovError`, not a subclass, so no handler meant for bad input
    (exit 2, "nothing was written") can swallow it.  The CLI prints the one-line message and
    exits 1; for ``run``/``restore`` the message says what is left changed on the board and the
    command that puts it back, because systemd's ``Restart=on-failure`` and shell scripts act
    on that status.
    """


class ConfigError(ThermogovError):
    """A configuration, board profile or command-line value is invalid."""


class SensorError(ThermogovError):
    """A sensor read produced no usable temperature (I/O error, garbage, offline marker)."""


class ActuatorError(ThermogovError):
    """A frequency cap could not be applied or read back."""


class LogFormatError(ThermogovError):
    """An input log file cannot be understood at all (individual bad lines are skipped)."""


class Reading(NamedTuple):
    """One good temperature sample: the value in °C and the clock time it was taken.

    A NamedTuple rather than a frozen dataclass: equally immutable, and several times cheaper
    to build, which matters at ~80,000 readings per simulated hour.
    """

    sensor: str
    value_c: float
    t_s: float


@runtime_checkable
class SensorSource(Protocol):
    """A temperature sensor.  ``read`` returns a Reading or raises SensorError; never invents."""

    @property
    def name(self) -> str: ...

    def read(self) -> Reading: ...


@runtime_checkable
class FrequencyActuator(Protocol):
    """One frequency domain (a cpufreq policy, a devfreq GPU, or their simulated twins).

    ``table_hz`` is immutable and ascending.  ``apply`` accepts only table members and returns
    the cap the hardware actually put in force (read back, because kernels clamp silently and
    firmware may override).  ``restore`` puts back exactly what was captured at open.
    """

    @property
    def name(self) -> str: ...

    @property
    def table_hz(self) -> tuple[int, ...]: ...

    @property
    def cap_hz(self) -> int: ...

    def apply(self, cap_hz: int) -> int: ...

    def effective_hz(self) -> int | None: ...

    def restore(self) -> None: ...


@runtime_checkable
class FanActuator(Protocol):
    """A fan the governor owns (a ``pwm-fan`` hwmon or cooling device, or its simulated twin).

    Speeds are ``levels`` discrete steps, 0 the slowest (often off) and ``levels - 1`` the
    top.  ``apply`` returns the level read back (another agent, such as the kernel's own
    thermal governor, may have moved it); ``level`` is the one last read back; ``restore``
    puts back exactly the mode and speed captured at open.
    """

    @property
    def name(self) -> str: ...

    @property
    def levels(self) -> int: ...

    @property
    def level(self) -> int: ...

    def apply(self, level: int) -> int: ...

    def restore(self) -> None: ...


@runtime_checkable
class Clock(Protocol):
    """Seconds on a monotonic time base.  Only runners wait; the governor only reads ``now``."""

    def now(self) -> float: ...


class PowerStatus(NamedTuple):
    """Where the board's power comes from right now, as both worlds report it.

    The power-aware parts of the governor (budgets per power state, inference modes, Li-ion
    limits) key on ``state`` only, so a simulated battery and a real ``power_supply`` class
    device are interchangeable.  ``state`` is one of ``"mains"`` (no battery, or external power
    with no battery charging), ``"charging"``, ``"discharging"`` or ``"full"``; the other fields
    are ``None`` where the board does not report them (many fuel gauges have no power or
    temperature attribute).
    """

    state: str
    capacity_pct: float | None = None
    power_w: float | None = None
    battery_temp_c: float | None = None
    t_s: float = 0.0


POWER_STATES = ("mains", "charging", "discharging", "full")


@runtime_checkable
class LoadControl(Protocol):
    """How a world obeys the load the governor asks for (inference mode and duty cycle).

    ``mode`` is a :class:`thermogov.modes.ModeCost` (its compute and memory fractions of the
    reference inference, its name for an application to act on); ``duty`` is the fraction of
    the time the inference pipeline may run, 0.0 for standby.  The simulator's workload obeys
    directly; on a board, kernel idle injection enforces the duty cycle where the board has it.
    """

    def set_load(self, mode: Any, duty: float) -> None: ...
