"""Session 22a: the device tree's ``cooling-levels`` of a pwm-fan, and the per-look rule on them.

hw/fanlevels.py reads the duties the driver itself reads at probe (big-endian u32 cells under the
hwmon's ``of_node``) and trusts a state's duty once a look confirms the driver keeps it, so a
device tree that does not describe the driver never makes a rival, and a late driver never does.
"""

from __future__ import annotations

from pathlib import Path

from tests.hw import fakesys
from tests.hw.fakesys import FakeTree
from tests.hw.test_hw_hwmon_fan_rival import _clocked
from thermogov.hw.fan import HwFan, discover_fan
from thermogov.hw.fanlevels import CoolingDuties, cooling_levels
from thermogov.hw.sysfs import SysfsTree

HWMON = "sys/devices/platform/cooling_fan/hwmon/hwmon2"
NODE = "sys/firmware/devicetree/base/cooling_fan"
STATE = "sys/devices/virtual/thermal/cooling_device0/cur_state"
PI5_LEVELS = (0, 75, 125, 175, 250)  # bcm2712-rpi-5-b.dts


def _cells(levels: tuple[int, ...]) -> bytes:
    return b"".join(v.to_bytes(4, "big") for v in levels)


def _pi5(root: Path, dt: bytes | None) -> FakeTree:
    t = fakesys.rpi5(root, cpu_mc=88000)
    fakesys.pwm_fan(t, board="rpi5", hwmon=2, cdev=0, pwm=75, state=1)
    if dt is not None:
        (t.root / NODE).mkdir(parents=True)
        (t.root / NODE / "cooling-levels").write_bytes(dt)
        t.link(f"{HWMON}/of_node", NODE)
    return t


def test_cooling_levels_are_read_only_as_one_duty_per_state(tmp_path: Path) -> None:
    cases = {
        "good": (_cells(PI5_LEVELS), PI5_LEVELS),
        "short": (_cells(PI5_LEVELS[:4]), None),
        "torn": (_cells(PI5_LEVELS)[:-1], None),
        "over255": (_cells((0, 75, 125, 175, 256)), None),
        "none": (None, None),
    }
    for name, (dt, want) in cases.items():
        t = _pi5(tmp_path / name, dt)
        assert cooling_levels(SysfsTree(t.root), "sys/class/hwmon/hwmon2", 4) == want, name


def test_the_rule_confirms_per_state_and_lets_a_late_driver_be() -> None:
    d = CoolingDuties(PI5_LEVELS)
    assert d.stray(4, 255) == ""  # the probe's 255 at state 4: no state confirmed yet
    assert d.stray(2, 125) == ""  # confirmed
    assert d.stray(4, 125) == ""  # state 4 not confirmed: never judged
    assert d.stray(4, 250) == ""
    assert d.stray(2, 250) == ""  # late: the last confirmed duty at a new state
    assert d.stray(2, 125) == ""
    assert d.stray(4, 255).startswith("250, the duty of cur_state 4")  # a pwm1 writer


def _driven(t: FakeTree) -> tuple[HwFan, list[float]]:
    """The tree's fan on a moved clock, its state writes going through :class:`_Driver`."""
    fan, now = _clocked(t)
    fan.io.write_int = _Driver(t, PI5_LEVELS).write  # type: ignore[method-assign]
    return fan, now


class _Driver:
    """pwm-fan's state change with the duties of its own table (not the device tree's)."""

    def __init__(self, t: FakeTree, levels: tuple[int, ...]) -> None:
        self.t, self.levels = t, levels

    def write(self, rel: str, value: int) -> None:
        if value != self.t.read_int(STATE):
            self.t.write(f"{HWMON}/pwm1", self.levels[value])
        self.t.write(STATE, value)


def test_a_device_tree_that_does_not_describe_the_driver_never_makes_a_rival(tmp_path: Path) -> None:
    """The device tree says 0/50/100/150/200, the driver keeps 0/75/125/175/250 (another build,
    an overlay): no look confirms a state, so nothing is judged and the fan is put back."""
    t = _pi5(tmp_path / "root", _cells((0, 50, 100, 150, 200)))
    fan, now = _driven(t)
    for level in (4, 0, 2, 4, 1, 3):
        fan.apply(level)
        now[0] += 0.1
        assert fan.level == level and not fan.left
    fan.restore()
    assert t.read_int(STATE) == 1 and not fan.left


def test_with_the_drivers_levels_a_pwm1_write_at_a_confirmed_state_is_a_rival(tmp_path: Path) -> None:
    t = _pi5(tmp_path / "root", _cells(PI5_LEVELS))
    fan, now = _driven(t)
    fan.apply(3)
    now[0] = 0.1
    assert fan.level == 3 and not fan.left
    t.write(f"{HWMON}/pwm1", 200)  # pwm_fan_update_state: 175 <= 200 keeps state 3
    now[0] = 0.2
    assert fan.level == 3 and "pwm1 reads 200, not 175, the duty of cur_state 3" in fan.left
    assert fan.apply(0) == 3 and t.read_int(f"{HWMON}/pwm1") == 200  # not written over
    fan.restore()
    assert (t.read_int(STATE), t.read_int(f"{HWMON}/pwm1")) == (3, 200)


def test_a_dry_run_never_judges_the_duty(tmp_path: Path) -> None:
    """A dry run reads back the state it would have written while pwm1 is the kernel's: no rule."""
    t = _pi5(tmp_path / "root", _cells(PI5_LEVELS))
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None
    now = [0.0]
    fan = HwFan(tree, dev, dry_run=True, clock=lambda: now[0])
    fan.apply(1)
    for state, duty in ((1, 75), (2, 125), (3, 175)):  # step_wise moves the real fan meanwhile
        t.write(STATE, state)
        t.write(f"{HWMON}/pwm1", duty)
        now[0] += 0.1
        assert fan.level == 1 and not fan.left
