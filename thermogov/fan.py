"""Governor-owned fan control: raise the fan before lowering clocks, and never let it flap.

A fan is the cheap lever: a Raspberry Pi 5 Active Cooler or a Jetson devkit fan costs well
under a watt, while lowering a clock costs throughput.  So when the governor owns the fan
(``[run] fan = "governor"``, opt-in), :class:`FanController` orders the two levers:

* **the fan first**: whenever the policy wants to lower a cap and the fan is not at its top
  level, the fan goes straight to the top and the cut is held for that tick; clocks are lowered
  only while the fan is at its top;
* **clocks back first**: the fan steps down only while every cap is at its table maximum;
* **its own curve in between**: level ``k`` comes on at ``on_c[k-1]`` and goes off below
  ``on_c[k-1] - hysteresis_c`` (a kernel step curve with hysteresis), and no change (up or
  down, outside the two rules above and the emergencies) follows another within
  ``dwell_s``.

Why hysteresis *and* dwell: with a temperature hovering at a step, hysteresis alone still
lets noise of more than ``hysteresis_c`` toggle the fan at every sample, and dwell alone
toggles it every ``dwell_s``; together a step changes at most twice per ``dwell_s`` and only
for a real swing.  (The reference failure: the Pi 5 kernel's ``step_wise`` fan control with
zero trip hysteresis switched the fan on and off more than 1,000 times an hour,
raspberrypi/linux#5726.)

Emergencies (temperature unknown, a sensor at its hard limit, failsafe) put the fan at its
top at once: more air is never the unsafe direction.

A fan with a tachometer (an optional ``rpm()`` on the actuator: pwm-fan's ``fan1_input``) that
reads 0 RPM at a level above 0 for longer than ``dwell_s`` is reported once as ``fan_stalled``
(and ``fan_running`` when it turns again).  Control does not change: the temperature rises, the
policy asks for cuts, and those go through because the fan is already at its top.

The board's *own* default curve (the baseline the governor-owned fan is judged against) is the
same :class:`FanCurve` without the ordering rules; the simulator runs it for ``fan =
"board"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from thermogov.interfaces import ActuatorError, ConfigError, FanActuator


@dataclass(frozen=True, slots=True)
class FanCurve:
    """A step curve: level ``k`` (1-based) is on from ``on_c[k-1]``, off below it minus ``hyst_c``."""

    on_c: tuple[float, ...]  # ascending, one per level above 0
    hyst_c: float

    def __post_init__(self) -> None:
        if any(b < a for a, b in zip(self.on_c, self.on_c[1:], strict=False)):
            raise ConfigError(f"fan curve: step temperatures {list(self.on_c)} must ascend")
        if self.hyst_c < 0:
            raise ConfigError(f"fan curve: hysteresis {self.hyst_c} must be >= 0")

    @property
    def top(self) -> int:
        return len(self.on_c)

    def target(self, temp_c: float, current: int) -> int:
        """The level this temperature asks for, given the level in force (hysteresis)."""
        up = sum(1 for c in self.on_c if temp_c >= c)
        if up >= current:
            return up
        # Going down: a level stays on until the temperature falls below its step minus hyst.
        level = current
        while level > 0 and temp_c < self.on_c[level - 1] - self.hyst_c:
            level -= 1
        return level


def spread_curve(levels: int, start_c: float, full_c: float, hyst_c: float) -> FanCurve:
    """``levels - 1`` steps evenly from ``start_c`` (level 1) to ``full_c`` (the top level)."""
    n = levels - 1
    if n < 1:
        raise ConfigError("fan: a controllable fan needs at least two levels")
    if n == 1:
        return FanCurve((full_c,), hyst_c)
    step = (full_c - start_c) / (n - 1)
    return FanCurve(tuple(round(start_c + k * step, 3) for k in range(n)), hyst_c)


class FanController:
    """Drives one :class:`~thermogov.interfaces.FanActuator` for the governor (see module doc)."""

    def __init__(self, fan: FanActuator, curve: FanCurve, dwell_s: float) -> None:
        if curve.top != fan.levels - 1:
            raise ConfigError(
                f"fan {fan.name}: the curve has {curve.top + 1} levels, the fan {fan.levels}; "
                "give one step temperature per level above 0"
            )
        self.fan = fan
        self.curve = curve
        self.dwell_s = dwell_s
        self.switches = 0
        self.failures = 0
        self._changed_at: float | None = None
        self._held_at: float | None = None
        self._still_since: float | None = None
        self.stalled = False

    @property
    def level(self) -> int:
        return self.fan.level

    @property
    def top(self) -> int:
        return self.fan.levels - 1

    def _set(self, now_s: float, level: int, why: str) -> list[str]:
        was = self.fan.level
        try:
            got = self.fan.apply(level)
        except ActuatorError:
            self.failures += 1
            return [f"fan_write_failed:{self.fan.name}"]
        self._changed_at = now_s
        if got != was:
            self.switches += 1
            return [f"fan:{got}:{why}"]
        return []

    def _dwelt(self, now_s: float) -> bool:
        return self._changed_at is None or now_s - self._changed_at >= self.dwell_s - 1e-9

    def emergency(self, now_s: float) -> list[str]:
        """Temperature unknown, a hard limit or failsafe: the top level at once."""
        return self._set(now_s, self.top, "emergency") if self.fan.level < self.top else []

    def step(
        self, now_s: float, fused_c: float, wants_cut: bool, clocks_at_top: bool
    ) -> tuple[bool, list[str]]:
        """One control tick: (hold the policy's cap cuts this tick?, trace events)."""
        hold, events = self._control(now_s, fused_c, wants_cut, clocks_at_top)
        return hold, events + self._watch_tach(now_s)

    def _watch_tach(self, now_s: float) -> list[str]:
        rpm_of = getattr(self.fan, "rpm", None)
        rpm = rpm_of() if rpm_of is not None else None
        if rpm is None:
            return []
        if rpm > 0 or self.fan.level == 0:
            self._still_since = None
            if self.stalled:
                self.stalled = False
                return [f"fan_running:{self.fan.name}"]
            return []
        if self._still_since is None:
            self._still_since = now_s
        if not self.stalled and now_s - self._still_since >= max(self.dwell_s, 1.0):
            self.stalled = True
            return [f"fan_stalled:{self.fan.name}"]
        return []

    def _control(
        self, now_s: float, fused_c: float, wants_cut: bool, clocks_at_top: bool
    ) -> tuple[bool, list[str]]:
        level = self.fan.level
        if wants_cut and level < self.top:
            events = self._set(now_s, self.top, "before_clocks")
            # Hold the cut only if the fan really is at its top now, and at most once per
            # dwell: a fan that cannot be raised (a failed write, another agent lowering it
            # again) must never keep the clocks from coming down.
            recent = self._held_at is not None and now_s - self._held_at < self.dwell_s
            hold = self.fan.level >= self.top and not recent
            if hold:
                self._held_at = now_s
            return hold, events
        target = self.curve.target(fused_c, level)
        if target > level and self._dwelt(now_s):
            return False, self._set(now_s, target, "curve")
        if target < level and clocks_at_top and self._dwelt(now_s):
            return False, self._set(now_s, level - 1, "curve")
        return False, []

    def summary(self) -> dict[str, object]:
        return {
            "fan": self.fan.name,
            "fan_owner": "governor",
            "fan_write_failures": self.failures,
            "fan_stalled_seen": self.stalled,
        }
