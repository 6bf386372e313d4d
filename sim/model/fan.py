"""The simulated fan: a conductance to ambient that depends on the level, and its own power.

A fan does not change the heat the SoC makes; it changes how fast the heatsink sheds it.  In
the lumped RC plant that is one node's conductance to ambient rising with the level (the
profile's ``[fan]`` table, :mod:`thermogov.fanprofile`), so a level change re-decomposes the
plant (a few microseconds for a handful of nodes).  The fan's electrical power is added to the
board's power (what a supply meter would read) but not to any node: it leaves in the airflow.

A stalled fan (``fan_stall`` event: a seized bearing, an unplugged connector) keeps whatever
level it is commanded and reads it back, as a pwm-fan's ``pwm1`` does, but moves no air and
draws no power; only its tachometer (``rpm``) tells.

A PWM fan a daemon drives (the profile's ``kind = "pwm"``, ``nvfancontrol`` on a Jetson) runs
at any duty under its board curve: the duty follows :class:`thermogov.fanpwm.PwmCurve`, and its
conductance and power are the table's interpolated in duty.  Its ``level`` is then the level
nearest its duty (what a trace's ``fan_level`` column shows); the governor, when it owns the
fan, drives it at its levels' own duties, so a governed fan behaves exactly as a level fan.
"""

from __future__ import annotations

from thermogov.fanprofile import FanProfile
from thermogov.fanpwm import interp_in_duty
from thermogov.interfaces import ActuatorError
from thermogov.sim.model.plant import ThermalPlant

# Tachometer reading at full duty (E: a 30 mm 5 V blower; the Pi 5 Active Cooler's fan reads
# ~2,800-5,100 RPM in sbc-bench "Hardware sensors" blocks, rpi5_4I1w).  Only shown, never used
# by control.
FULL_RPM = 5000


class SimFan:
    def __init__(self, profile: FanProfile, plant: ThermalPlant, name: str = "fan") -> None:
        self.profile = profile
        self.plant = plant
        self._name = name
        self._level = 0
        self._duty = profile.duty[0]
        self._g = 0.0
        self.stalled = False
        self.duty_changes = 0  # writes of a new duty by the board's own curve
        self.duty_s = 0.0  # integral of the duty over time (its mean, once divided)

    @property
    def name(self) -> str:
        return self._name

    @property
    def levels(self) -> int:
        return self.profile.levels

    @property
    def level(self) -> int:
        return self._level

    def apply(self, level: int) -> int:
        if not 0 <= level < self.levels:
            raise ActuatorError(f"fan {self._name}: level {level} is outside 0..{self.levels - 1}")
        self._level = level
        self._duty = self.profile.duty[level]
        self._update()
        return level

    @property
    def duty(self) -> int:
        return self._duty

    def _set_duty(self, duty: int) -> None:
        """A PWM fan at any duty; its level the one whose duty is nearest (the lower on a tie)."""
        self._duty = duty
        table = self.profile.duty
        self._level = min(range(len(table)), key=lambda k: (abs(table[k] - duty), k))
        self._update()

    def restore(self) -> None:
        self.apply(0)

    def _update(self) -> None:
        g = (
            0.0
            if self.stalled
            else interp_in_duty(self.profile.duty, self.profile.conductance_w_per_k, self._duty)
        )
        self.plant.add_ambient_link(self.profile.node, g - self._g)
        self._g = g

    def stall(self) -> None:
        self.stalled = True
        self._update()

    @property
    def power_w(self) -> float:
        return 0.0 if self.stalled else interp_in_duty(self.profile.duty, self.profile.power_w, self._duty)

    def rpm(self) -> int:
        if self.stalled:
            return 0
        return round(FULL_RPM * self._duty / 255)

    def follow_default_curve(self) -> bool:
        """The board's own curve, polled like the kernel (or the daemon) polls its zone.

        True if the level changed (a PWM fan's nearest level: its duty moves more often, counted
        in ``duty_changes``).
        """
        temp = self.plant.temp_c(self.profile.curve_node)
        pwm_curve = self.profile.default_pwm
        if pwm_curve is not None:
            duty = pwm_curve.target(temp, self._duty)
            if duty == self._duty:
                return False
            self.duty_changes += 1
            before = self._level
            self._set_duty(duty)
            return self._level != before
        target = self.profile.default_curve.target(temp, self._level)
        if target == self._level:
            return False
        self.apply(target)
        return True
