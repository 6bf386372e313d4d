"""The simulated fan: a conductance to ambient that depends on the level, and its own power.

A fan does not change the heat the SoC makes; it changes how fast the heatsink sheds it.  In
the lumped RC plant that is one node's conductance to ambient rising with the level (the
profile's ``[fan]`` table, :mod:`thermogov.fanprofile`), so a level change re-decomposes the
plant (a few microseconds for a handful of nodes).  The fan's electrical power is added to the
board's power (what a supply meter would read) but not to any node: it leaves in the airflow.

A stalled fan (``fan_stall`` event: a seized bearing, an unplugged connector) keeps whatever
level it is commanded and reads it back, as a pwm-fan's ``pwm1`` does, but moves no air and
draws no power; only its tachometer (``rpm``) tells.
"""

from __future__ import annotations

from thermogov.fanprofile import FanProfile
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
        self._g = 0.0
        self.stalled = False

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
        self._update()
        return level

    def restore(self) -> None:
        self.apply(0)

    def _update(self) -> None:
        g = 0.0 if self.stalled else self.profile.conductance_w_per_k[self._level]
        self.plant.add_ambient_link(self.profile.node, g - self._g)
        self._g = g

    def stall(self) -> None:
        self.stalled = True
        self._update()

    @property
    def power_w(self) -> float:
        return 0.0 if self.stalled else self.profile.power_w[self._level]

    def rpm(self) -> int:
        if self.stalled:
            return 0
        return round(FULL_RPM * self.profile.duty[self._level] / 255)

    def follow_default_curve(self) -> bool:
        """The board's own curve, polled like the kernel polls its zone; True if the level changed."""
        temp = self.plant.temp_c(self.profile.curve_node)
        target = self.profile.default_curve.target(temp, self._level)
        if target == self._level:
            return False
        self.apply(target)
        return True
