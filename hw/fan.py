"""The board's controllable fan: discovery, the rival controllers, and the owned actuator.

Where a fan lives in sysfs (sources in docs/hardware.md, "Fan control"):

* the ``pwm-fan`` driver (Documentation/hwmon/pwm-fan.rst) exposes a hwmon chip named
  ``pwmfan`` with ``pwm1`` (0-255, 255 full speed), ``pwm1_enable`` and, with a tachometer,
  ``fan1_input`` (RPM).  Jetson Orin: ``/sys/devices/platform/pwm-fan/hwmon/hwmonN`` (jtop finds
  ``pwmfan`` at ``/sys/class/hwmon/hwmon2`` on an AGX Orin, jetson_stats#428); Raspberry Pi 5:
  ``/sys/devices/platform/cooling_fan/hwmon/hwmonN`` (sbc-bench lists ``pwmfan-isa-0000``);
* the same driver registers a thermal cooling device of ``type`` ``pwm-fan`` whose
  ``cur_state`` 0..``max_state`` selects one of the device tree's ``cooling-levels``
  (Documentation/ABI/testing/sysfs-class-thermal); on a Pi 5 that is ``cooling_device0``,
  states 0-4 for duties 0/75/125/175/250 (bcm2712-rpi-5-b.dts).

The cooling device is preferred when there is one: its states are the board's own steps.
Otherwise ``pwm1`` is written with evenly spaced duties, after ``pwm1_enable`` is set to 1
(manual in the hwmon sysfs-interface; "PWM enabled" for pwm-fan).  Every attribute written is
journaled first and restored on exit (:mod:`thermogov.hw.journal`).

On L4T 32 (JetPack 4: Nano, TX1, TX2, Xavier) NVIDIA's own driver has neither: its fan is
``/sys/devices/pwm-fan/target_pwm`` (0-255), with ``temp_control`` set to 0 before the first
write so the kernel's curve stops driving it (:mod:`thermogov.hw.l4tfan` says why and in which
order they are restored).  It is preferred when present: that driver's cooling device only
moves the fan while ``temp_control`` is 1, i.e. while the kernel's curve fights us.

Rivals: on a Jetson, ``nvfancontrol`` writes the same ``pwm1`` every polling interval, so a
governed fan is refused while it runs (stop it first); on a Pi 5 the kernel's ``step_wise``
governor moves ``cur_state`` when a fan trip is crossed, so the actuator reads the state back
every time the governor looks and the controller re-asserts its own level after its dwell.
On the L4T fan nothing of the kernel writes ``target_pwm`` once ``temp_control`` is 0, so an
owned attribute reading other than what thermogov last wrote (or found, before its first
write) is another writer: jtop's service (:mod:`thermogov.hw.jtopfan`), a user's ``echo``.
The same holds for a fan governed through the hwmon's ``pwm1`` (no cooling device: Orin's
``pwm-fan`` on JetPack 5/6): the kernel's only writer of ``pwm1`` is that driver's cooling device
(``pwm_fan_set_cur_state``), so once thermogov wrote, ``pwm1`` or ``pwm1_enable`` reading other
than the driver kept of that write is jtop, fancontrol, nvfancontrol started late or an ``echo``;
before the first write (``pwm1_enable`` as found, 2: automatic in the hwmon ABI) a move is not
judged.  The driver's read-back is learnt from every write (mainline ``pwm-fan`` returns the
duty as written, ``ctx->pwm_value``; a driver keeping its own steps would read back otherwise).
A fan governed through its cooling device's ``cur_state`` (Pi 5, Orin's pwm-fan with its
cooling device) has step_wise as a second, legitimate writer of that state; what tells a
``pwm1`` writer apart is the duty the driver keeps per state, taken from the device tree's
``cooling-levels`` and trusted per state once a look confirms it, never learnt from a read-back
(:mod:`thermogov.hw.fanlevels`, session 22a; session 21d's read-back rule took a late driver's
own update for a rival and was withdrawn).  Without readable ``cooling-levels`` only ``pwm1``
moving while ``cur_state`` does not is judged (the driver writes it only on a state change, 23c).
The rule of the cpufreq/devfreq limits (:mod:`thermogov.hw.limitwatch`): never fight, say it
once, restore only what is still ours; the speed and the mode are one choice there (a speed
holds only with the kernel's curve off, jtop's ``manual`` profile), so the whole fan is left
to that writer: not written again, dropped from the journal, not restored at exit.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from thermogov.hw.discovery import THERMAL, hwmon_chips
from thermogov.hw.fanlevels import CoolingDuties, cooling_levels
from thermogov.hw.fantwin import hwmon_twins
from thermogov.hw.jtopfan import jtop_fan_notes
from thermogov.hw.l4tfan import (
    CAP,
    CONTROL,
    CONTROL_MAX,
    CONTROL_OFF,
    CUR,
    TARGET,
    clamped_to_cap,
    find_l4t_fan,
    l4t_pwm_top,
)
from thermogov.hw.limits import DryRunIO, LimitIO, TreeIO, write_back
from thermogov.hw.nvfanconf import fan_owner, nvfan_notes
from thermogov.hw.nvpmodelconf import ConfError
from thermogov.hw.polled import SLOW_PERIOD_S, Every
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError, ConfigError, SensorError

FAN_HWMON_NAMES = ("pwmfan", "pwm-fan", "pwm_fan")
FAN_CDEV_TYPE = "pwm-fan"
PWM_MAX = 255
PWM_ENABLE_MAX = 3  # pwm-fan.rst: modes 0..3
HWMON_LEVELS = 5  # duties 0, 64, 128, 191, 255 when only pwm1 exists
MODE_ATTRIBUTES = ("pwm1_enable", CONTROL)  # restored after the speed (hw/l4tfan.py says why)
RIVALS = ("nvfancontrol",)
PROC = "proc"


def _attribute(folder: str | None, name: str) -> str | None:
    return None if folder is None else f"{folder}/{name}"


@dataclass(frozen=True, slots=True)
class FanDevice:
    """What discovery found; ``l4t_rel``, or ``cdev_rel`` or ``pwm_rel`` (or both), is set."""

    hwmon_rel: str | None = None  # sys/class/hwmon/hwmonN
    cdev_rel: str | None = None  # sys/class/thermal/cooling_deviceN
    max_state: int | None = None
    l4t_rel: str | None = None  # sys/devices/pwm-fan (L4T 32's driver)
    pwm_top: int = PWM_MAX  # the L4T driver's pwm_cap
    twins: tuple[tuple[str, str], ...] = ()  # the L4T fan's hwmon twins (hw/fantwin.py): left alone

    @property
    def target_rel(self) -> str | None:
        return _attribute(self.l4t_rel, TARGET)

    @property
    def control_rel(self) -> str | None:
        return _attribute(self.l4t_rel, CONTROL)

    @property
    def pwm_rel(self) -> str | None:
        return None if self.hwmon_rel is None else f"{self.hwmon_rel}/pwm1"

    @property
    def enable_rel(self) -> str | None:
        return None if self.hwmon_rel is None else f"{self.hwmon_rel}/pwm1_enable"

    @property
    def rpm_rel(self) -> str | None:
        return None if self.hwmon_rel is None else f"{self.hwmon_rel}/fan1_input"

    @property
    def state_rel(self) -> str | None:
        return None if self.cdev_rel is None else f"{self.cdev_rel}/cur_state"

    def describe(self, tree: SysfsTree) -> str:
        if self.l4t_rel is not None:
            return f"{tree.show(self.l4t_rel)} (L4T pwm-fan target_pwm 0..{self.pwm_top})"
        if self.cdev_rel is not None:
            return f"{tree.show(self.cdev_rel)} (pwm-fan, states 0..{self.max_state})"
        return f"{tree.show(self.hwmon_rel or '')} (pwmfan pwm1)"


def discover_fan(tree: SysfsTree) -> FanDevice | None:
    """The board's pwm-fan, or None.  Structure only: nothing is written."""
    l4t = find_l4t_fan(tree)
    if l4t is not None:
        return FanDevice(l4t_rel=l4t, pwm_top=l4t_pwm_top(tree, l4t), twins=hwmon_twins(tree, l4t))
    hwmon = None
    for _, rel, chip in hwmon_chips(tree):
        if chip.lower() in FAN_HWMON_NAMES and tree.exists(f"{rel}/pwm1"):
            hwmon = rel
            break
    cdev, max_state = None, None
    for name in tree.listdir(THERMAL, r"cooling_device\d+"):
        rel = f"{THERMAL}/{name}"
        try:
            if tree.read_text(f"{rel}/type") != FAN_CDEV_TYPE:
                continue
            top = tree.read_int(f"{rel}/max_state")
        except SensorError:
            continue
        if top >= 1 and tree.exists(f"{rel}/cur_state"):
            cdev, max_state = rel, top
            break
    if hwmon is None and cdev is None:
        return None
    return FanDevice(hwmon, cdev, max_state)


def running_rivals(tree: SysfsTree) -> list[str]:
    """Fan daemons running now (``<root>/proc/<pid>/comm``), by name."""
    found = []
    for pid in tree.listdir(PROC, r"\d+"):
        try:
            comm = tree.read_text(f"{PROC}/{pid}/comm")
        except SensorError:
            continue
        if comm in RIVALS and comm not in found:
            found.append(comm)
    return found


def require_fan(tree: SysfsTree) -> FanDevice:
    """The fan ``fan = "governor"`` asks for, or a one-line :class:`ConfigError` (exit 2)."""
    dev = discover_fan(tree)
    if dev is None:
        raise ConfigError(
            f'run.fan: "governor" but no controllable fan under {tree.root} (no hwmon "pwmfan" with pwm1, '
            'no cooling device of type pwm-fan); use fan = "board"'
        )
    owner = ""
    if dev.l4t_rel is None:  # JetPack 5/6: nvfancontrol's conf says who owns pwm1 (hw/nvfanconf.py)
        try:
            said = fan_owner(tree)
        except ConfError as e:
            raise ConfigError(
                f'run.fan: "governor" but {e}; fix the file (nvfancontrol refuses it too) or use '
                'fan = "board" (nothing was changed)'
            ) from e
        owner = f" ({said})" if said else ""
    rivals = running_rivals(tree)
    if rivals:
        raise ConfigError(
            f'run.fan: "governor" but {", ".join(rivals)} is running and drives the same fan{owner}; '
            f'stop it first (sudo systemctl stop {rivals[0]}) or use fan = "board" (nothing was changed)'
        )
    problem = fan_problem(tree, dev)
    if problem:
        raise ConfigError(f'run.fan: "governor" but {problem} (nothing was changed)')
    return dev


def owned_attributes(tree: SysfsTree, dev: FanDevice) -> list[str]:
    """The attributes :class:`HwFan` owns on ``dev``, the mode before the speed."""
    if dev.state_rel is not None and dev.max_state is not None:
        return [dev.state_rel]
    if dev.target_rel is not None:
        return [
            a
            for a in (dev.control_rel, dev.target_rel)
            if a is not None and (a == dev.target_rel or tree.exists(a))
        ]
    return [a for a in (dev.enable_rel, dev.pwm_rel) if a is not None and tree.exists(a)]


def fan_problem(tree: SysfsTree, dev: FanDevice) -> str:
    """Why the fan's owned attributes cannot be journaled and restored as found ("" when they can).

    Asked before anything is written: a link, a non-file, garbage or a value outside the
    attribute's range would be journaled as an original no restore may write back (the journal's
    allow-list refuses it), so the fan would be left where thermogov put it.

    A cooling device of more states than duties (``max_state`` above 255) is no pwm-fan: the
    driver's states are its device tree's ``cooling-levels``, one duty 0..255 each
    (drivers/hwmon/pwm-fan.c refuses a level above ``MAX_PWM``).  Taken as read, 10^11 states
    were one level each and the start died of a MemoryError (session 21c)."""
    if dev.state_rel is not None and dev.max_state is not None and dev.max_state > PWM_MAX:
        return (
            f"{tree.show(f'{dev.cdev_rel}/max_state')} reads {dev.max_state}, more states than a "
            f'pwm-fan has (one per duty 0..{PWM_MAX}); use fan = "board"'
        )
    for rel in owned_attributes(tree, dev):
        why = tree.unownable(rel)
        if why:
            return f'{why.split("; ")[0]}; fix the tree or use fan = "board"'
        try:
            value = tree.read_int(rel)
        except SensorError as e:
            return f'{e}; use fan = "board" until it reads as a number'
        span = fan_attribute_range(tree, dev, rel)
        if span is not None and not span[0] <= value <= span[1]:
            return f'{tree.show(rel)} reads {value}, outside {span[0]}..{span[1]}; use fan = "board"'
    return ""


def is_mode_attribute(rel: str) -> bool:
    """A fan attribute that says who drives the speed: restored after the speed."""
    return rel.rstrip("/").rsplit("/", 1)[-1] in MODE_ATTRIBUTES


def fan_attribute_range(tree: SysfsTree, dev: FanDevice, rel: str) -> tuple[int, int] | None:
    """The values a journal may restore to ``rel`` of this fan; None if it is not one of its attributes."""
    if rel == dev.state_rel and dev.max_state is not None:
        return 0, dev.max_state
    if rel == dev.pwm_rel:
        return 0, PWM_MAX
    if rel == dev.enable_rel:
        return 0, PWM_ENABLE_MAX
    if rel == dev.target_rel:
        return 0, PWM_MAX
    if rel == dev.control_rel:
        return 0, CONTROL_MAX
    return None


class HwFan:
    """A :class:`~thermogov.interfaces.FanActuator` on a pwm-fan; ``dry_run`` writes nothing.

    The level is read back every time it is asked for (a rival may move it); the tachometer
    is read once per ``tach_period_s`` of ``clock`` (:mod:`~thermogov.hw.polled`) and right
    after every level change, since it only feeds the stall alarm, which waits a second of
    0 RPM.  Both are read through descriptors kept open (``pread``, re-validated per read).
    """

    def __init__(
        self,
        tree: SysfsTree,
        dev: FanDevice,
        *,
        dry_run: bool = False,
        clock: Callable[[], float] = time.monotonic,
        tach_period_s: float = SLOW_PERIOD_S,
    ) -> None:
        self.tree = tree
        self.dev = dev
        self.dry_run = dry_run
        self._clock = clock
        self._tach = Every(tach_period_s)
        self._rpm: int | None = None
        self._level_t: float | None = None  # the instant the level was last read back
        # A dry run's writes are recorded (and logged with the caps' by the daemon), not made.
        self.io: LimitIO = DryRunIO(tree) if dry_run else TreeIO(tree)
        attrs = owned_attributes(tree, dev)
        self._mode: tuple[str, int] | None = None  # (attribute, value) written before the first speed
        if dev.state_rel is not None and dev.max_state is not None:
            self._rel = dev.state_rel
            self._values = tuple(range(dev.max_state + 1))
        elif dev.target_rel is not None:
            self._rel = dev.target_rel
            self._values = tuple(round(dev.pwm_top * k / (HWMON_LEVELS - 1)) for k in range(HWMON_LEVELS))
            if dev.control_rel is not None and dev.control_rel in attrs:
                self._mode = (dev.control_rel, CONTROL_OFF)
        else:
            assert dev.pwm_rel is not None
            self._rel = dev.pwm_rel
            self._values = tuple(round(PWM_MAX * k / (HWMON_LEVELS - 1)) for k in range(HWMON_LEVELS))
            if dev.enable_rel is not None and dev.enable_rel in attrs:
                self._mode = (dev.enable_rel, 1)
        # Originals first (what the journal and restore put back), then ownership.
        self.originals = [(rel, tree.read_int(rel, ActuatorError)) for rel in attrs]
        if not dry_run:
            for rel in attrs:
                tree.own(rel)
        self._level = self._nearest(dict(self.originals)[self._rel])
        self._enabled = self._mode is None
        # What each owned attribute must read while the fan is ours: as found, then as last written.
        self._expected = dict(self.originals)
        # The L4T fan with its temp_control (no kernel writer of target_pwm while that reads 0),
        # or a hwmon pwm1 without a cooling device (the driver's only kernel writer of it).
        self._watched = self._rel == dev.pwm_rel or (dev.target_rel is not None and self._mode is not None)
        self._mode_look = Every(tach_period_s)
        self.left = ""  # why the fan was left to another writer ("" while governed)
        self._written: set[str] = set()
        self.on_left: Callable[[str], None] | None = None  # the daemon: say it, rewrite the journal
        # the daemon: record what the watched fan may read as ours (hw/lastcaps.py, session 21f)
        self.on_wrote: Callable[[str, tuple[int, ...]], None] | None = None
        # a cooling-device fan: pwm1 against the device tree's duty of each state (hw/fanlevels.py)
        # (not in a dry run: the state read is then the one it would have written, pwm1 the kernel's)
        judged = self._rel == dev.state_rel and not dry_run
        levels = cooling_levels(tree, dev.hwmon_rel, dev.max_state) if judged else None
        # without readable levels only the held-state rule judges (hw/fanlevels.py, session 23c)
        pwm = dev.pwm_rel if judged and dev.pwm_rel is not None and tree.exists(dev.pwm_rel) else None
        self._duties = CoolingDuties(levels) if pwm is not None else None
        self._told: tuple[int, ...] = ()  # the confirmed duties last recorded (on_wrote)
        tree.keep_open(self._rel, ActuatorError)  # read back every tick
        if pwm is not None:  # one pread more per look
            with contextlib.suppress(ActuatorError):  # unopenable: read afresh each time
                tree.keep_open(pwm, ActuatorError)
        if dev.rpm_rel is not None:
            tree.keep_open(dev.rpm_rel, ActuatorError)
        if self._watched and self._mode is not None:  # the rival look's, at the tach's cadence
            tree.keep_open(self._mode[0], ActuatorError)

    def _nearest(self, raw: int) -> int:
        return min(range(len(self._values)), key=lambda k: abs(self._values[k] - raw))

    @property
    def name(self) -> str:
        return "fan"

    @property
    def levels(self) -> int:
        return len(self._values)

    @property
    def level(self) -> int:
        """Read back at every instant it is asked for: the kernel's own governor may have moved it
        since.  Asked again at the same instant of ``clock`` (the controller and the trace row of
        one tick), the value read then is the answer; a write reads it back anew."""
        now = self._clock()
        if now != self._level_t:
            self._level_t = now
            with contextlib.suppress(ActuatorError):
                raw = self.io.read_int(self._rel)
                self._level = self._nearest(raw)
                self._judge(self._rel, raw)
                self._judge_duty(raw)
            if self._watched and self._mode is not None and self._mode_look.due(now):
                self._look(self._mode[0])
        return self._level

    def _look(self, rel: str) -> None:
        """Read ``rel`` and judge it (a failed read says nothing about another writer)."""
        with contextlib.suppress(ActuatorError):
            self._judge(rel, self.io.read_int(rel))

    def _judge(self, rel: str, raw: int) -> None:
        """The rival rule (module doc): ``rel`` reading other than expected leaves the fan."""
        want = self._expected.get(rel)
        if not self._watched or self.left or want is None or raw == want or self._kernels(rel):
            return
        if self._capped(rel, raw, want):
            return
        self._leave(rel, raw, f"{want} as thermogov {'last wrote' if rel in self._written else 'found it'}")

    def _capped(self, rel: str, raw: int, want: int) -> bool:
        """``raw`` is thermogov's ``want`` clamped by the L4T driver to a ``pwm_cap`` lowered since
        (``pwm_cap_store`` clamps the duty in force, session 22a): ours, kept and recorded as such."""
        if rel != self.dev.target_rel or self.dev.l4t_rel is None:
            return False
        try:
            cap = self.io.read_int(f"{self.dev.l4t_rel}/{CAP}")
        except ActuatorError:
            return False
        if not clamped_to_cap(raw, (want,), cap):
            return False
        self._expected[rel] = raw
        if self.on_wrote is not None and not self.dry_run:
            self.on_wrote(rel, (want, raw))
        return True

    def _judge_duty(self, state: int) -> None:
        """The rival rule on a cooling-device fan: ``pwm1`` other than the driver keeps at ``state``."""
        if self._duties is None or self.left or self.dev.pwm_rel is None:
            return
        try:
            duty = self.io.read_int(self.dev.pwm_rel)
        except ActuatorError:  # a failed read says nothing about another writer
            return
        want = self._duties.stray(state, duty, self._clock())
        if want:
            self._leave(self.dev.pwm_rel, duty, want)
            return
        seen = self._duties.confirmed_duties()
        if seen != self._told and self.on_wrote is not None:  # a restore after kill -9 judges by them
            self._told = seen
            self.on_wrote(self.dev.pwm_rel, seen)

    def _leave(self, rel: str, raw: int, want: str) -> None:
        """Leave the whole fan to another writer: said once, nothing of it put back."""
        was = ", ".join(f"{r.rsplit('/', 1)[-1]} {v}" for r, v in self.originals)
        self.left = (
            f"fan: {self.tree.show(rel)} reads {raw}, not {want}: another writer drives the fan "
            "(jtop, fancontrol, a user); thermogov stops governing it and leaves it as that writer set it "
            f"(before thermogov: {was})"
        )
        self.originals = []  # nothing of the fan is ours to put back any more
        if self.on_left is not None:
            self.on_left(self.left)

    def _look_all(self) -> None:
        """Judge every watched attribute now (before a write, and at restore)."""
        if self._watched:
            for rel, _ in list(self.originals):
                self._look(rel)
        # the duty: unless this instant's look judged it already (the tick's read of the level)
        if self._duties is not None and not self.left and self._level_t != self._clock():
            with contextlib.suppress(ActuatorError):
                self._judge_duty(self.io.read_int(self._rel))

    def _kernels(self, rel: str) -> bool:
        """The speed while the kernel's control is on (temp_control 1, pwm1_enable 2 as found,
        before thermogov's first write; or, without a mode attribute, before its first speed):
        the kernel may move it then, no other writer can be told apart."""
        if rel != self._rel:
            return False
        if self._mode is None:
            return rel not in self._written
        return self._expected[self._mode[0]] != self._mode[1]

    def rpm(self) -> int | None:
        """The tachometer (``fan1_input``) as of its last poll; None without one or on a read error."""
        rel = self.dev.rpm_rel
        if rel is None:
            return None
        now = self._clock()
        if now >= self._tach.ready_s and self._tach.due(now):  # ready_s: most ticks, no call
            try:
                self._rpm = self.tree.read_int(rel, ActuatorError)
            except ActuatorError:  # gone (ENOENT) or unreadable: no reading, as before
                self._rpm = None
        return self._rpm

    def _write(self, rel: str, value: int) -> None:
        noted = self._watched and self.on_wrote is not None and not self.dry_run
        if noted:  # before the write: a kill -9 right after it leaves either value ours
            self.on_wrote(rel, (self._expected[rel], value))  # type: ignore[misc]
        self.io.write_int(rel, value)
        self._written.add(rel)
        self._expected[rel] = value
        if self._watched:  # what the driver kept (a duty above pwm_cap reads back as the cap; steps)
            with contextlib.suppress(ActuatorError):
                self._expected[rel] = self.io.read_int(rel)
        if noted:
            self.on_wrote(rel, (self._expected[rel],))  # type: ignore[misc]

    def apply(self, level: int) -> int:
        if not 0 <= level < self.levels:
            raise ActuatorError(f"fan: level {level} is outside 0..{self.levels - 1}")
        self._look_all()  # a rival's write since the last look is seen before ours lands
        if self.left:
            self._level_t = None
            return self.level
        if not self._enabled and self._mode is not None:
            rel, wanted = self._mode
            if dict(self.originals)[rel] != wanted:
                self._write(rel, wanted)
            self._enabled = True
        self._write(self._rel, self._values[level])
        self._level = level
        self._level_t = None  # read back what the kernel kept
        self._tach.reset()  # the stall alarm judges the new level on a fresh reading
        return self.level

    def restore(self) -> None:
        """Put back every captured attribute, the speed before the mode; all are tried.

        A last look first: a rival's write since the last tick leaves the fan to it (module doc)."""
        self._look_all()
        ordered = sorted(self.originals, key=lambda rv: is_mode_attribute(rv[0]))
        errors = [e for e in (write_back(self.io, rel, value) for rel, value in ordered) if e]
        if errors:
            raise ActuatorError("; ".join(errors))


def fan_data(tree: SysfsTree) -> dict[str, object] | None:
    """What ``doctor`` shows of the fan: where it is, its state now, who else drives it."""
    dev = discover_fan(tree)
    if dev is None:
        return None

    def read(rel: str | None) -> int | str | None:
        if rel is None or not tree.exists(rel):
            return None
        try:
            return tree.read_int(rel)
        except SensorError as e:
            return str(e)

    return {
        "device": dev.describe(tree),
        "cur_state": read(dev.state_rel),
        "max_state": dev.max_state,
        "pwm1": read(dev.pwm_rel),
        "pwm1_enable": read(dev.enable_rel),
        "rpm": read(dev.rpm_rel),
        "target_pwm": read(dev.target_rel),
        "cur_pwm": read(_attribute(dev.l4t_rel, CUR)),
        "temp_control": read(dev.control_rel),
        "rivals": running_rivals(tree),
        "problem": fan_problem(tree, dev) or None,
        "twins": [f"{tree.show(rel)} ({chip})" for rel, chip in dev.twins],
        "agents": jtop_fan_notes(tree) if dev.l4t_rel is not None else nvfan_notes(tree),
    }


def fan_lines(tree: SysfsTree) -> list[str]:
    d = fan_data(tree)
    if d is None:
        return ['fan: no controllable fan (fan = "governor" needs a pwm-fan hwmon or cooling device)']
    if d["target_pwm"] is not None:
        tc = d["temp_control"]
        who = (
            " (the kernel's curve drives it)"
            if tc == 1
            else " (the kernel's curve is off)"
            if tc == 0
            else ""
        )
        state = f"target_pwm {d['target_pwm']}, cur_pwm {d['cur_pwm']}, temp_control {tc}"
        lines = [f"fan: {d['device']}: {state}{who}"]
    else:
        state = (
            f"state {d['cur_state']}/{d['max_state']}" if d["max_state"] is not None else f"pwm1 {d['pwm1']}"
        )
        lines = [f"fan: {d['device']}: {state}, {d['rpm'] if d['rpm'] is not None else '?'} RPM"]
    for twin in d["twins"]:  # type: ignore[attr-defined]
        lines.append(
            f"  also {twin}: the same fan registered again as hwmon (L4T 32.4+); left alone, "
            "thermogov governs the platform device's files only"
        )
    if d["problem"]:
        lines.append(f"  not governable as found: {d['problem']}")
    lines.extend(f"  {note}" for note in d["agents"])  # type: ignore[attr-defined]
    rivals = d["rivals"]
    if rivals:
        lines.append(f'  {", ".join(rivals)} drives it (stop it before fan = "governor")')  # type: ignore[arg-type]
    return lines
