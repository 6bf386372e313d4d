"""Board power and inference count for the trace: the hardware side of ``Telemetry``.

Power comes from the board's INA3221 input rail (``VDD_IN`` on Orin Nano/NX and Xavier NX,
``POM_5V_IN`` on Nano): ``powerN_input`` in µW when the driver offers it (JetPack 4's iio
driver: ``in_powerN_input`` in mW, :attr:`PowerRail.power_per_w`), else ``inN_input`` mV ×
``currN_input`` mA.  Boards without such a rail report ``None`` (unknown),
never 0 W.  The governor asks for power twice per tick (policy input and trace row), so the
value is read at most once per tick: :meth:`HwTelemetry.new_tick` marks the tick boundary.  With
a clock and a ``[power]`` configuration (the daemon), the input rail or the sum of rails
(hw/railsum.py) is read every tick only while a budget applies in the current power state, else
once a second, held in between (hw/powerread.py says when and why).

A rail reading 0, a negative or more than its board class can draw is a broken chip or a
wrong file, not the board's power: it reads as ``None`` (unknown), never as a number fed to a
power-aware policy (:func:`plausible_w`), and ``doctor`` and ``run`` say so once at start
(:func:`rail_problem`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from thermogov.governor import Telemetry
from thermogov.hw.discovery import PowerRail
from thermogov.hw.power import PowerSupplyReader
from thermogov.hw.powerread import PowerReadGate
from thermogov.hw.railwatch import RailWatch
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import PowerStatus, SensorError, ThermogovError
from thermogov.powerconfig import PowerConfig

# The most an input rail can plausibly draw, per board class (the rail's name), in W: twice the
# highest nvpmodel power budget of the modules that name the rail (the factor is estimated
# headroom: a budget caps clocks for an average the module is held to, a reading is an instant;
# a MAXN mode has no budget at all).  Checked in session 18 (docs/hardware.md, "Session 18"):
#   VDD_IN (Orin NX/Nano, Xavier NX modules): 40 W, the Orin NX 16 GB's "40W" nvpmodel mode of
#   JetPack 6.2 (L4T 36.4.3; ARK-Electronics/ark_jetson_kernel pull requests #116 and #136: the
#   module boots in it, and 40 W / 8 V is its datasheet's 5 A VDD_IN maximum).  MAXN SUPER, above
#   it, is uncapped, not 40 W.  Orin Nano's highest budget is 25 W (7W/15W/25W/MAXN_SUPER) and
#   Xavier NX's 20 W (MODE_20W_6CORE, mode 8), both below it.
#   POM_5V_IN (Jetson Nano): 10 W, its MaxN budget ("Power Management for Jetson Nano and Jetson
#   TX1 Devices", L4T 32 Development Guide, "Supported Modes and Power Efficiency": MaxN 10W,
#   5W).
RAIL_MAX_W = {"VDD_IN": 80.0, "POM_5V_IN": 20.0}
# A rail of a name not listed: the INA3221's own full scale, 26 V bus and 163.84 mV shunt (TI
# INA3221 datasheet), over the smallest shunt Linux's Jetson device trees give one, 5 mOhm
# (tegra186-p2771-0000.dts): ~850 W.
ANY_RAIL_MAX_W = 26.0 * 0.16384 / 0.005


def rail_max_w(rail: PowerRail) -> float:
    """The most ``rail`` can plausibly read, in W (see :data:`RAIL_MAX_W`)."""
    return RAIL_MAX_W.get(rail.label.upper(), ANY_RAIL_MAX_W)


def plausible_w(rail: PowerRail, watts: float) -> float | None:
    """``watts`` if a running board can draw it on ``rail``, else ``None`` (unknown).

    0 W is no reading either: the board reading it is running."""
    return watts if 0.0 < watts <= rail_max_w(rail) else None


def rail_files(tree: SysfsTree, rail: PowerRail) -> str:
    """The rail's file(s) as the board shows them, for messages."""
    rels = [rail.power_rel] if rail.power_rel else [r for r in (rail.volt_rel, rail.curr_rel) if r]
    return " x ".join(tree.show(r) for r in rels)


def implausible_why(rail: PowerRail, watts: float) -> str:
    """Why ``watts`` is no power a running board draws on ``rail`` (:func:`plausible_w`), else ""."""
    if plausible_w(rail, watts) is not None:
        return ""
    return f"{watts:.2f} W is no power for {rail.label} (expected above 0 and at most {rail_max_w(rail):g} W)"


def rail_problem(tree: SysfsTree, rail: PowerRail) -> str:
    """Why the rail gives no usable power now (one phrase naming its file(s)), else ""."""
    try:
        watts = read_rail_w(tree, rail)
    except ThermogovError as e:
        return str(e)
    why = implausible_why(rail, watts)
    return f"{rail_files(tree, rail)}: {why}" if why else ""


def read_rail_w(tree: SysfsTree, rail: PowerRail) -> float:
    """Watts on one rail; raises SensorError when the chip gives no usable value."""
    if rail.power_rel:
        return tree.read_int(rail.power_rel) / rail.power_per_w
    if rail.volt_rel and rail.curr_rel:
        return _bus_mv(tree.read_int(rail.volt_rel), tree, rail.volt_rel) * tree.read_int(rail.curr_rel) / 1e6
    raise SensorError(f"rail {rail.label} on {rail.hwmon}: no power or voltage/current input")


def _bus_mv(mv: int, tree: SysfsTree, rel: str) -> int:
    """``mv`` if it is a bus voltage, else SensorError naming the file.

    A rail's bus voltage is never below 0 (the INA3221 measures it against ground, 0..26 V):
    one that reads negative is a garbled chip or file.  Multiplied as it was, a negative
    voltage by a negative current read as a plausible positive power (-4.99 V x -968 mA as
    4.83 W on VDD_IN), fed to a power-aware policy as the board's (session 21c)."""
    if mv < 0:
        raise SensorError(f"{tree.show(rel)}: {mv} mV is no bus voltage (below 0); no reading")
    return mv


def rail_reader(tree: SysfsTree, rail: PowerRail) -> Callable[[], float]:
    """:func:`read_rail_w` for one rail as a function, its files' readers made once."""
    if rail.power_rel:
        power, per_w = tree.int_reader(rail.power_rel), rail.power_per_w
        return lambda: power() / per_w
    if rail.volt_rel and rail.curr_rel:
        volt, curr, volt_rel = tree.int_reader(rail.volt_rel), tree.int_reader(rail.curr_rel), rail.volt_rel

        def read() -> float:
            mv = volt()
            return (mv if mv >= 0 else _bus_mv(mv, tree, volt_rel)) * curr() / 1e6

        return read
    return lambda: read_rail_w(tree, rail)  # raises: no usable input


class HwTelemetry(Telemetry):
    def __init__(
        self,
        tree: SysfsTree,
        rail: PowerRail | None = None,
        inferences: Callable[[], int | None] | None = None,
        supplies: PowerSupplyReader | None = None,
        watch: RailWatch | None = None,
        summed: Sequence[PowerRail] = (),
        power: PowerConfig | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._tree = tree
        # Told of each change between a usable and an unusable reading (hw/railwatch.py); the
        # first read's state is the one ``run``'s start already said (hw/doctor.py power_warnings).
        self._watch = watch
        self._bad: bool | None = None
        self._rail = rail
        self._inferences = inferences
        self._power: float | None = None
        self._power_read = False
        self._supplies = supplies
        self._read_w: Callable[[], float | None] | None = None
        self._raw_w: Callable[[], float] = lambda: 0.0
        self._top = 0.0
        # No input rail but the profile's summed rails (``summed``, hw/railsum.py): their sum.
        metered = (rail,) if rail is not None else tuple(summed)
        if metered:
            for r in metered:
                for rel in (r.power_rel, r.volt_rel, r.curr_rel):
                    if rel:
                        tree.keep_open(rel)  # read every tick: pread on a kept descriptor
            if rail is not None:  # the bound looked up once, not per tick
                read, top = rail_reader(tree, rail), rail_max_w(rail)
            else:
                from thermogov.hw.railsum import summed_max_w, summed_reader  # railsum imports this module

                read, top = summed_reader(tree, metered), summed_max_w(metered)
            self._read_w = lambda: w if 0.0 < (w := read()) <= top else None  # plausible_w's rule
            self._raw_w = read
            self._top = top
        # With a clock and a [power] configuration, read every tick only while a budget applies,
        # else once a period of ``clock``, held between (hw/powerread.py; None: every tick).
        self._clock = clock
        self._gate = PowerReadGate(power) if metered and clock is not None and power is not None else None
        # Asked every control tick: the sources themselves answer, without a frame of ours in
        # between (each costs µs on a daemon that wakes with cold caches).
        if inferences is not None:
            self.inferences_total = inferences  # type: ignore[method-assign]
        if supplies is not None:
            self.power_status = supplies.poll  # type: ignore[method-assign]

    def follow(self, power: PowerConfig) -> None:
        """A reload's ``[power]``: its read rule from this tick on (this tick reads)."""
        if self._gate is not None:
            self._gate.follow(power)

    @property
    def read_period_s(self) -> float | None:
        """How often the power is read now (0: every tick); ``None`` with no power source."""
        if self._read_w is None:
            return None
        return 0.0 if self._gate is None else self._gate.period_s

    def new_tick(self) -> None:
        gate = self._gate
        if gate is None:
            self._power_read = False
            return
        assert self._clock is not None
        # The supplies' report first (their poll at this tick's time: no extra read), so a
        # state that puts a budget in force has its first tick's power read, not held.
        self._power_read = gate.held(self._clock(), self.power_status())

    def power_w(self) -> float | None:
        if self._read_w is None:
            return None
        if not self._power_read:
            self._power_read = True
            try:
                self._power = self._read_w()
            except SensorError:
                self._power = None
            if self._watch is not None and (self._power is None) is not self._bad:
                self._changed()
        return self._power

    def _changed(self) -> None:
        """The rail's state changed (or this is the first read): said, with why, by the watch."""
        assert self._watch is not None
        first, self._bad = self._bad is None, self._power is None
        if first:
            return
        if self._power is not None:
            self._watch.came_back(self._power)
            return
        try:
            watts = self._raw_w()
        except ThermogovError as e:
            self._watch.went_bad(str(e))
            return
        # Read again to say why: a flapping rail may read well by then.
        if self._rail is not None:
            why = implausible_why(self._rail, watts)
        else:  # the sum's own rule, as plausible_w's
            why = (
                ""
                if 0.0 < watts <= self._top
                else f"{watts:.2f} W is no power (expected above 0 and at most {self._top:g} W)"
            )
        self._watch.went_bad(why or f"a read gave no usable power ({watts:.2f} W on reading it again)")

    def inferences_total(self) -> int | None:
        return None if self._inferences is None else self._inferences()

    def power_status(self) -> PowerStatus | None:
        """The supplies' state (asked once per tick by the governor, read once per poll period
        of :class:`PowerSupplyReader`), or ``None`` if unknown."""
        return None if self._supplies is None else self._supplies.poll()
