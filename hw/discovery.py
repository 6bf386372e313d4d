"""What the board has: thermal zones, hwmon chips, power supplies, cpufreq policies, devfreq.

Discovery reads only *structure* (names, types, OPP tables, file locations), never values that
change: temperatures and limits are read live by the sensors, actuators and ``doctor``, so a
tree rewritten by an emulator is seen as it is now.  Units are converted here, at the
boundary: trips from m°C, cpufreq tables from kHz, devfreq tables stay in Hz.

A broken entry (unreadable ``type``, garbage OPP list) does not abort discovery: it is kept
with its error message so ``doctor`` can show it and the mapping step can refuse to govern a
device it needs with a one-line reason naming the file.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from thermogov.hw.oppfilter import opp_table
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ConfigError, SensorError

THERMAL = "sys/class/thermal"
HWMON = "sys/class/hwmon"
POWER_SUPPLY = "sys/class/power_supply"
CPUFREQ = "sys/devices/system/cpu/cpufreq"
CPU_DEVICES = "sys/devices/system/cpu"
DEVFREQ = "sys/class/devfreq"
DEVICES = "sys/devices"
DT_BASES = ("proc/device-tree", "sys/firmware/devicetree/base")
# Left at the root of a tree whose board is gone (``thermogov emulate`` after its simulated
# shutdown or stop): the tree's files no longer describe a running board.
POWERED_OFF = "POWERED_OFF"


class PoweredOffError(ConfigError):
    """The tree under --sysfs-root is a board that powered off."""


# jtop (jetson_stats jtop/core/gpu.py) recognises the Tegra iGPU by its device-tree node name.
GPU_OF_NODES = frozenset({"gv11b", "gp10b", "ga10b", "gb10b"})


@dataclass(frozen=True, slots=True)
class TripPoint:
    index: int
    type: str
    temp_c: float | None
    hyst_c: float | None


@dataclass(frozen=True, slots=True)
class ThermalZone:
    name: str  # thermal_zone0
    rel: str  # root-relative directory
    type: str  # zone type, e.g. CPU-therm (JetPack 5) or cpu-thermal (JetPack 6, RPi)
    trips: tuple[TripPoint, ...] = ()

    @property
    def temp_rel(self) -> str:
        return f"{self.rel}/temp"


@dataclass(frozen=True, slots=True)
class PowerRail:
    """One INA3221-style channel: a labelled voltage with its current (or a power input)."""

    label: str
    hwmon: str  # where: hwmon2, iio:device1, "iio_device of i2c 0-0041" (L4T 28: the chip named)
    volt_rel: str | None  # inN_input, mV
    curr_rel: str | None  # currN_input, mA
    power_rel: str | None = None  # powerN_input, µW (preferred when present)
    power_per_w: float = 1e6  # units of power_rel per watt: µW on hwmon, mW on JetPack 4's iio


@dataclass(frozen=True, slots=True)
class Hwmon:
    name: str  # hwmon0
    rel: str
    chip: str  # contents of `name`
    temp_inputs: tuple[str, ...] = ()  # root-relative temp*_input files, m°C
    rails: tuple[PowerRail, ...] = ()


@dataclass(frozen=True, slots=True)
class Supply:
    name: str  # BAT0
    rel: str
    type: str  # Battery, Mains, USB ...
    has_temp: bool

    @property
    def temp_rel(self) -> str:
        return f"{self.rel}/temp"


def _attribute(name: str) -> property:
    """The path of one sysfs attribute in the device's folder (``rel``), relative to the root."""
    return property(lambda self: f"{self.rel}/{name}")


@dataclass(frozen=True, slots=True)
class CpufreqPolicy:
    name: str  # policy0
    rel: str
    related_cpus: tuple[int, ...]
    table_hz: tuple[int, ...]  # ascending; empty when the table could not be read
    table_source: str  # scaling_available_frequencies | cpuinfo_min/max
    error: str = ""
    read_only: str = ""  # why its limits cannot be set ("" when they can): read_only_limit
    inactive: str = ""  # why it is left alone because all its CPUs are offline (see _policies)
    not_own: str = ""  # why its folder is not its own (a link: _other_policy_folder); left alone
    # cpuinfo_min_freq, cpuinfo_max_freq (kHz) as read while the table was judged, None when
    # either could not be read: seeds the range memo (hw/hwrange.py seed_ranges), unjudged here.
    cpuinfo_khz: tuple[int, int] | None = None
    ignored: str = ""  # what of the OPP list was no OPP, said once at start (hw/oppfilter.py)

    min_rel = _attribute("scaling_min_freq")
    max_rel = _attribute("scaling_max_freq")
    cur_rel = _attribute("scaling_cur_freq")


@dataclass(frozen=True, slots=True)
class DevfreqDevice:
    name: str  # 17000000.ga10b
    rel: str  # the class/devfreq entry (a symlink into /sys/devices on real boards)
    of_node: str  # device/of_node/name, "" if absent
    table_hz: tuple[int, ...]
    error: str = ""
    not_own: str = ""  # why the class entry is not this device's own folder ("" when it is)
    ignored: str = ""  # what of the OPP list was no OPP, said once at start (hw/oppfilter.py)

    @property
    def is_gpu(self) -> bool:
        node = self.of_node.lower()
        return node in GPU_OF_NODES or "gpu" in node or "gpu" in self.name.lower()

    min_rel = _attribute("min_freq")
    max_rel = _attribute("max_freq")
    cur_rel = _attribute("cur_freq")


@dataclass(frozen=True, slots=True)
class Inventory:
    model: str  # device-tree model, "" when unknown
    compatible: tuple[str, ...]
    zones: tuple[ThermalZone, ...]
    hwmons: tuple[Hwmon, ...]
    supplies: tuple[Supply, ...]
    policies: tuple[CpufreqPolicy, ...]
    devfreqs: tuple[DevfreqDevice, ...]
    problems: tuple[str, ...] = field(default=())
    iio_rails: tuple[PowerRail, ...] = field(default=())  # JetPack 4's INA3221 (see _iio_rails)
    # the rail labels that failed to read (also in ``problems``): one may be the input rail, so
    # `run` names the first when it finds none (hw/railabsent.py)
    rail_problems: tuple[str, ...] = field(default=())


def _mc(tree: SysfsTree, rel: str) -> float | None:
    try:
        return tree.read_int(rel) / 1000.0
    except SensorError:
        return None


def read_model(tree: SysfsTree) -> tuple[str, tuple[str, ...]]:
    """Device-tree ``model`` and ``compatible`` (NUL-terminated/-separated strings)."""
    for base in DT_BASES:
        if not tree.exists(f"{base}/model"):
            continue
        try:
            model = tree.read_text(f"{base}/model")
        except SensorError:
            model = ""
        compat: tuple[str, ...] = ()
        if tree.exists(f"{base}/compatible"):
            try:
                raw = tree.read_bytes(f"{base}/compatible")
                compat = tuple(s for s in raw.decode("utf-8", "replace").split("\x00") if s.strip())
            except SensorError:
                pass
        return model, compat
    return "", ()


def _typed(
    tree: SysfsTree, folder: str, problems: list[str], pattern: str = ""
) -> Iterator[tuple[str, str, str]]:
    """``(name, rel, type)`` of each entry of ``folder``: an entry whose ``type`` cannot be read is
    reported in ``problems`` and skipped, so one broken zone or supply hides nothing else."""
    for name in tree.listdir(folder, pattern):
        rel = f"{folder}/{name}"
        try:
            kind = tree.read_text(f"{rel}/type")
        except SensorError as e:
            problems.append(str(e))
            continue
        yield name, rel, kind


# The most trip points the kernel registers on one zone: 31 since Linux 6.1 (drivers/thermal/
# thermal_core.c, ``num_trips > BITS_PER_TYPE(int) - 1`` is refused, "thermal: Increase maximum
# number of trip points", https://lore.kernel.org/all/20220927154709.5479-1-sumeet.r.pawnikar@intel.com/),
# 12 before it (``THERMAL_MAX_TRIPS`` in include/linux/thermal.h).  A tree showing more is no
# kernel's: reading them all cost ``doctor`` 33 s for 20 000 (session 22b), so the rest are ignored.
MAX_TRIPS = 31


def _zones(tree: SysfsTree, problems: list[str]) -> list[ThermalZone]:
    out = []
    for name, rel, ztype in _typed(tree, THERMAL, problems, r"thermal_zone\d+"):
        trips = []
        k = 0
        while k < MAX_TRIPS and tree.exists(f"{rel}/trip_point_{k}_temp"):
            try:
                ttype = tree.read_text(f"{rel}/trip_point_{k}_type")
            except SensorError:
                ttype = "unknown"
            hyst = (
                _mc(tree, f"{rel}/trip_point_{k}_hyst") if tree.exists(f"{rel}/trip_point_{k}_hyst") else None
            )
            trips.append(TripPoint(k, ttype, _mc(tree, f"{rel}/trip_point_{k}_temp"), hyst))
            k += 1
        if k == MAX_TRIPS and tree.exists(f"{rel}/trip_point_{k}_temp"):
            problems.append(
                f"{tree.show(rel)}: more than {MAX_TRIPS} trip points (no kernel registers more); "
                f"trip_point_{MAX_TRIPS}_* and above are ignored"
            )
        out.append(ThermalZone(name, rel, ztype, tuple(trips)))
    return out


def _rails(tree: SysfsTree, name: str, rel: str, problems: list[str], bad: list[str]) -> list[PowerRail]:
    """INA3221 channels: ``inN_label`` names a rail, ``inN_input`` mV, ``currN_input`` mA.

    A label that fails to read is kept in ``problems``: that channel may be the input rail,
    and "no VDD_IN rail found" alone hid the file (session 21c); also in ``bad`` (the rail
    labels that failed, :attr:`Inventory.rail_problems`)."""
    rails = []
    for lab in tree.listdir(rel, r"in\d+_label"):
        n = lab[2:-6]
        try:
            label = tree.read_text(f"{rel}/{lab}")
        except SensorError as e:
            problems.append(str(e))
            bad.append(str(e))
            continue
        if not label or label in {"NC", "sum of shunt voltages"}:
            continue
        rails.append(
            _rail(tree, label, name, f"{rel}/in{n}_input", f"{rel}/curr{n}_input", f"{rel}/power{n}_input")
        )
    return rails


def _rail(
    tree: SysfsTree, label: str, where: str, volt: str, curr: str, power: str, per_w: float = 1e6
) -> PowerRail:
    """One channel with the inputs its driver offers (each None where the file is absent)."""
    present = [r if tree.exists(r) else None for r in (volt, curr, power)]
    return PowerRail(label, where, present[0], present[1], present[2], power_per_w=per_w)


I2C_DEVICES = "sys/bus/i2c/devices"


def _is_ina3221(tree: SysfsTree, rel: str) -> bool:
    """``rel/name`` names an INA3221 (``ina3221x``, NVIDIA's iio driver); unreadable is no."""
    try:
        return "ina3221" in tree.read_text(f"{rel}/name")
    except SensorError:
        return False


def _iio_rails(tree: SysfsTree, problems: list[str], bad: list[str]) -> list[PowerRail]:
    """JetPack 4 (L4T 32, kernel 4.9) drives the INA3221 with NVIDIA's iio driver ``ina3221x``,
    not hwmon: under ``/sys/bus/i2c/devices/<bus-addr>/iio:deviceK`` each channel N is named by
    ``rail_name_N``, with ``in_powerN_input`` in mW, ``in_voltageN_input`` mV and
    ``in_currentN_input`` mA (jetson_stats jtop/core/power.py reads the same files; a Jetson
    Nano's input rail is ``POM_5V_IN``).  Later JetPacks use the hwmon driver (:func:`_rails`).

    L4T 28 (JetPack 3, kernel 4.4; and, by the pinpoint energy tool's paths, an early AGX
    Xavier L4T) shows the same channels under ``iio_device`` instead, with the chip's name in
    ``iio_device/name`` (a TX2's ``/sys/devices/3160000.i2c/i2c-0/0-0041/iio_device/in_power0_input``
    is ``VDD_IN``: github.com/JonghoKim-Harry/tx2-power-measurement ``tx2_sysfs_power.h``; the
    pinpoint tool's JetsonCounter reads ``/sys/bus/i2c/devices/{0,1}-004{0,1}/iio_device/rail_name_N``
    on a TX2 and an AGX Xavier).  Where both names are there, ``iio:deviceK`` is read and
    ``iio_device`` (then a link to it) is not, so no channel counts twice.

    ``iio:deviceK`` names one chip; ``iio_device`` is the same name on every chip (a TX2 has
    two, 0-0040 and 0-0041), so such a rail is said to be on ``iio_device of i2c 0-0041``: the
    i2c device folder (bus 0, address 0x41) a user finds under ``/sys/bus/i2c/devices``."""
    rails = []
    for dev in tree.listdir(I2C_DEVICES, r"\d+-[0-9a-f]{4}"):
        rel = f"{I2C_DEVICES}/{dev}"
        iios = tree.listdir(rel, r"iio:device\d+") or tree.listdir(rel, "iio_device")
        if not any(_is_ina3221(tree, p) for p in (rel, *(f"{rel}/{i}" for i in iios))):
            continue
        for iio in iios:
            base = f"{rel}/{iio}"
            for lab in tree.listdir(base, r"rail_name_\d+"):
                n = lab[len("rail_name_") :]
                try:
                    label = tree.read_text(f"{base}/{lab}")
                except SensorError as e:
                    problems.append(str(e))  # as for an hwmon rail's label (_rails)
                    bad.append(str(e))
                    continue
                volt, curr = f"{base}/in_voltage{n}_input", f"{base}/in_current{n}_input"
                where = iio if iio.startswith("iio:") else f"{iio} of i2c {dev}"
                rails.append(_rail(tree, label, where, volt, curr, f"{base}/in_power{n}_input", per_w=1e3))
    return rails


def hwmon_chips(tree: SysfsTree, problems: list[str] | None = None) -> Iterator[tuple[str, str, str]]:
    """Each hwmon device as (hwmonN, root-relative dir, chip name); one whose ``name`` cannot be
    read is skipped (and its error kept in ``problems`` when given): the one walk of
    ``/sys/class/hwmon`` that discovery, the fan and the throttle readers share."""
    for name in tree.listdir(HWMON, r"hwmon\d+"):
        rel = f"{HWMON}/{name}"
        try:
            chip = tree.read_text(f"{rel}/name")
        except SensorError as e:
            if problems is not None:
                problems.append(str(e))
            continue
        yield name, rel, chip


def _hwmons(tree: SysfsTree, problems: list[str], bad: list[str]) -> list[Hwmon]:
    out = []
    for name, rel, chip in hwmon_chips(tree, problems):
        temps = tuple(f"{rel}/{t}" for t in tree.listdir(rel, r"temp\d+_input"))
        out.append(Hwmon(name, rel, chip, temps, tuple(_rails(tree, name, rel, problems, bad))))
    return out


def _supplies(tree: SysfsTree, problems: list[str]) -> list[Supply]:
    return [
        Supply(name, rel, stype, tree.exists(f"{rel}/temp"))
        for name, rel, stype in _typed(tree, POWER_SUPPLY, problems)
    ]


# No kernel numbers a CPU at or above its NR_CPUS, at most 8192 (x86's MAXSMP; arm64's Kconfig
# allows 2..4096): ``related_cpus`` is printed by ``cpumap_print_to_pagebuf`` from a cpumask of
# that size.
MAX_CPUS = 8192


def _cpus(text: str) -> tuple[int, ...]:
    """The CPUs of a list such as ``0-3`` or ``0 1 2 3``; ``()`` for one no kernel prints.

    A range is expanded only within :data:`MAX_CPUS`: ``0-99999999`` (a broken or hostile
    file) expanded in full took minutes and gigabytes at every start (session 21c)."""
    cpus: list[int] = []
    for tok in text.replace(",", " ").split():
        a, _, b = tok.partition("-")
        if a.isdigit() and (not b or b.isdigit()):
            lo, hi = int(a), int(b or a)
            if hi >= MAX_CPUS or lo >= MAX_CPUS or len(cpus) + (hi - lo + 1) > MAX_CPUS:
                return ()
            cpus.extend(range(lo, hi + 1))
    return tuple(cpus)


def read_only_limit(tree: SysfsTree, rels: tuple[str, ...]) -> str:
    """Why the limit attributes cannot be set ("" when they can): one without a write bit.

    sysfs gives an attribute without a ``store`` method mode 0444, and kernfs refuses to open
    it for writing (EACCES) even to root (``kernfs_fop_open`` in fs/kernfs/file.c checks
    ``S_IWUGO``); a driver may also expose its limits read-only.  Found at discovery, the device
    is reported and left alone instead of failing its first write mid-run and its restore.
    """
    for rel in rels:
        try:
            mode = tree.path(rel).stat().st_mode
        except OSError:
            continue  # a missing limit is reported where it is read
        if not mode & 0o222:
            return (
                f"{tree.show(rel)}: read-only (mode {mode & 0o777:o}): the kernel does not let this "
                "limit be set, so the device cannot be governed; run `thermogov doctor`"
            )
        if _on_read_only_mount(tree.path(rel)):
            return (
                f"{tree.show(rel)}: on a read-only mount (sysfs mounted ro, as in a container or "
                "sandbox): no limit can be set there, so the device cannot be governed; run thermogov "
                "on the host, or give the container /sys read-write"
            )
    return ""


def _on_read_only_mount(path: Path) -> bool:
    """Whether ``path`` lies on a file system mounted read-only (``ST_RDONLY``, statvfs(3)).

    A container or a systemd sandbox (``ProtectKernelTunables=``, docker's default) mounts
    /sys read-only: every attribute keeps its 0644 mode and the first write fails EROFS
    (``mnt_want_write`` in fs/namei.c on open for writing).  The mode check above cannot see
    it; the mount's flag can, before anything is written.
    """
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False  # a limit that cannot be looked at is reported where it is read


def _policies(tree: SysfsTree) -> list[CpufreqPolicy]:
    return [read_policy(tree, name) for name in tree.listdir(CPUFREQ, r"policy\d+")]


def read_policy(tree: SysfsTree, name: str) -> CpufreqPolicy:
    """One cpufreq policy as discovery sees it now: its table, or why it cannot be governed.

    Also read again mid-run for a policy that was inactive at start, once a second until it
    answers (:mod:`thermogov.hw.lateclusters`), so a cluster coming online is judged by the
    same rules as one found at start.
    """
    rel = f"{CPUFREQ}/{name}"
    related: tuple[int, ...] = ()
    try:
        other = _other_policy_folder(tree, rel, name)
        if other:  # nothing read through it: left alone, the domain's other policies governed
            return CpufreqPolicy(name, rel, (), (), "", not_own=other)
        related = _related_cpus(tree, rel)
        if tree.exists(f"{rel}/scaling_available_frequencies"):
            khz = tree.read_ints(f"{rel}/scaling_available_frequencies")
            source = "scaling_available_frequencies"
            cpuinfo = _check_within_cpuinfo(tree, rel, khz)
        else:
            khz = [tree.read_int(f"{rel}/cpuinfo_min_freq"), tree.read_int(f"{rel}/cpuinfo_max_freq")]
            source = "cpuinfo_min/max"
            cpuinfo = (khz[0], khz[1])
        table, ignored = opp_table(khz, 1000, f"{tree.show(rel)}/{source}", "kHz")
        if not table:
            raise SensorError(
                f"{tree.show(rel)}/{source}: no positive frequency in the OPP table; check the driver"
            )
        return CpufreqPolicy(
            name,
            rel,
            related,
            table,
            source,
            read_only=read_only_limit(tree, (f"{rel}/scaling_min_freq", f"{rel}/scaling_max_freq")),
            cpuinfo_khz=cpuinfo,
            ignored=ignored,
        )
    except SensorError as e:
        if _busy(e):
            return CpufreqPolicy(name, rel, related, (), "", inactive=_inactive(tree, rel, e))
        return CpufreqPolicy(name, rel, related, (), "", str(e))


def _related_cpus(tree: SysfsTree, rel: str) -> tuple[int, ...]:
    """The CPUs of the policy folder ``rel`` (its own: :func:`_other_policy_folder` first), ``()``
    when unknown.

    Read only from the policy's own folder and only from a file that is not a link: sysfs makes
    attributes as files, never links (``SysfsTree.own`` refuses a limit that is one), and a
    ``related_cpus`` read through a policy folder that is a link, or itself a link to another
    policy's, is that policy's list: ``doctor`` showed the CPUs of ``policy0`` under ``policy4``
    as well, each CPU counted twice (rev21's finding (b), session 22b).  What no file of its own
    tells is shown as ``cpus ?``; the list is only shown, never used to govern."""
    path = f"{rel}/related_cpus"
    try:
        own = tree.resolve(rel)
        if os.path.islink(os.path.join(own, "related_cpus")):
            return ()
        cpus = _cpus(tree.read_text(path))
    except SensorError:
        return ()
    return cpus if all(_cpu_link_agrees(tree, c, own) for c in cpus) else ()


def _cpu_link_agrees(tree: SysfsTree, cpu: int, own: str) -> bool:
    """Whether CPU ``cpu``'s own link, where it has one, leads to the policy folder ``own``.

    The kernel links ``cpuN/cpufreq`` to the policy of CPU N (``add_cpu_dev_symlink`` for each of
    the policy's CPUs, drivers/cpufreq/cpufreq.c): a ``related_cpus`` naming a CPU linked to
    another policy (a copied folder, a file written over) is not this policy's list, and shown
    it counted that CPU under two policies.  A CPU without the link (a tree with none, as
    ``thermogov emulate``'s) is taken as listed.  One ``lstat`` per CPU, a ``realpath`` per link."""
    link = tree.path(f"{CPU_DEVICES}/cpu{cpu}/cpufreq")
    return not os.path.islink(link) or os.path.realpath(link) == own


def _check_within_cpuinfo(tree: SysfsTree, rel: str, khz: list[int]) -> tuple[int, int] | None:
    """Raise SensorError when no OPP of the list lies in the driver's own range; the two files'
    values as read (None when either cannot be read), which seed the range memo.

    The kernel derives ``cpuinfo_min_freq``/``cpuinfo_max_freq`` from the same frequency table
    it lists in ``scaling_available_frequencies`` (``cpufreq_frequency_table_cpuinfo`` takes the
    lowest and highest valid entry, boost ones included, and ``show_available_freqs`` lists the
    non-boost ones: drivers/cpufreq/freq_table.c), so every listed OPP lies in that range.  A
    list wholly outside it is in another unit (Hz, 1000 times too large: a Pi 5's read as
    1.5e12..2.4e12 Hz) or not this policy's; governed, its lowest cap lay above every limit,
    so a hot board was never capped while the trace showed it at its "lowest" cap (session
    21c).  A list only partly outside (a vendor driver listing one OPP past a binned
    ``cpuinfo_max_freq``) is governed as before: the caps above the limit in force are never
    offered (:func:`thermogov.hw.mapping.governed_table`).  Judged only when the two files read
    as a range (else :mod:`thermogov.hw.hwrange` names them).
    """
    positive = [k for k in khz if k > 0]
    if not positive:
        return None  # refused below: no positive frequency
    try:
        lo, hi = tree.read_int(f"{rel}/cpuinfo_min_freq"), tree.read_int(f"{rel}/cpuinfo_max_freq")
    except SensorError:
        return None
    if not 0 < lo <= hi <= _LARGEST_KHZ or any(lo <= k <= hi for k in positive):
        return lo, hi
    raise SensorError(
        f"{tree.show(rel)}/scaling_available_frequencies: {min(positive)}..{max(positive)} kHz, no OPP "
        f"in the driver's range {lo}..{hi} kHz (cpuinfo_min_freq..cpuinfo_max_freq), where every OPP "
        "of the policy lies: the list is in another unit or not this policy's; check the driver "
        "and the --sysfs-root"
    )


_LARGEST_KHZ = 2**32 - 1  # cpufreq's limits are ``unsigned int`` kHz (hw/hwrange.py LARGEST_LIMIT)


def _busy(e: SensorError) -> bool:
    cause = e.__cause__
    return isinstance(cause, OSError) and cause.errno == errno.EBUSY


def _inactive(tree: SysfsTree, rel: str, e: SensorError) -> str:
    """Why a policy whose attributes answer EBUSY is left alone while the rest are governed.

    The kernel keeps the policy of a cluster whose CPUs all went offline (``cpufreq_offline``
    marks it inactive) and every attribute's ``show()``/``store()`` answers -EBUSY until a CPU
    comes back (drivers/cpufreq/cpufreq.c, ``show``/``store``: ``policy_is_inactive``).  A stock
    Jetson does this: an nvpmodel mode with fewer cores takes a cluster offline.  Its limits
    can be neither read for the journal nor written, and its CPUs draw no power while offline,
    so it is reported and skipped instead of costing the whole CPU domain its governing.
    """
    return (
        f"{tree.show(rel)}: inactive, every CPU of this policy is offline ({e}); left alone: "
        "thermogov governs it once a CPU of it is back online (looked at once a second)"
    )


def _devfreqs(tree: SysfsTree) -> list[DevfreqDevice]:
    return [read_devfreq(tree, name) for name in tree.listdir(DEVFREQ)]


def _other_device(tree: SysfsTree, rel: str, name: str) -> str:
    """Why the class entry ``name`` is another device's folder ("" when it is its own).

    The kernel names a devfreq device's folder and its class link alike (``dev_name``), so an
    entry that resolves to a folder of another name (the GPU's name linked to the EMC's folder,
    or the device's own folder replaced by such a link) would have the GPU domain's caps
    written to the memory clock.  Left alone, named, like a link out of the root."""
    real = tree.resolve(rel)
    if os.path.basename(real) != name:
        return (
            f"{tree.show(rel)}: resolves to {real}, another device's folder, not {name}'s; "
            "left alone (fix the tree: a devfreq folder is named as its class entry)"
        )
    return _outside_devices(tree, rel, real)


def _outside_devices(tree: SysfsTree, rel: str, real: str) -> str:
    """Why the class link ``rel`` is no device's ("" when it resolves under ``sys/devices``).

    The kernel makes every device's folder under ``/sys/devices`` and its class entry a link
    there (``device_add_class_symlinks`` in drivers/base/core.c); a link resolving elsewhere (a
    copy of the folder, named alike, made after a ``kill -9``: rev21's finding (a)) is no
    device, and a restore or a run writing there would change nothing of the board's while
    saying it did.  A plain folder at the class path (``thermogov emulate``'s boards; sysfs
    itself cannot hold one) is judged as before."""
    if not os.path.islink(tree.path(rel)):
        return ""
    devices = tree.resolve(DEVICES) if tree.exists(DEVICES) else ""
    if devices and real.startswith(devices + os.sep):
        return ""
    return (
        f"{tree.show(rel)}: resolves to {real}, outside sys/devices where the kernel makes every "
        "device; no device's folder, left alone (fix the tree)"
    )


def _other_policy_folder(tree: SysfsTree, rel: str, name: str) -> str:
    """Why the policy folder ``name`` is not its own ("" when it is).

    The kernel makes a policy as the directory ``cpufreq/policyN`` itself
    (``kobject_init_and_add(&policy->kobj, ..., cpufreq_global_kobject, "policy%u", cpu)`` in
    drivers/cpufreq/cpufreq.c; the links are the other way, ``cpuN/cpufreq`` -> ``../cpufreq/policyN``),
    never a link.  One that resolves elsewhere (another policy's folder, a copy of one) would have
    that folder's limits journaled and capped as this policy's too: left alone, named, as a devfreq
    entry resolving to another device's folder is (:func:`_other_device`), and like a read-only
    one: its domain's other policies are governed (hw/mapping.py)."""
    real = tree.resolve(rel)
    path = tree.path(rel)
    if real != os.path.join(tree.resolve(CPUFREQ), name):
        where = f"resolves to {real}"
    elif os.path.islink(path) and os.path.realpath(path) == real and not os.path.exists(path):
        # a link loop (policy4 -> policy4, or through another link) resolves to its own path: its
        # files answer ELOOP, and judged its own, the error cost the whole domain its governing
        # (session 22b) where a link to another folder costs only this policy.  (A folder swapped
        # for a link since its path was memoised is ``SysfsTree.unownable``'s "now resolves to".)
        where = "is a link that resolves to no folder (a loop)"
    else:
        return ""
    return (
        f"{tree.show(rel)}: {where}, not its own folder (the kernel makes a policy as "
        "the directory cpufreq/policyN, never a link); left alone (fix the tree)"
    )


def read_devfreq(tree: SysfsTree, name: str) -> DevfreqDevice:
    """One devfreq device as discovery sees it now: its table, or why it cannot be governed.

    Also read mid-run for a device the profile names that was not there at start, once it
    appears in ``/sys/class/devfreq`` (:mod:`thermogov.hw.latedevfreq`), so it is judged by
    the same rules as one found at start.
    """
    rel = f"{DEVFREQ}/{name}"
    of_node = ""
    node_rel = f"{rel}/device/of_node/name"
    if tree.exists(node_rel):
        try:
            of_node = tree.read_text(node_rel)
        except SensorError:
            of_node = ""
    try:
        other = _other_device(tree, rel, name)
        if other:
            return DevfreqDevice(name, rel, of_node, (), other, not_own=other)
        hz = tree.read_ints(f"{rel}/available_frequencies")
        table, ignored = opp_table(hz, 1, f"{tree.show(rel)}/available_frequencies", "Hz")
        if not table:
            raise SensorError(
                f"{tree.show(rel)}/available_frequencies: no positive frequency; check the driver"
            )
        return DevfreqDevice(
            name,
            rel,
            of_node,
            table,
            read_only_limit(tree, (f"{rel}/min_freq", f"{rel}/max_freq")),
            ignored=ignored,
        )
    except SensorError as e:
        return DevfreqDevice(name, rel, of_node, (), str(e))


def discover(tree: SysfsTree) -> Inventory:
    """Scan the tree once.  Cheap enough to run at every daemon start and in ``doctor``."""
    if tree.exists(POWERED_OFF):
        try:
            why = tree.read_text(POWERED_OFF).splitlines()[0]
        except (SensorError, IndexError):
            why = "no reason given"
        raise PoweredOffError(
            f"{tree.show(POWERED_OFF)}: the board under this root powered off ({why}); "
            "start `thermogov emulate` on it again or give the live board's root"
        )
    problems: list[str] = []
    bad_rails: list[str] = []
    model, compat = read_model(tree)
    zones, hwmons = _zones(tree, problems), _hwmons(tree, problems, bad_rails)
    supplies = _supplies(tree, problems)
    iio_rails = _iio_rails(tree, problems, bad_rails)
    return Inventory(
        model=model,
        compatible=compat,
        zones=tuple(zones),
        hwmons=tuple(hwmons),
        supplies=tuple(supplies),
        policies=tuple(_policies(tree)),
        devfreqs=tuple(_devfreqs(tree)),
        problems=tuple(problems),
        iio_rails=tuple(iio_rails),
        rail_problems=tuple(bad_rails),
    )
