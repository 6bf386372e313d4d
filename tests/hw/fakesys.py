"""Fake sysfs trees shaped like real boards, plus a kernel double for write semantics.

Board presets are data (like jtop's test ``DEVICES``): each constant names where its values
come from.  Values copied from BSD/Apache listings are checked against the excerpts in
``tests/data/sysfs``; values from listings we may not copy (GitHub issue text, unlicensed
repositories) are facts restated here and checked against the real listings in ``$THERMOGOV_REAL_DATA``
(tests/realdata.py) by tests that skip when they are absent.  Trees use relative symlinks the way sysfs does
(``class/thermal/thermal_zoneN -> ../../devices/virtual/thermal/thermal_zoneN``), so the code
under test walks the same links it meets on a board, and nothing ever points outside the root.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from tests.realdata import REAL_DATA, absent
from thermogov.hw.sysfs import SysfsTree

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "sysfs"
REAL = REAL_DATA


def real_file(name: str) -> Path:
    """A real listing the licence keeps out of the repo (see docs/real-logs.md; skip if absent)."""
    p = REAL / name
    if not p.exists():
        pytest.skip(absent(p))
    return p


def khz_grid(start_khz: int, step_khz: int, stop_khz: int) -> tuple[int, ...]:
    return tuple(range(start_khz, stop_khz + 1, step_khz))


def dead_pid() -> int:
    """The pid of a process that has exited: what a crashed daemon's journal or state file names."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


# -- board facts --------------------------------------------------------------------------------
# Orin Nano 8 GB, JetPack 5 (sbcbench_orin-nano_4vgu, BSD): 115.2..1497.6 MHz step 76.8 + 1510.4
ORIN_NANO_CPU_KHZ = (*khz_grid(115200, 76800, 1497600), 1510400)
ORIN_NANO_GPU_HZ = (306000000, 408000000, 510000000, 612000000, 625000000)  # same report, devfreq
# AGX Orin (sbcbench_agx-orin_4ax9, BSD): 115.2..2112 step 76.8 + 2188.8 + 2201.6, policy0/4/8
AGX_ORIN_CPU_KHZ = (*khz_grid(115200, 76800, 2112000), 2188800, 2201600)
AGX_ORIN_GPU_HZ = (*(f * 1_000_000 for f in range(306, 1225, 102)), 1300500000)  # E, see profile
# Jetson Nano (sbcbench_jetson-nano_4rLX, BSD, to the MHz; kHz values of the T210 table)
NANO_CPU_KHZ = (
    102000,
    204000,
    307200,
    403200,
    518400,
    614400,
    710400,
    825600,
    921600,
    1036800,
    1132800,
    1224000,
    1326000,
    1428000,
    1479000,
)
# Nano GPU devfreq 76.8..998.4 MHz step 76.8 (Qengineering/Jover issue 3; checked against that listing)
NANO_GPU_HZ = tuple(76800000 * k for k in range(1, 14))
# L4T Nano zone types, zone0..5 (checked against sysfs_jetson-nano2gb_thermal_zone_types)
NANO_ZONE_TYPES = ("AO-therm", "CPU-therm", "GPU-therm", "PLL-therm", "PMIC-Die", "thermal-fan-est")
# Xavier NX (sbcbench_xavier-nx_3YWp, BSD): 115.2..1881.6 step 76.8 + 1907.2, one policy
XAVIER_NX_CPU_KHZ = (*khz_grid(115200, 76800, 1881600), 1907200)
# Orin JetPack 5 zone types in zone order (jtop journals issues 381/608, sbc-bench zone7 SOC2)
ORIN_JP5_ZONES = (
    "CPU-therm",
    "GPU-therm",
    "CV0-therm",
    "CV1-therm",
    "CV2-therm",
    "SOC0-therm",
    "SOC1-therm",
    "SOC2-therm",
    "tj-therm",
    "Tboard_tegra",
    "Tdiode_tegra",
)
# Orin JetPack 6 names (tegra234.dtsi; tegrastats_agxorin_powergui, MIT); Orin Nano has no CV zones
AGX_ORIN_JP6_ZONES = (
    "cpu-thermal",
    "gpu-thermal",
    "cv0-thermal",
    "cv1-thermal",
    "cv2-thermal",
    "soc0-thermal",
    "soc1-thermal",
    "soc2-thermal",
    "tj-thermal",
)
ORIN_NANO_JP6_ZONES = (
    "cpu-thermal",
    "gpu-thermal",
    "soc0-thermal",
    "soc1-thermal",
    "soc2-thermal",
    "tj-thermal",
)
# Raspberry Pi (sbcbench_rpi5_8-NK, BSD; the Pi 4 grid: 100 MHz steps, drivers/cpufreq/raspberrypi-cpufreq.c)
RPI5_CPU_KHZ = khz_grid(1500000, 100000, 2400000)
RPI4_CPU_KHZ = khz_grid(600000, 100000, 1500000)
RPI4_TRIPS = (("critical", 80000, 0),)  # cpu-crit in arch/arm/boot/dts/broadcom/bcm283x.dtsi
RPI5_TRIPS = (
    ("active", 50000, 5000),
    ("active", 60000, 5000),
    ("active", 67500, 5000),
    ("active", 75000, 5000),
    ("critical", 110000, 0),
)  # Pi 5 fan trips (bcm2712-rpi-5-b.dts), crit 110 (sbc-bench 4I1w)

# INA3221 channels as (label, mV, mA) from the sbc-bench "Hardware sensors" blocks (BSD)
ORIN_NANO_RAILS = (("VDD_IN", 4990, 968), ("VDD_CPU_GPU_CV", 4990, 136), ("VDD_SOC", 4990, 288))
AGX_ORIN_RAILS = (("VDD_GPU_SOC", 19980, 240), ("VDD_CPU_CV", 19980, 80), ("VIN_SYS_5V0", 5060, 740))


class FakeTree:
    """Builds files and relative links under ``root``; ``snapshot`` captures every byte."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def write(self, rel: str, content: str | bytes | int) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, int):
            content = f"{content}\n"
        p.write_bytes(content if isinstance(content, bytes) else content.encode())
        return p

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text().strip()

    def read_int(self, rel: str) -> int:
        """The number in ``rel``, read again while the file is empty for up to a second.

        A daemon running against the tree writes as ``echo v > attr`` does: truncate, then write.
        Sysfs ignores the truncation, but on the regular files of a fake tree a reader can land
        between the two and see nothing (CI caught one, stop 42); an attribute is never empty, so
        an empty read is a write in progress.  A file still empty after the second raises as before."""
        deadline = time.monotonic() + 1.0
        text = self.read(rel)
        while not text and time.monotonic() < deadline:
            time.sleep(0)  # yield to the writer; its write follows its truncation at once
            text = self.read(rel)
        return int(text)

    def link(self, rel: str, target_rel: str) -> None:
        """``rel`` -> ``target_rel`` (both root-relative), stored as a relative link."""
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not (self.root / target_rel).exists():
            (self.root / target_rel).mkdir(parents=True)
        p.symlink_to(os.path.relpath(self.root / target_rel, p.parent))

    def in_class(self, class_rel: str, real: str) -> str:
        """Expose the device folder ``real`` as ``class_rel`` (``sys/class/<class>/<name>``), the
        link the kernel makes for every registered device; returns the class path code reads."""
        self.link(class_rel, real)
        return class_rel

    def snapshot(self) -> dict[str, bytes | str]:
        out: dict[str, bytes | str] = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            for n in dirnames + filenames:
                p = Path(dirpath) / n
                rel = str(p.relative_to(self.root))
                if p.is_symlink():
                    out[rel] = "-> " + os.readlink(p)
                elif p.is_file():
                    out[rel] = p.read_bytes()
                else:
                    out[rel] = "dir"
        return out

    # -- building blocks ------------------------------------------------------------------
    def model(self, model: str, compatible: Sequence[str] = ()) -> None:
        base = "sys/firmware/devicetree/base"
        self.write(f"{base}/model", model.encode() + b"\x00")
        if compatible:
            self.write(f"{base}/compatible", b"".join(c.encode() + b"\x00" for c in compatible))
        self.link("proc/device-tree", base)

    def boot_id(self, value: str) -> None:
        self.write("proc/sys/kernel/random/boot_id", value + "\n")

    def zone(
        self, index: int, ztype: str, temp_mc: int | None = 45000, trips: Iterable[tuple[str, int, int]] = ()
    ) -> str:
        real = f"sys/devices/virtual/thermal/thermal_zone{index}"
        self.write(f"{real}/type", ztype + "\n")
        if temp_mc is not None:
            self.write(f"{real}/temp", temp_mc)
        self.write(f"{real}/mode", "enabled\n")
        self.write(f"{real}/policy", "step_wise\n")
        for k, (ttype, temp, hyst) in enumerate(trips):
            self.write(f"{real}/trip_point_{k}_type", ttype + "\n")
            self.write(f"{real}/trip_point_{k}_temp", temp)
            self.write(f"{real}/trip_point_{k}_hyst", hyst)
        return self.in_class(f"sys/class/thermal/thermal_zone{index}", real)

    def policy(
        self,
        index: int,
        cpus: Sequence[int],
        table_khz: Sequence[int],
        *,
        min_khz: int | None = None,
        max_khz: int | None = None,
        governor: str = "schedutil",
        listed: bool = True,
    ) -> str:
        rel = f"sys/devices/system/cpu/cpufreq/policy{index}"
        self.write(f"{rel}/related_cpus", " ".join(map(str, cpus)) + "\n")
        self.write(f"{rel}/affected_cpus", " ".join(map(str, cpus)) + "\n")
        if listed:
            self.write(f"{rel}/scaling_available_frequencies", " ".join(map(str, table_khz)) + " \n")
        self.write(f"{rel}/cpuinfo_min_freq", min(table_khz))
        self.write(f"{rel}/cpuinfo_max_freq", max(table_khz))
        self.write(f"{rel}/scaling_min_freq", min_khz if min_khz is not None else min(table_khz))
        self.write(f"{rel}/scaling_max_freq", max_khz if max_khz is not None else max(table_khz))
        self.write(f"{rel}/scaling_cur_freq", max_khz if max_khz is not None else max(table_khz))
        self.write(f"{rel}/scaling_governor", governor + "\n")
        for c in cpus:
            self.link(f"sys/devices/system/cpu/cpu{c}/cpufreq", rel)
        return rel

    def devfreq(
        self,
        device_rel: str,
        name: str,
        of_node: str,
        table_hz: Sequence[int],
        *,
        min_hz: int | None = None,
        max_hz: int | None = None,
        governor: str = "nvhost_podgov",
    ) -> str:
        """``device_rel`` is the device directory, e.g. ``sys/devices/17000000.ga10b``."""
        real = f"{device_rel}/devfreq/{name}"
        self.write(f"{real}/available_frequencies", " ".join(map(str, table_hz)) + "\n")
        self.write(f"{real}/min_freq", min_hz if min_hz is not None else min(table_hz))
        self.write(f"{real}/max_freq", max_hz if max_hz is not None else max(table_hz))
        self.write(f"{real}/cur_freq", min(table_hz))
        self.write(f"{real}/governor", governor + "\n")
        node = f"sys/firmware/devicetree/base/{of_node}@{name.split('.')[0]}"
        self.write(f"{node}/name", of_node.encode() + b"\x00")
        self.link(f"{device_rel}/of_node", node)
        self.link(f"{real}/device", device_rel)
        return self.in_class(f"sys/class/devfreq/{name}", real)

    def ina3221(self, index: int, device_rel: str, rails: Iterable[tuple[str, int, int]]) -> str:
        real = f"{device_rel}/hwmon/hwmon{index}"
        self.write(f"{real}/name", "ina3221\n")
        for n, (label, mv, ma) in enumerate(rails, start=1):
            self.write(f"{real}/in{n}_label", label + "\n")
            self.write(f"{real}/in{n}_input", mv)
            self.write(f"{real}/curr{n}_input", ma)
        return self.in_class(f"sys/class/hwmon/hwmon{index}", real)

    def supply(
        self, name: str, uevent: str, *, temp_decic: int | None = None, kind: str | None = None
    ) -> str:
        """A power_supply from its ``uevent`` text: the kernel exposes each key as a file too."""
        real = f"sys/devices/platform/fake-psy/power_supply/{name}"
        self.write(f"{real}/uevent", uevent if uevent.endswith("\n") else uevent + "\n")
        keys = {}
        for line in uevent.splitlines():
            k, _, v = line.partition("=")
            if k.startswith("POWER_SUPPLY_") and k != "POWER_SUPPLY_NAME":
                keys[k[len("POWER_SUPPLY_") :].lower()] = v
        if kind is None:
            kind = keys.get("type") or ("Battery" if name.upper().startswith("BAT") else "Mains")
        keys["type"] = kind
        if temp_decic is not None:
            keys["temp"] = str(temp_decic)
        for k, v in keys.items():
            self.write(f"{real}/{k}", v + "\n")
        return self.in_class(f"sys/class/power_supply/{name}", real)


# -- board presets ------------------------------------------------------------------------------
def orin_nano(
    root: Path,
    *,
    jetpack: int = 5,
    cpu_mc: int = 50000,
    gpu_mc: int = 48000,
    battery_decic: int | None = None,
) -> FakeTree:
    t = FakeTree(root)
    model = "NVIDIA Orin Nano Developer Kit" if jetpack == 5 else "NVIDIA Jetson Orin Nano Developer Kit"
    t.model(model, ("nvidia,p3768-0000+p3767-0005", "nvidia,p3767-0005", "nvidia,tegra234"))
    t.boot_id("8d1f0c1e-0000-4000-8000-000000000001")
    zones = (
        [z for z in ORIN_JP5_ZONES if not z.startswith("CV")] if jetpack == 5 else list(ORIN_NANO_JP6_ZONES)
    )
    trips = (("passive", 99000, 0), ("critical", 104500, 0))
    for i, z in enumerate(zones):
        temp = cpu_mc if z.lower().startswith("cpu") else gpu_mc if z.lower().startswith("gpu") else 47000
        t.zone(i, z, temp, trips if not z.startswith("T") else ())
    t.policy(0, [0, 1, 2, 3], ORIN_NANO_CPU_KHZ, min_khz=729600)
    t.policy(4, [4, 5], ORIN_NANO_CPU_KHZ, min_khz=729600)
    if jetpack == 5:
        t.devfreq("sys/devices/17000000.ga10b", "17000000.ga10b", "ga10b", ORIN_NANO_GPU_HZ)
    else:
        t.devfreq("sys/devices/platform/bus@0/17000000.gpu", "17000000.gpu", "gpu", ORIN_NANO_GPU_HZ)
    t.devfreq(
        "sys/devices/15340000.vic", "15340000.vic", "vic", (115200000, 435200000), governor="wmark_active"
    )
    t.ina3221(1, "sys/devices/platform/c240000.i2c/i2c-1/1-0040", ORIN_NANO_RAILS)
    if battery_decic is not None:
        t.supply(
            "BAT0",
            "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=80",
            temp_decic=battery_decic,
        )
    return t


def agx_orin(root: Path, *, jetpack: int = 5, cpu_mc: int = 60000, gpu_mc: int = 58000) -> FakeTree:
    t = FakeTree(root)
    model = (
        "NVIDIA Orin Jetson-Small Developer Kit" if jetpack == 5 else "NVIDIA Jetson AGX Orin Developer Kit"
    )
    t.model(model, ("nvidia,p3737-0000+p3701-0000", "nvidia,tegra234", "nvidia,tegra23x"))
    zones = ORIN_JP5_ZONES if jetpack == 5 else AGX_ORIN_JP6_ZONES
    for i, z in enumerate(zones):
        temp = cpu_mc if z.lower().startswith("cpu") else gpu_mc if z.lower().startswith("gpu") else 55000
        if z.lower().startswith("cv"):
            temp = -256000  # absent CV sensors read -256 °C (tegrastats_agxorin_powergui)
        t.zone(i, z, temp)
    for p, cpus in ((0, range(0, 4)), (4, range(4, 8)), (8, range(8, 12))):
        t.policy(p, list(cpus), AGX_ORIN_CPU_KHZ, min_khz=729600)
    if jetpack == 5:
        t.devfreq("sys/devices/17000000.ga10b", "17000000.ga10b", "ga10b", AGX_ORIN_GPU_HZ)
    else:
        t.devfreq("sys/devices/platform/bus@0/17000000.gpu", "17000000.gpu", "gpu", AGX_ORIN_GPU_HZ)
    t.ina3221(3, "sys/devices/platform/c240000.i2c/i2c-1/1-0040", AGX_ORIN_RAILS)
    t.ina3221(
        4, "sys/devices/platform/c240000.i2c/i2c-1/1-0041", (("NC", 0, 0), ("VDDQ_VDD2_1V8AO", 5060, 140))
    )
    return t


def jetson_nano(
    root: Path,
    *,
    zone_types: Sequence[str] = NANO_ZONE_TYPES,
    gpu_table_hz: Sequence[int] = NANO_GPU_HZ,
    cpu_mc: int = 40000,
) -> FakeTree:
    t = FakeTree(root)
    t.model(
        "NVIDIA Jetson Nano Developer Kit",
        ("nvidia,p3449-0000-b00+p3448-0000-b00", "nvidia,jetson-nano", "nvidia,tegra210"),
    )
    for i, z in enumerate(zone_types):
        t.zone(i, z, 100000 if z.startswith("PMIC") else cpu_mc)
    t.policy(0, [0, 1, 2, 3], NANO_CPU_KHZ)
    t.devfreq("sys/devices/57000000.gpu", "57000000.gpu", "gpu", gpu_table_hz, governor="nvhost_podgov")
    t.ina3221(
        0,
        "sys/devices/7000c400.i2c/i2c-1/1-0040",
        (("POM_5V_IN", 5000, 180), ("POM_5V_GPU", 5000, 0), ("POM_5V_CPU", 5000, 24)),
    )
    return t


def xavier_nx(root: Path, *, cpu_mc: int = 42000) -> FakeTree:
    t = FakeTree(root)
    t.model("NVIDIA Jetson Xavier NX Developer Kit", ("nvidia,p3449-0000+p3668-0001", "nvidia,tegra194"))
    for i, z in enumerate(("AUX-therm", "CPU-therm", "thermal-fan-est", "AO-therm", "GPU-therm", "PMIC-Die")):
        t.zone(i, z, 100000 if z.startswith("PMIC") else cpu_mc)
    t.policy(0, list(range(6)), XAVIER_NX_CPU_KHZ, min_khz=1190400, max_khz=1907200)
    t.devfreq(
        "sys/devices/17000000.gv11b",
        "17000000.gv11b",
        "gv11b",
        (114750000, 318750000, 522750000, 726750000, 930750000, 1100250000),
    )
    return t


def rpi5(root: Path, *, table_khz: Sequence[int] = RPI5_CPU_KHZ, cpu_mc: int = 55000) -> FakeTree:
    t = FakeTree(root)
    t.model("Raspberry Pi 5 Model B Rev 1.1", ("raspberrypi,5-model-b", "brcm,bcm2712"))
    t.zone(0, "cpu-thermal", cpu_mc, RPI5_TRIPS)
    t.policy(0, [0, 1, 2, 3], table_khz, governor="ondemand")
    return t


def rpi4(
    root: Path,
    *,
    model: str = "Raspberry Pi 4 Model B Rev 1.1",
    table_khz: Sequence[int] = RPI4_CPU_KHZ,
    trips: Iterable[tuple[str, int, int]] = RPI4_TRIPS,
    cpu_mc: int = 52000,
) -> FakeTree:
    t = FakeTree(root)
    t.model(model, ("raspberrypi,4-model-b", "brcm,bcm2711"))
    t.zone(0, "cpu-thermal", cpu_mc, trips)
    t.policy(0, [0, 1, 2, 3], table_khz, governor="ondemand")
    return t


BOARDS = {
    "jetson-orin-nano": orin_nano,
    "jetson-agx-orin": agx_orin,
    "jetson-nano": jetson_nano,
    "jetson-xavier-nx": xavier_nx,
    "rpi5": rpi5,
    "rpi4": rpi4,
}


def tree_from_grep_dump(root: Path, text: str) -> FakeTree:
    """Materialise a ``grep . /sys/...`` listing (``path:value`` lines) as files.

    Issue quotes prefix lines with ``> ``; ``grep:`` warnings, comments and command output
    that is not a path are skipped, so the tree holds exactly what the listing showed.
    """
    t = FakeTree(root)
    for line in text.splitlines():
        line = line.removeprefix("> ").strip()
        if not line.startswith("/sys/") or ":" not in line:
            continue
        path, _, value = line.partition(":")
        t.write(path.lstrip("/"), value + "\n")
    return t


# -- kernel double --------------------------------------------------------------------------------
_PAIRS = {"scaling_min_freq": "scaling_max_freq", "min_freq": "max_freq"}
_TABLES = {
    "scaling_min_freq": "scaling_available_frequencies",
    "scaling_max_freq": "scaling_available_frequencies",
    "min_freq": "available_frequencies",
    "max_freq": "available_frequencies",
}


class KernelTree(SysfsTree):
    """A SysfsTree whose writes behave like a kernel's, for the code under test.

    ``semantics="old"``: pre-5.4 cpufreq/devfreq: EINVAL when a new min is above the current max
    or a new max below the current min.  ``"new"``: QoS requests; the effective max is the
    request clamped to the table (and to ``thermal_cap`` if a kernel trip holds it lower), the
    effective min is clamped to the effective max, both resolved to OPPs.  ``faults`` maps a
    root-relative path to an errno raised on read or write.  ``writes`` logs every write and
    ``before_write`` runs first (tests use it to check the journal exists).
    """

    def __init__(self, root: Path, semantics: str = "new") -> None:
        super().__init__(root)
        self.semantics = semantics
        self.faults: dict[str, int] = {}
        self.write_faults: dict[str, int] = {}
        self.writes: list[tuple[str, int]] = []
        self.thermal_cap: dict[str, int] = {}  # policy/devfreq dir (rel) -> max in file units
        self.before_write: list = []
        self._requests: dict[str, int] = {}
        # A driver that checks a limit against today's table (EINVAL outside it), as kernels
        # without QoS limits may: a limit written over a table another agent shrank is refused.
        self.reject_outside_table = False

    def _rel(self, real: str) -> str:
        return self.relative(real)

    def _read_bytes(self, real: str) -> bytes:
        for key, code in self.faults.items():
            if os.path.realpath(self.path(key)) == real:
                raise OSError(code, os.strerror(code))
        return super()._read_bytes(real)

    def _write_bytes(self, real: str, data: bytes) -> None:
        for hook in self.before_write:
            hook(real, data)
        for key, code in self.write_faults.items():
            if os.path.realpath(self.path(key)) == real:
                raise OSError(code, os.strerror(code))
        value = int(data.decode().strip())
        self.writes.append((self._rel(real), value))
        d, name = os.path.split(real)
        if name not in _TABLES:
            return super()._write_bytes(real, data)
        lo_name = name if name in _PAIRS else next(k for k, v in _PAIRS.items() if v == name)
        hi_name = _PAIRS[lo_name]
        table = sorted(int(x) for x in Path(d, _TABLES[name]).read_text().split())
        if self.reject_outside_table and not table[0] <= value <= table[-1]:
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
        cur_lo = int(Path(d, lo_name).read_text())
        cur_hi = int(Path(d, hi_name).read_text())
        if self.semantics == "old":
            if (name == lo_name and value > cur_hi) or (name == hi_name and value < cur_lo):
                raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
            Path(real).write_text(f"{value}\n")
            return
        req_lo = self._requests.get(os.path.join(d, lo_name), cur_lo)
        req_hi = self._requests.get(os.path.join(d, hi_name), cur_hi)
        if name == lo_name:
            req_lo = value
        else:
            req_hi = value
        self._requests[os.path.join(d, lo_name)] = req_lo
        self._requests[os.path.join(d, hi_name)] = req_hi
        cap = self.thermal_cap.get(self._rel(d), table[-1])
        hi = max([f for f in table if f <= min(max(req_hi, table[0]), cap)] or [table[0]])
        lo = min([f for f in table if f >= min(max(req_lo, table[0]), hi)] or [hi])
        Path(d, hi_name).write_text(f"{hi}\n")
        Path(d, lo_name).write_text(f"{lo}\n")


def zone_ahead(t: FakeTree, ztype: str, temp_mc: int, *, disabled: bool = False) -> None:
    """A zone of type ``ztype`` numbered before every zone already there (each one renumbered
    up by one, its class link too): zone types need not be unique, only ``thermal_zoneN`` is."""
    base = t.root / "sys/devices/virtual/thermal"
    zones = sorted(base.glob("thermal_zone*"), key=lambda p: int(p.name[len("thermal_zone") :]))
    for z in reversed(zones):
        n = int(z.name[len("thermal_zone") :])
        z.rename(base / f"thermal_zone{n + 1}")
        (t.root / f"sys/class/thermal/thermal_zone{n}").unlink()
    for z in zones:
        n = int(z.name[len("thermal_zone") :]) + 1
        t.link(f"sys/class/thermal/thermal_zone{n}", f"sys/devices/virtual/thermal/thermal_zone{n}")
    t.zone(0, ztype, temp_mc)
    if disabled:
        t.write("sys/devices/virtual/thermal/thermal_zone0/mode", "disabled\n")


def pwm_fan(
    t: FakeTree,
    *,
    board: str = "rpi5",
    hwmon: int = 2,
    cdev: int | None = 0,
    pwm: int = 75,
    state: int = 1,
    enable: int = 1,
    rpm: int = 2804,
) -> FakeTree:
    """The pwm-fan driver's files, shaped like a real board's.

    Raspberry Pi 5: hwmon ``pwmfan`` under ``/sys/devices/platform/cooling_fan`` and thermal
    ``cooling_device0`` of type ``pwm-fan``, states 0..4 (bcm2712-rpi-5-b.dts; sbc-bench
    rpi5_4I1w lists ``pwmfan-isa-0000`` at 2804 RPM).  Jetson Orin: hwmon ``pwmfan`` under
    ``/sys/devices/platform/pwm-fan`` (``hwmon2`` on an AGX Orin, jetson_stats#428); pass
    ``cdev=None`` for a tree where only the hwmon controls it.
    """
    device = "cooling_fan" if board == "rpi5" else "pwm-fan"
    real = f"sys/devices/platform/{device}/hwmon/hwmon{hwmon}"
    t.write(f"{real}/name", "pwmfan\n")
    t.write(f"{real}/pwm1", pwm)
    t.write(f"{real}/pwm1_enable", enable)
    t.write(f"{real}/fan1_input", rpm)
    t.link(f"sys/class/hwmon/hwmon{hwmon}", real)
    if cdev is not None:
        creal = f"sys/devices/virtual/thermal/cooling_device{cdev}"
        t.write(f"{creal}/type", "pwm-fan\n")
        t.write(f"{creal}/max_state", 4)
        t.write(f"{creal}/cur_state", state)
        t.link(f"sys/class/thermal/cooling_device{cdev}", creal)
    return t


L4T_FAN = "sys/devices/pwm-fan"
L4T_FAN_GROUP = ("target_pwm", "cur_pwm", "temp_control", "pwm_cap", "step_time", "pwm_rpm_table")


def l4t_fan_twin(
    t: FakeTree, *, hwmon: int | None = None, name: str = "tegra_pwmfan", pwm1: int | None = None
) -> str:
    """L4T 32.4+'s hwmon twin of ``/sys/devices/pwm-fan``; returns its class entry.

    NVIDIA's ``pwm_fan.c`` registers the platform device's own attribute group again as a hwmon
    child (``devm_hwmon_device_register_with_groups(&pdev->dev, "tegra_pwmfan", fan_data,
    pwm_fan_groups)``), so both folders show one ``fan_data``: each of the platform folder's
    group files is hard-linked here (one inode, two folders, as the kernel's one variable).
    ``pwm1``: a build whose twin also shows a hwmon ``pwm1`` (without ``pwm1_enable``); a file
    of its own.  ``hwmon``: its index, else the first free one.  Call after the platform files
    are written.
    """
    if hwmon is None:
        hwmon = next(i for i in range(64) if not os.path.lexists(t.root / f"sys/class/hwmon/hwmon{i}"))
    real = f"{L4T_FAN}/hwmon/hwmon{hwmon}"
    t.write(f"{real}/name", name + "\n")
    for attr in L4T_FAN_GROUP:
        if (t.root / L4T_FAN / attr).is_file():
            os.link(t.root / L4T_FAN / attr, t.root / real / attr)
    if pwm1 is not None:
        t.write(f"{real}/pwm1", pwm1)
    return t.in_class(f"sys/class/hwmon/hwmon{hwmon}", real)


def fan_daemon(t: FakeTree, name: str = "nvfancontrol", pid: int = 812) -> None:
    """A running fan daemon as ``/proc/<pid>/comm`` shows it."""
    t.write(f"proc/{pid}/comm", name + "\n")


# -- session 23d/24b: a TX2's INA3221s as NVIDIA's iio driver shows them -------------------------
I2C0 = "sys/devices/3160000.i2c/i2c-0"
# TX2 (energymon jetson/JetsonPowerRails.md): 0x40 GPU, SOC, WIFI; 0x41 VDD_IN, CPU, DDR.  Values
# (mV, mA) near the idle tegrastats line of github.com/guesswho798/log-project: VDD_IN 3624 mW.
TX2_40 = (("VDD_SYS_GPU", 19000, 19), ("VDD_SYS_SOC", 19000, 34), ("VDD_4V0_WIFI", 4000, 0))
TX2_41 = (("VDD_IN", 19000, 190), ("VDD_SYS_CPU", 19000, 36), ("VDD_SYS_DDR", 19000, 46))


def iio_chip(t: FakeTree, bus: str, addr: str, rails: tuple[tuple[str, int, int], ...], iio: str) -> None:
    """One NVIDIA ``ina3221x`` chip: ``iio`` is ``iio:deviceK`` (L4T 32) or ``iio_device`` (L4T 28)."""
    dev = f"{bus}/{addr}"
    t.link(f"sys/bus/i2c/devices/{addr}", dev)
    t.write(f"{dev}/{iio}/name", "ina3221x\n")
    if iio.startswith("iio:"):
        t.write(f"{dev}/name", "ina3221x\n")
    for n, (label, mv, ma) in enumerate(rails):
        t.write(f"{dev}/{iio}/rail_name_{n}", label + "\n")
        t.write(f"{dev}/{iio}/in_power{n}_input", mv * ma // 1000)  # mW
        t.write(f"{dev}/{iio}/in_voltage{n}_input", mv)
        t.write(f"{dev}/{iio}/in_current{n}_input", ma)


def tx2(root: Path, iio: str = "iio:device{k}") -> FakeTree:
    """A TX2 devkit: L4T zone names, the A57 and Denver policies, gp10b, two INA3221 on i2c-0."""
    t = FakeTree(root)
    t.model("NVIDIA Jetson TX2 Developer Kit", ("nvidia,p2771-0000", "nvidia,tegra186"))
    for i, z in enumerate(("BCPU-therm", "MCPU-therm", "GPU-therm", "PLL-therm", "AO-therm", "PMIC-Die")):
        t.zone(i, z, 100000 if z.startswith("PMIC") else 38000)
    khz = tuple(345600 + 153600 * k for k in range(12))
    t.policy(0, [0, 3, 4, 5], khz, min_khz=345600, max_khz=2035200)
    t.policy(1, [1, 2], khz, min_khz=345600, max_khz=2035200)
    t.devfreq("sys/devices/17000000.gp10b", "17000000.gp10b", "gp10b", (114750000, 828750000, 1300500000))
    for k, (addr, rails) in enumerate((("0-0040", TX2_40), ("0-0041", TX2_41))):
        iio_chip(t, I2C0, addr, rails, iio.format(k=k))
    return t
