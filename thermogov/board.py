"""Board profiles: what a board *is*, as data loaded from ``thermogov/boards/*.toml``.

A profile names the board's sensors (fusion weight, period, hard limit, how the simulator
models them and which sysfs names they have on a real board), its frequency domains (OPP
table with voltages, power coefficients), its thermal network, battery, the protections the
board enforces by itself, and a reference inference model.  The core only needs the sensor
and domain parts; ``sim`` reads the physical parts and ``hw`` the sysfs names.  Keeping all of
it in one file per board means a calibrated profile (``thermogov calibrate``) is one file too.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from thermogov import tomlread
from thermogov.fanprofile import FanProfile, parse_fan_profile
from thermogov.interfaces import ConfigError
from thermogov.tomlcheck import Table, check_matches, check_name

# Physical bounds of profile numbers (silicon is specified for -40..150 °C junction; no DVFS
# table of an edge board reaches 100 GHz or 5 V).  Values outside are typos, and a non-finite
# one would disable a comparison, so both are refused with the key named.
TEMP_MIN_C = -40.0
TEMP_MAX_C = 150.0
MAX_OPP_MHZ = 100_000.0
MAX_VOLT_V = 5.0
MAX_PERIOD_MS = 60_000
# A positive conductance or capacitance below a micro-unit is no material (1 uW/K keeps 1 W a
# million kelvin above the air); the simulator's eigen-decomposition cannot tell such a link from
# none, so it is refused here with its key rather than failing as a singular network mid-run.
MIN_CONDUCTANCE_W_PER_K = 1e-6
MIN_CAPACITANCE_J_PER_K = 1e-6
# Sizes no board reaches, bounded so a 4 MiB file of tables cannot stall the simulator (its
# network is decomposed in O(nodes^3), every sensor is read every tick).  An OPP table: the kernel
# lists a cpufreq table in one page (drivers/cpufreq/freq_table.c, show_available_freqs stops
# at PAGE_SIZE), a few hundred entries at most.
MAX_SENSORS = 64
MAX_DOMAINS = 16
MAX_NODES = 64
MAX_OPPS = 1024
# The reference model's inference at the top clocks: faster than 0.1 ms (10 000 per second) is no
# edge board's model, and the simulator serves every inference, so a 1e-300 ms one never ends.
MIN_INFERENCE_S = 1e-4


@dataclass(frozen=True, slots=True)
class SensorProfile:
    """One temperature sensor of a board."""

    name: str
    weight: float
    period_ms: int
    hard_limit_c: float
    node: str  # thermal-network node the sensor measures (simulator)
    noise_c: float = 0.0  # standard deviation of white read noise
    quant_c: float = 0.0  # quantisation step of the reported value (0 = none)
    lag_s: float = 0.0  # first-order lag between node and reading
    kind: str = "thermal_zone"  # thermal_zone | hwmon | battery (real board)
    sysfs_names: tuple[str, ...] = ()  # zone types / hwmon names / supply names, any case
    # Other names logs give this sensor, tried after name and sysfs_names, in order (an Orin
    # sbc-bench log names its zone ``soc2``): thermogov.importers.aliases
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DomainProfile:
    """One frequency domain: its OPP table and how much power each OPP costs."""

    name: str
    kind: str  # cpufreq | devfreq
    opp_hz: tuple[int, ...]
    volt_v: tuple[float, ...]
    node: str  # thermal node its power heats
    cores: int = 1
    c_dyn_uw_per_mhz_v2: float = 0.0  # per core; kernel energy-model units
    idle_w: float = 0.0
    leak_w_ref: float = 0.0  # leakage at leak_ref_c and the top OPP's voltage
    leak_ref_c: float = 85.0
    leak_beta_per_k: float = 0.03
    sysfs_names: tuple[str, ...] = ()  # cpufreq policy names / devfreq of_node names
    # What the kernel lists (scaling_available_frequencies) when it is more than the OPPs the
    # clock really takes: a Pi 5 lists 1.0-2.4 GHz but runs 1.5 GHz for any cap below that.
    # Empty: the kernel lists exactly ``opp_hz``.  The model and the governor use ``opp_hz``.
    listed_hz: tuple[int, ...] = ()
    # The clock the firmware runs by default (a Raspberry Pi's default ``arm_freq``), when the
    # table goes on above it with the voltages the firmware raises for an overclock: a set
    # ``over_voltage`` offsets the voltage of this stock range and holds it above
    # (thermogov.sim.calibration.overvolt).  0: the table's top is the stock clock.
    stock_hz: int = 0
    # The stock clock of the board's models whose firmware runs a clock other than ``stock_hz`` by
    # default, as (model substring, Hz) pairs matched case-insensitively against the product name a
    # log or the device tree gives (a C0 Pi 4 B Rev 1.4/1.5 and the Pi 400 run 1800 MHz where the
    # profile's Pi 4 runs 1500).  Tells a board's own clock from an overclock (importers/boardrange);
    # the model, the governor and the fit still use ``opp_hz``.  Empty: every model alike.
    model_stock_hz: tuple[tuple[str, int], ...] = ()
    # Dynamic power per busy core of a named workload relative to the load ``c_dyn_uw_per_mhz_v2``
    # was measured under, as (name, factor) pairs: at the same utilisation a SIMD miner heats more
    # than 7-zip.  Used where a log names the benchmark that ran (sbc-bench's sections; matched as a
    # case-insensitive part of the name, sim/calibration/activity.py).  Empty: every load alike.
    workload_activity: tuple[tuple[str, float], ...] = ()

    @property
    def stock_clock_hz(self) -> int:
        """The stock clock: ``stock_hz`` if the profile gives one, else the table's top."""
        return self.stock_hz or self.opp_hz[-1]

    def stock_clock_for(self, model: str) -> int:
        """The stock clock of the product ``model`` names (its first ``model_stock_hz`` match), else
        :attr:`stock_clock_hz`: a Pi 400 runs 1800 MHz out of the box, a Pi 4 B Rev 1.1 1500."""
        low = model.lower()
        return next((hz for key, hz in self.model_stock_hz if key in low), self.stock_clock_hz)

    @property
    def kernel_table_hz(self) -> tuple[int, ...]:
        return self.listed_hz or self.opp_hz

    def volt_at(self, freq_hz: int) -> float:
        """Voltage of an OPP.

        A real board may offer OPPs the profile does not list (Orin's extra 1510.4 MHz, the Pi 5's
        1.0-1.4 GHz entries): their voltage is interpolated linearly in frequency between the
        neighbouring profile OPPs and held flat beyond the ends, which is how DVFS tables run.
        """
        opp = self.opp_hz
        i = bisect.bisect_left(opp, freq_hz)
        if i < len(opp) and opp[i] == freq_hz:
            return self.volt_v[i]
        if i == 0:
            return self.volt_v[0]
        if i == len(opp):
            return self.volt_v[-1]
        f0, f1 = opp[i - 1], opp[i]
        v0, v1 = self.volt_v[i - 1], self.volt_v[i]
        return v0 + (v1 - v0) * (freq_hz - f0) / (f1 - f0)


@dataclass(frozen=True, slots=True)
class ThermalNode:
    name: str
    capacitance_j_per_k: float
    to_ambient_w_per_k: float = 0.0


@dataclass(frozen=True, slots=True)
class ThermalLink:
    a: str
    b: str
    conductance_w_per_k: float


@dataclass(frozen=True, slots=True)
class ThermalProfile:
    nodes: tuple[ThermalNode, ...]
    links: tuple[ThermalLink, ...]
    rest_of_board_w: float = 0.0  # DRAM, PMIC, I/O: power that no domain's DVFS changes
    rest_of_board_node: str = ""

    def node_names(self) -> tuple[str, ...]:
        return tuple(n.name for n in self.nodes)


@dataclass(frozen=True, slots=True)
class BatteryProfile:
    node: str
    capacity_ah: float
    voltage_v: float
    r0_ohm: float
    converter_efficiency: float = 0.9
    initial_soc: float = 1.0


@dataclass(frozen=True, slots=True)
class Protection:
    """A protection the board applies by itself, outside any governor.

    ``throttle``: from ``start_c`` the named domains are capped progressively, reaching their
    ``floor_hz`` at ``full_c`` (RPi firmware style, or a kernel passive trip when start == full),
    released below ``start_c - hyst_c``.  ``shutdown``: the board powers off at ``start_c``.
    ``overcurrent``: the Jetson BPMP's over-current throttle: while the board's input power is at
    or above ``limit_w`` (polled every ``period_ms``) the named domains are held at their
    ``floor_hz``, and each such poll is one over-current event (``oc2_event_cnt`` on an Orin).
    """

    kind: str
    nodes: tuple[str, ...]  # acts on the hottest of these (a "tj" style aggregate)
    start_c: float
    full_c: float = 0.0
    hyst_c: float = 0.0
    period_ms: int = 1000
    domains: tuple[str, ...] = ()
    floor_hz: tuple[int, ...] = ()
    visible: bool = False  # kernel trips show as a lower scaling_max_freq; RPi firmware does not
    source: str = ""
    limit_w: float = 0.0  # overcurrent: board input power that triggers it


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """Reference inference model: cost split into per-domain compute cycles and fixed time."""

    name: str
    fixed_s: float  # launch/sync plus memory-bound time that no CPU/GPU clock changes
    cycles: dict[str, float] = field(default_factory=dict)  # domain -> cycles per inference
    batch_fixed_s: float = 0.0  # per-batch overhead amortised by batching
    threads: dict[str, int] = field(default_factory=dict)  # domain -> cores working in parallel


@dataclass(frozen=True, slots=True)
class AddedNode:
    """A body a housing brings (a heatsink, a keyboard's plate, a case shell) and what holds it on.

    It is a node of its own, joined to one node of the board's network (``attached_to``)
    through ``pad_w_per_k``: a heatsink on a SoC's lid sits behind its gap pad, so neither the
    board node (too far from the die) nor the package node (no pad) stands for it.
    """

    name: str
    capacitance_j_per_k: float
    to_ambient_w_per_k: float
    attached_to: str
    pad_w_per_k: float


@dataclass(frozen=True, slots=True)
class Enclosure:
    """An alternative heat path of the same board: a dev kit's fan heatsink, a sealed case.

    One SoC ships in very different housings, and a prior for one misses the other by tens of
    kelvin.  An enclosure replaces the named nodes' ambient conductances and capacitances of
    the profile's network and may add nodes of its own (:class:`AddedNode`); everything else
    (sensors, OPPs, power) is the board's.  A housing that brings its own fan (the Raspberry
    Pi 5 Active Cooler) carries it as a ``[fan]`` table of its own (:mod:`thermogov.fanprofile`),
    which replaces the board's and may blow over an added node.
    """

    name: str
    description: str
    to_ambient_w_per_k: dict[str, float] = field(default_factory=dict)
    capacitance_j_per_k: dict[str, float] = field(default_factory=dict)
    fan: FanProfile | None = None
    nodes: tuple[AddedNode, ...] = ()
    # Chosen only on the log's evidence or by name (``--enclosure``), never by the calibration's
    # pre-fit: a fan that switches on at a temperature fits a training part it is off in exactly as
    # the housing without it, and one it is on in as a stand-in for any heat the model lacks.
    on_evidence_only: bool = False


@dataclass(frozen=True, slots=True)
class BoardProfile:
    name: str
    description: str
    sensors: tuple[SensorProfile, ...]
    domains: tuple[DomainProfile, ...]
    thermal: ThermalProfile
    model: ModelProfile
    battery: BatteryProfile | None = None
    protections: tuple[Protection, ...] = ()
    dt_models: tuple[str, ...] = ()  # device-tree model substrings that identify the board
    # device-tree ``compatible`` SoC/module families this profile stands in for when no
    # ``dt_models`` entry matches (hw/mapping.py ``family_match``): a weaker, warned detection
    dt_socs: tuple[str, ...] = ()
    source_file: str = ""
    enclosure: str = "default"  # the name of the housing the network above describes
    enclosures: tuple[Enclosure, ...] = ()  # alternative housings (with_enclosure)
    fan: FanProfile | None = None  # a fan the simulator models (thermogov.fanprofile)
    # The labels the board's input-rail monitor channel may carry, in the order they are tried
    # (hw/mapping.py binds the first found as the board's power: a Jetson Nano's POM_5V_IN on
    # L4T, VDD_IN on a TX1 or a mainline kernel); () for any of the usual names (VDD_IN,
    # POM_5V_IN); (NO_INPUT_RAIL,) where the carrier has no input-rail monitor, ``summed_rails``
    # then naming the rails whose sum is the power measured instead (hw/railabsent.py: doctor
    # shows it, run warns only when one is missing).
    input_rails: tuple[str, ...] = ()
    summed_rails: tuple[str, ...] = ()

    @property
    def no_input_rail(self) -> bool:
        """The profile says the board has no input-rail monitor (``input_rail = "none"``)."""
        return self.input_rails == (NO_INPUT_RAIL,)

    def sensor(self, name: str) -> SensorProfile:
        for s in self.sensors:
            if s.name == name:
                return s
        raise KeyError(name)

    def domain(self, name: str) -> DomainProfile:
        for d in self.domains:
            if d.name == name:
                return d
        raise KeyError(name)


def _sysfs_names(t: Table) -> tuple[str, ...]:
    """Kernel names (zone types, hwmon/supply names, cpufreq policies, devfreq of_nodes): each is
    one path component under /sys, and the emulator builds its fake tree from them, so a '/' or
    a '..' would read or write outside the tree."""
    names = tuple(t.strings("sysfs_names", []))
    for i, n in enumerate(names):
        if not n.strip() or "/" in n or "\0" in n or n in (".", ".."):
            raise ConfigError(
                f"{t.where}.sysfs_names[{i}]: {n!r} is not a sysfs name; give the name the kernel"
                ' shows (e.g. "cpu-thermal", "policy0"), without \'/\''
            )
    return names


def _sensor(name: str, t: Table) -> SensorProfile:
    check_name(name, t.where)
    s = SensorProfile(
        name=name,
        weight=t.number("weight", minimum=0.0, exclusive_min=True, maximum=1000.0),
        period_ms=t.integer("period_ms", minimum=1, maximum=MAX_PERIOD_MS),
        hard_limit_c=t.number("hard_limit_c", minimum=TEMP_MIN_C, maximum=TEMP_MAX_C),
        node=t.string("node"),
        noise_c=t.number("noise_c", 0.0, minimum=0.0, maximum=50.0),
        quant_c=t.number("quant_c", 0.0, minimum=0.0, maximum=50.0),
        lag_s=t.number("lag_s", 0.0, minimum=0.0, maximum=3600.0),
        kind=t.choice("kind", ("thermal_zone", "hwmon", "battery"), "thermal_zone"),
        sysfs_names=_sysfs_names(t),
        aliases=tuple(t.strings("aliases", [])),
    )
    t.done()
    return s


def _domain(name: str, t: Table) -> DomainProfile:
    check_name(name, t.where)
    opp_mhz = t.numbers("opp_mhz")
    volt = t.numbers("volt_v")
    where = t.where
    if len(opp_mhz) != len(volt) or not opp_mhz:
        raise ConfigError(f"{where}: opp_mhz and volt_v must be non-empty and of equal length")
    if len(opp_mhz) > MAX_OPPS:
        raise ConfigError(
            f"{where}.opp_mhz: {len(opp_mhz)} OPPs, more than {MAX_OPPS} (no kernel lists that many); "
            "give the board's own table"
        )
    if not all(0.0 < f <= MAX_OPP_MHZ for f in opp_mhz):
        raise ConfigError(f"{where}.opp_mhz: every OPP must be in (0, {MAX_OPP_MHZ:g}] MHz")
    if not all(0.0 < v <= MAX_VOLT_V for v in volt):
        raise ConfigError(f"{where}.volt_v: every voltage must be in (0, {MAX_VOLT_V:g}] V")
    opp_hz = tuple(round(f * 1e6) for f in opp_mhz)
    if any(b <= a for a, b in itertools.pairwise(opp_hz)):
        raise ConfigError(f"{where}.opp_mhz: must be strictly ascending")
    d = DomainProfile(
        name=name,
        kind=t.choice("kind", ("cpufreq", "devfreq")),
        opp_hz=opp_hz,
        volt_v=tuple(volt),
        node=t.string("node"),
        cores=t.integer("cores", 1, minimum=1, maximum=1024),
        c_dyn_uw_per_mhz_v2=t.number("c_dyn_uw_per_mhz_v2", 0.0, minimum=0.0, maximum=1e6),
        idle_w=t.number("idle_w", 0.0, minimum=0.0, maximum=1000.0),
        leak_w_ref=t.number("leak_w_ref", 0.0, minimum=0.0, maximum=1000.0),
        leak_ref_c=t.number("leak_ref_c", 85.0, minimum=TEMP_MIN_C, maximum=TEMP_MAX_C),
        leak_beta_per_k=t.number("leak_beta_per_k", 0.03, minimum=0.0, maximum=0.2),
        sysfs_names=_sysfs_names(t),
        listed_hz=tuple(round(f * 1e6) for f in t.numbers("listed_mhz", [])),
        stock_hz=round(t.number("stock_mhz", 0.0, minimum=0.0, maximum=MAX_OPP_MHZ) * 1e6),
        workload_activity=_workload_activity(t),
        model_stock_hz=_model_stock(t),
    )
    if d.stock_hz and d.stock_hz not in opp_hz:
        raise ConfigError(
            f"{where}.stock_mhz: {d.stock_hz / 1e6:g} MHz is not in opp_mhz; give one of its entries "
            "(the board's default clock) or leave it out (the table's top)"
        )
    if d.listed_hz and (
        any(b <= a for a, b in itertools.pairwise(d.listed_hz)) or not set(opp_hz) <= set(d.listed_hz)
    ):
        raise ConfigError(
            f"{where}.listed_mhz: must be strictly ascending and contain every entry of opp_mhz"
        )
    t.done()
    return d


def _model_stock(t: Table) -> tuple[tuple[str, int], ...]:
    """``stock_mhz_by_model = { "MODEL PART" = MHz }``: a board model's stock clock, in (0, MAX]."""
    raw = t.mapping("stock_mhz_by_model", {})
    sub = Table(raw, f"{t.where}.stock_mhz_by_model")
    return tuple(
        (name.lower(), round(sub.number(name, minimum=1.0, maximum=MAX_OPP_MHZ) * 1e6)) for name in raw
    )


def _workload_activity(t: Table) -> tuple[tuple[str, float], ...]:
    """``workload_activity = { NAME = factor }``: a positive factor up to 4 per named workload."""
    raw = t.mapping("workload_activity", {})
    sub = Table(raw, f"{t.where}.workload_activity")
    return tuple((name.lower(), sub.number(name, minimum=0.01, maximum=4.0)) for name in raw)


def _thermal(t: Table) -> ThermalProfile:
    nodes = []
    for name, sub in t.tables("nodes"):
        check_name(name, sub.where)
        nodes.append(
            ThermalNode(
                name=name,
                capacitance_j_per_k=sub.number(
                    "capacitance_j_per_k", minimum=MIN_CAPACITANCE_J_PER_K, maximum=1e6
                ),
                to_ambient_w_per_k=ambient_conductance(sub, "to_ambient_w_per_k"),
            )
        )
        sub.done()
    if len(nodes) > MAX_NODES:
        raise ConfigError(f"{t.where}.nodes: {len(nodes)} nodes, more than {MAX_NODES}; lump the network")
    names = {n.name for n in nodes}
    links: list[ThermalLink] = []
    for i, raw in enumerate(t.list("links")):
        where = f"{t.where}.links[{i}]"
        if (
            not isinstance(raw, list)
            or len(raw) != 3
            or not all(isinstance(x, str) for x in raw[:2])
            or isinstance(raw[2], bool)
            or not isinstance(raw[2], int | float)
            or not math.isfinite(raw[2])
        ):
            raise ConfigError(f'{where}: expected ["node_a", "node_b", conductance_w_per_k]')
        a, b, g = raw
        if a not in names or b not in names:
            raise ConfigError(f"{where}: unknown node; known nodes are {sorted(names)}")
        if a == b:
            raise ConfigError(f"{where}: joins {a!r} to itself; name two different nodes")
        if any({a, b} == {x.a, x.b} for x in links):
            raise ConfigError(f"{where}: {a!r} and {b!r} are already linked; give one link per pair")
        if not MIN_CONDUCTANCE_W_PER_K <= g <= 1e4:
            raise ConfigError(f"{where}: conductance must be in [{MIN_CONDUCTANCE_W_PER_K:g}, 1e4] W/K")
        links.append(ThermalLink(a, b, float(g)))
    if not any(n.to_ambient_w_per_k > 0 for n in nodes):
        raise ConfigError(f"{t.where}.nodes: at least one node needs to_ambient_w_per_k > 0")
    check_paths_to_ambient(nodes, links, t.where)
    th = ThermalProfile(
        nodes=tuple(nodes),
        links=tuple(links),
        rest_of_board_w=t.number("rest_of_board_w", 0.0, minimum=0.0, maximum=1000.0),
        rest_of_board_node=t.string("rest_of_board_node", nodes[0].name),
    )
    if th.rest_of_board_node not in names:
        raise ConfigError(f"{t.where}.rest_of_board_node: unknown node {th.rest_of_board_node!r}")
    t.done()
    return th


def ambient_conductance(t: Table, key: str, maximum: float = 1e4) -> float:
    """A node's conductance to the air: 0 (none) or at least :data:`MIN_CONDUCTANCE_W_PER_K`."""
    g = t.number(key, 0.0, minimum=0.0, maximum=maximum)
    if 0.0 < g < MIN_CONDUCTANCE_W_PER_K:
        raise ConfigError(
            f"{t.where}.{key}: {g:g} W/K is no path to the air; use 0 (none) or a value >= "
            f"{MIN_CONDUCTANCE_W_PER_K:g}"
        )
    return g


def check_paths_to_ambient(
    nodes: list[ThermalNode] | tuple[ThermalNode, ...],
    links: tuple[ThermalLink, ...] | list[ThermalLink],
    where: str,
) -> None:
    """Every node must reach ambient through links: an island heats without bound (its
    conductance matrix is singular), which the simulator would only find mid-run."""
    reached = {n.name for n in nodes if n.to_ambient_w_per_k > 0}
    grew = True
    while grew:
        grew = False
        for link in links:
            if (link.a in reached) != (link.b in reached):
                reached |= {link.a, link.b}
                grew = True
    island = [n.name for n in nodes if n.name not in reached]
    if island:
        raise ConfigError(
            f"{where}.links: node {island[0]!r} has no path to ambient; link it to a node with "
            "to_ambient_w_per_k > 0 or give it to_ambient_w_per_k"
        )


def _added_node(name: str, t: Table, nodes: set[str]) -> AddedNode:
    """One ``[enclosures.<housing>.nodes.<name>]`` table: a new node and the pad that joins it."""
    check_name(name, t.where)
    if name in nodes:
        raise ConfigError(
            f"{t.where}: {name!r} is already a node of the board; give the housing's body its own name"
        )
    attached_to = t.string("attached_to")
    if attached_to not in nodes:
        raise ConfigError(
            f"{t.where}.attached_to: unknown node {attached_to!r}; known nodes are {sorted(nodes)}"
        )
    node = AddedNode(
        name,
        t.number("capacitance_j_per_k", minimum=MIN_CAPACITANCE_J_PER_K, maximum=1e6),
        ambient_conductance(t, "to_ambient_w_per_k"),
        attached_to,
        t.number("pad_w_per_k", minimum=MIN_CONDUCTANCE_W_PER_K, maximum=1e4),
    )
    t.done()
    return node


def _enclosure(name: str, t: Table, thermal: ThermalProfile) -> Enclosure:
    check_name(name, t.where)
    board_nodes = set(thermal.node_names())
    added = tuple(_added_node(n, sub, board_nodes) for n, sub in t.tables("nodes"))
    nodes = board_nodes | {a.name for a in added}
    out: dict[str, dict[str, float]] = {}
    for key in ("to_ambient_w_per_k", "capacitance_j_per_k"):
        raw = t.mapping(key, {})
        sub = Table(raw, f"{t.where}.{key}")
        for node in raw:
            if node not in nodes:
                raise ConfigError(f"{t.where}.{key}: unknown node {node!r}; known nodes are {sorted(nodes)}")
        if key == "to_ambient_w_per_k":
            out[key] = {n: ambient_conductance(sub, n, 1e6) for n in raw}
        else:
            out[key] = {n: sub.number(n, minimum=MIN_CAPACITANCE_J_PER_K, maximum=1e6) for n in raw}
    fan = parse_fan_profile(t.table("fan"), nodes) if t.has("fan") else None
    enc = Enclosure(
        name,
        t.string("description", ""),
        out["to_ambient_w_per_k"],
        out["capacitance_j_per_k"],
        fan,
        added,
        t.boolean("on_evidence_only", False),
    )
    t.done()
    return enc


def with_enclosure(board: BoardProfile, name: str) -> BoardProfile:
    """The profile with the named housing's heat path; the default housing is the profile itself."""
    if name == board.enclosure:
        return board
    enc = next((e for e in board.enclosures if e.name == name), None)
    if enc is None:
        known = ", ".join([board.enclosure, *(e.name for e in board.enclosures)])
        raise ConfigError(f"--enclosure: board {board.name} has no enclosure {name!r}; choose one of {known}")
    nodes = tuple(
        ThermalNode(
            n.name,
            enc.capacitance_j_per_k.get(n.name, n.capacitance_j_per_k),
            enc.to_ambient_w_per_k.get(n.name, n.to_ambient_w_per_k),
        )
        for n in [
            *board.thermal.nodes,
            *(ThermalNode(a.name, a.capacitance_j_per_k, a.to_ambient_w_per_k) for a in enc.nodes),
        ]
    )
    links = board.thermal.links + tuple(ThermalLink(a.attached_to, a.name, a.pad_w_per_k) for a in enc.nodes)
    if not any(n.to_ambient_w_per_k > 0 for n in nodes):
        raise ConfigError(f"{board.source_file}: enclosures.{name} leaves no node a path to ambient")
    check_paths_to_ambient(nodes, links, f"{board.source_file}: enclosures.{name} with thermal")
    # the result is one housing: alternatives are choices of the original profile, not of this one
    fan = enc.fan if enc.fan is not None else board.fan
    thermal = replace(board.thermal, nodes=nodes, links=links)
    return replace(board, thermal=thermal, enclosure=name, enclosures=(), fan=fan)


def _protection(i: int, t: Table, domains: dict[str, DomainProfile]) -> Protection:
    kind = t.choice("kind", ("throttle", "shutdown", "overcurrent"))
    doms = tuple(t.strings("domains", []))
    floors_mhz = t.numbers("floor_mhz", [])
    for d in doms:
        if d not in domains:
            raise ConfigError(f"{t.where}.domains: unknown domain {d!r}")
    floor_hz = tuple(round(f * 1e6) for f in floors_mhz)
    if kind in ("throttle", "overcurrent") and len(floor_hz) != len(doms):
        raise ConfigError(f"{t.where}.floor_mhz: give one floor per entry of domains")
    for d, f in zip(doms, floor_hz, strict=False):
        if f not in domains[d].opp_hz:
            raise ConfigError(f"{t.where}.floor_mhz: {f / 1e6} MHz is not an OPP of {d}")
    oc = kind == "overcurrent"  # acts on power, not on a temperature
    if oc:
        start = t.number("start_c", 0.0, minimum=TEMP_MIN_C, maximum=TEMP_MAX_C)
        nodes = tuple(t.strings("nodes", []))
        limit_w = t.number("limit_w", minimum=0.0, maximum=1000.0, exclusive_min=True)
    else:
        start = t.number("start_c", minimum=TEMP_MIN_C, maximum=TEMP_MAX_C)
        nodes = tuple(t.strings("nodes"))
        if not nodes:  # a temperature protection watches at least one node
            raise ConfigError(f'{t.where}.nodes: empty; name the thermal node(s) it watches, e.g. ["cpu"]')
        limit_w = t.number("limit_w", 0.0, minimum=0.0, maximum=0.0)
    p = Protection(
        kind=kind,
        nodes=nodes,
        start_c=start,
        full_c=t.number("full_c", start, minimum=TEMP_MIN_C, maximum=TEMP_MAX_C),
        hyst_c=t.number("hyst_c", 0.0, minimum=0.0, maximum=50.0),
        period_ms=t.integer("period_ms", 1000, minimum=1, maximum=MAX_PERIOD_MS),
        domains=doms,
        floor_hz=floor_hz,
        visible=t.boolean("visible", False),
        source=t.string("source", ""),
        limit_w=limit_w,
    )
    if p.full_c < p.start_c:
        raise ConfigError(f"{t.where}.full_c: must be >= start_c")
    t.done()
    return p


# A device-tree compatible string is "manufacturer,model" (Devicetree Specification v0.4,
# section 2.3.1, "compatible"): one comma, no blanks.
_COMPATIBLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*,[A-Za-z0-9][A-Za-z0-9_.+-]*")


def _compatible(value: str, where: str) -> str:
    """A ``dt_socs`` entry, checked as a compatible string (a typo would never match, silently)."""
    return check_matches(
        value,
        where,
        _COMPATIBLE,
        'is not a device-tree compatible string; write "vendor,family", e.g. "brcm,bcm2837" '
        "(see /proc/device-tree/compatible)",
    )


NO_INPUT_RAIL = "none"
_RAIL_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")


def _input_rail(b: Table) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``[board] input_rail`` and ``summed_rails``: which power-monitor channel is the board's
    input, or ``"none"`` and the rails whose sum the published carrier docs give instead.

    ``input_rail`` is one label or a list of labels tried in order (the same channel is named
    differently by L4T and by a newer or mainline kernel: a Jetson Nano's ``POM_5V_IN`` and
    ``VDD_IN``).  A label is one word as a monitor's driver shows it (``in1_label``: "VDD_IN",
    "VIN_SYS_5V0"), so a typo or a pasted sentence is refused here rather than never matching,
    silently; so are an empty list, a non-string entry, a label listed twice and "none" inside
    a list (it means "no monitor", not one more name)."""
    label_fix = 'is not a power-monitor rail label; write it as in1_label shows it, e.g. "VDD_IN"'
    where = f"{b.where}.input_rail"
    value = b.raw("input_rail", "")
    if isinstance(value, str):
        rails: tuple[str, ...] = () if not b.has("input_rail") else (value,)
        if rails and value != NO_INPUT_RAIL:
            check_matches(value, where, _RAIL_LABEL, label_fix + ', or "none"')
    elif isinstance(value, list):
        if not value:
            raise ConfigError(
                f'{where}: an empty list names no rail; list one label or more, e.g. ["VDD_IN"]'
            )
        for i, v in enumerate(value):
            if not isinstance(v, str):
                raise ConfigError(f'{where}[{i}]: expected a rail label (a string), got {v!r}; e.g. "VDD_IN"')
            if v == NO_INPUT_RAIL:
                raise ConfigError(f'{where}[{i}]: "none" is not a label; write input_rail = "none" alone')
            check_matches(v, f"{where}[{i}]", _RAIL_LABEL, label_fix)
        rails = tuple(value)
        if len({r.upper() for r in rails}) != len(rails):
            raise ConfigError(f"{where}: a rail is listed twice; list each once")
    else:
        raise ConfigError(f'{where}: expected a rail label or a list of them, got {value!r}; e.g. "VDD_IN"')
    summed = tuple(
        check_matches(v, f"{b.where}.summed_rails[{i}]", _RAIL_LABEL, label_fix)
        for i, v in enumerate(b.strings("summed_rails", []))
    )
    if summed and rails != (NO_INPUT_RAIL,):
        raise ConfigError(
            f'{b.where}.summed_rails: only for a board without an input-rail monitor; set input_rail = "none" '
            "or remove summed_rails"
        )
    if len({s.upper() for s in summed}) != len(summed):
        raise ConfigError(f"{b.where}.summed_rails: a rail is listed twice; list each once")
    return rails, summed


def parse_board(data: dict[str, Any], where: str) -> BoardProfile:
    """Validate a board profile table; every problem names its key and file."""
    top = Table(data, where)
    b = top.table("board")
    name = b.name("name")
    description = b.string("description", "")
    dt_models = tuple(b.strings("dt_models", []))
    dt_socs = tuple(_compatible(v, f"{b.where}.dt_socs") for v in b.strings("dt_socs", []))
    enclosure = b.name("enclosure", "default")
    input_rails, summed_rails = _input_rail(b)
    b.done()
    for key, most in (("sensors", MAX_SENSORS), ("domains", MAX_DOMAINS)):
        count = len(top.mapping(key, {}))
        if count > most:
            raise ConfigError(
                f"{where}: [{key}] has {count} tables, more than {most}; no board has that many"
            )
    sensors = tuple(_sensor(n, t) for n, t in top.tables("sensors"))
    if not sensors:
        raise ConfigError(f"{where}: [sensors] needs at least one sensor")
    domains = tuple(_domain(n, t) for n, t in top.tables("domains"))
    if not domains:
        raise ConfigError(f"{where}: [domains] needs at least one frequency domain")
    thermal = _thermal(top.table("thermal"))
    nodes = set(thermal.node_names())
    for s in sensors:
        if s.node not in nodes:
            raise ConfigError(f"{where}: sensors.{s.name}.node {s.node!r} is not a thermal node")
    for d in domains:
        if d.node not in nodes:
            raise ConfigError(f"{where}: domains.{d.name}.node {d.node!r} is not a thermal node")
    m = top.table("model")
    dmap_cores = {d.name: d.cores for d in domains}
    top_hz = {d.name: d.opp_hz[-1] for d in domains}
    raw_cycles = m.mapping("cycles")
    cyc = Table(raw_cycles, f"{m.where}.cycles")
    cycles = {k: cyc.number(k, minimum=0.0, maximum=1e15) for k in raw_cycles}
    for k in cycles:
        if k not in {d.name for d in domains}:
            raise ConfigError(f"{m.where}.cycles: unknown domain {k!r}")
    threads: dict[str, int] = {}
    for k, v in m.mapping("threads", {}).items():
        if k not in cycles or isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(f"{m.where}.threads.{k}: needs a whole number >= 1 for a domain in cycles")
        if v > dmap_cores[k]:
            raise ConfigError(f"{m.where}.threads.{k}: {v} exceeds the domain's {dmap_cores[k]} cores")
        threads[k] = v
    model = ModelProfile(
        name=m.string("name"),
        fixed_s=m.number("fixed_ms", minimum=0.0, maximum=3_600_000.0) / 1000.0,
        cycles=cycles,
        batch_fixed_s=m.number("batch_fixed_ms", 0.0, minimum=0.0, maximum=3_600_000.0) / 1000.0,
        threads=threads,
    )
    m.done()
    if model.fixed_s == 0.0 and not any(cycles.values()):
        # an inference that takes no time is an infinite rate: every throughput divides by it
        raise ConfigError(
            f"{m.where}: fixed_ms is 0 and every cycles entry is 0, so an inference takes no time;"
            " give fixed_ms > 0 or a cycle count"
        )
    # as thermogov.costmodel.per_item_time_s: the slowest stage, the fixed time on the busiest domain
    busiest = max(cycles, key=lambda k: cycles[k], default="")
    fastest = max(
        (
            c / (top_hz[k] * threads.get(k, 1)) + (model.fixed_s if k == busiest else 0.0)
            for k, c in cycles.items()
        ),
        default=model.fixed_s,
    )
    if fastest < MIN_INFERENCE_S:
        raise ConfigError(
            f"{m.where}: one inference takes {fastest * 1000:.3g} ms at the top clocks (its slowest "
            f"stage: cycles / clock, plus fixed_ms on the busiest domain), under {MIN_INFERENCE_S * 1000:g} ms; give the model's real cost"
        )
    battery = None
    if top.has("battery"):
        bt = top.table("battery")
        battery = BatteryProfile(
            node=bt.string("node"),
            capacity_ah=bt.number("capacity_ah", minimum=0.0, exclusive_min=True, maximum=1e4),
            voltage_v=bt.number("voltage_v", minimum=0.0, exclusive_min=True, maximum=1000.0),
            r0_ohm=bt.number("r0_ohm", minimum=0.0, maximum=100.0),
            converter_efficiency=bt.number("converter_efficiency", 0.9, minimum=0.1, maximum=1.0),
            initial_soc=bt.number("initial_soc", 1.0, minimum=0.0, maximum=1.0),
        )
        if battery.node not in nodes:
            raise ConfigError(f"{bt.where}.node: {battery.node!r} is not a thermal node")
        bt.done()
    dmap = {d.name: d for d in domains}
    protections = tuple(_protection(i, t, dmap) for i, t in enumerate(top.table_list("protections")))
    for p in protections:
        for n in p.nodes:
            if n not in nodes:
                raise ConfigError(f"{where}: protections node {n!r} is not a thermal node")
    enclosures = tuple(_enclosure(n, t, thermal) for n, t in top.tables("enclosures"))
    names_seen = [enclosure, *(e.name for e in enclosures)]
    if len(set(names_seen)) != len(names_seen):
        raise ConfigError(f"{where}: enclosure names must differ from each other and from board.enclosure")
    fan = parse_fan_profile(top.table("fan"), nodes) if top.has("fan") else None
    top.done()
    return BoardProfile(
        name=name,
        description=description,
        sensors=sensors,
        domains=domains,
        thermal=thermal,
        model=model,
        battery=battery,
        protections=protections,
        dt_models=dt_models,
        dt_socs=dt_socs,
        source_file=where,
        enclosure=enclosure,
        enclosures=enclosures,
        fan=fan,
        input_rails=input_rails,
        summed_rails=summed_rails,
    )


def load_board_file(path: Path) -> BoardProfile:
    return parse_board(tomlread.load_file(path, "board file"), str(path))


def builtin_board_names() -> list[str]:
    root = resources.files("thermogov.boards")
    return sorted(p.name[: -len(".toml")] for p in root.iterdir() if p.name.endswith(".toml"))


def builtin_board_data(name: str) -> dict[str, Any]:
    """The raw tables of a built-in profile, before validation (what a what-if sweep edits)."""
    names = builtin_board_names()
    if name not in names:
        raise ConfigError(f"board: unknown board {name!r}; choose one of {', '.join(names)}")
    res = resources.files("thermogov.boards").joinpath(f"{name}.toml")
    try:
        return tomlread.loads(res.read_text(encoding="utf-8"))
    except tomlread.TOMLDecodeError as e:
        raise ConfigError(f"board profile {name}: malformed TOML ({e})") from e


def board_file_data(path: Path) -> dict[str, Any]:
    """The raw tables of a profile file, before validation."""
    return tomlread.load_file(path, "board file")


def load_board(name: str) -> BoardProfile:
    """A built-in profile by name (``jetson-orin-nano``)."""
    return parse_board(builtin_board_data(name), f"boards/{name}.toml")
