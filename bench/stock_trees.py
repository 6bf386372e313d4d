"""Named stock board trees no earlier bench built, and hostile variants, against the daemon's promises.

``bench/board_shapes.py`` draws random shapes on the six profile trees; this one walks a fixed
list of trees as boards ship them (session 16): a Raspberry Pi 5 on kernel 6.6 and 6.12
(cpufreq-dt, one ``policy0`` for four cores, ``rp1_adc`` and ``pwmfan`` hwmon chips, the
``pwm-fan`` cooling device), a Pi 4 on 32-bit Raspberry Pi OS (1.8 GHz table), a Pi 3 B and
B+ (no fan), Jetson Orin Nano and Orin NX on JetPack 6 (nvpmodel's status, ``17000000.gpu``, a
pwm-fan hwmon), a GPU devfreq under the Thor-era names (``gpu-gpc-0``, ``gpu-nvd-0``, ``bwmgr``),
AGX Orin on JetPack 6, a Nano on JetPack 4 (its ``target_pwm`` fan) and a Xavier NX on
JetPack 5; then hostile variants: CPUs offline, a whole cluster offline (EBUSY everywhere), no
``scaling_available_frequencies``, a limit that reads EINVAL/EBUSY/empty/NaN, a zone that reads
ENODATA, -40000, 0, 255000 or NaN, a read-only limit, attributes linked outside the tree,
duplicate zone types, huge and negative numbers.  Every die sensor reads 92 °C.

For each tree, through the installed console script: ``doctor``, ``run --dry-run`` (1 s) and a
real ``run`` (4 s, the hysteresis policy).  Printed per tree: each exit status, whether a
traceback appeared, the last stderr lines, the attributes the journal owns, what changed
mid-run (``--mid-s`` after ``started``; the daemon's failsafe acts after 1 s without a
temperature), what changed outside the owned attributes, what is not back at exit (the whole
tree compared byte by byte, modes and links included) and whether a journal was left.

    python bench/stock_trees.py [--only NAME ...] [--mid-s 0.8] [--board-unprofiled NAME]

Boards no profile names (Pi 3 B+, Orin NX) were refused in session 16 unless a board was
chosen; since its SoC family step they are governed by the one profile that claims their
``compatible`` family (``dt_socs``: rpi3, jetson-orin-nano) with one warning, and only a board
whose family no profile claims (``nofamily-pi2b``) or two do (``ambiguous-tegra234``) is
refused.  ``--board-unprofiled NAME`` passes ``--board`` for the Orin NX trees.  Run it with another venv's python to measure
that venv's thermogov (the console script next to the interpreter is the one run).
Session 26t's trees (Orin Nano Super, AGX Thor, Pi 500, Pi Zero 2 W, AGX Xavier on JetPack 5, a
read-only sysfs) follow the session-24 ones; a tree in ``BOARD_FOR`` runs with that ``--board``.
"""

from __future__ import annotations

import argparse
import errno
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.board_shapes import changed, snapshot  # noqa: E402
from bench.tree_lifecycle import lifecycle  # noqa: E402
from bench.tree_lifecycle import owned as journal_owned  # noqa: E402
from tests.hw import fakesys, faultshim, procutil  # noqa: E402
from tests.hw.fakesys import FakeTree, khz_grid  # noqa: E402
from tests.runtimedir import isolated_runtime_dir  # noqa: E402

HOT = 92000
CPUF = "sys/devices/system/cpu/cpufreq"
ZONE0 = "sys/devices/virtual/thermal/thermal_zone0"
Rules = list[tuple[str, str, int]]


# -- stock trees ---------------------------------------------------------------------------------
def _hwmon(t: FakeTree, idx: int, dev: str, name: str, files: dict[str, int]) -> None:
    real = f"{dev}/hwmon/hwmon{idx}"
    t.write(f"{real}/name", name + "\n")
    for k, v in files.items():
        t.write(f"{real}/{k}", v)
    t.link(f"sys/class/hwmon/hwmon{idx}", real)


def _cpus(t: FakeTree, online: str, possible: str) -> None:
    for name, value in (("online", online), ("possible", possible), ("present", possible)):
        t.write(f"sys/devices/system/cpu/{name}", value + "\n")


def _rpi_volt(t: FakeTree, idx: int) -> None:
    """The firmware's under-voltage hwmon (raspberrypi-hwmon.c, ``in0_lcrit_alarm``)."""
    _hwmon(
        t, idx, "sys/devices/platform/soc/soc:firmware/raspberrypi-hwmon", "rpi_volt", {"in0_lcrit_alarm": 0}
    )


def pi5(root: Path, kernel: str = "6.6", fan: bool = True, table: tuple[int, ...] = ()) -> FakeTree:
    t = FakeTree(root)
    t.model("Raspberry Pi 5 Model B Rev 1.0", ("raspberrypi,5-model-b", "brcm,bcm2712"))
    t.zone(0, "cpu-thermal", HOT, fakesys.RPI5_TRIPS)
    t.policy(0, [0, 1, 2, 3], table or fakesys.RPI5_CPU_KHZ, governor="ondemand")
    t.write(f"{CPUF}/policy0/scaling_driver", "cpufreq-dt\n")
    _cpus(t, "0-3", "0-3")
    _hwmon(t, 0, ZONE0, "cpu_thermal", {"temp1_input": HOT})
    adc = {"in1_input": 1452, "in2_input": 1412, "in3_input": 1400, "in4_input": 1500, "temp1_input": 51540}
    _hwmon(t, 1, "sys/devices/platform/axi/1000120000.pcie/1f00114000.adc", "rp1_adc", adc)
    if fan:
        fakesys.pwm_fan(t, board="rpi5", hwmon=2, cdev=0)
        if kernel == "6.12":  # the zone's binding to its fan, as thermal_core lists it
            t.link(f"{ZONE0}/cdev0", "sys/devices/virtual/thermal/cooling_device0")
            t.write(f"{ZONE0}/cdev0_trip_point", 0)
            t.write(f"{ZONE0}/cdev0_weight", 0)
    _rpi_volt(t, 3)
    return t


def pi4_32bit(root: Path) -> FakeTree:
    t = FakeTree(root)
    t.model("Raspberry Pi 4 Model B Rev 1.5", ("raspberrypi,4-model-b", "brcm,bcm2711"))
    t.zone(0, "cpu-thermal", HOT, fakesys.RPI4_TRIPS)
    t.policy(0, [0, 1, 2, 3], khz_grid(600000, 100000, 1800000), governor="ondemand")
    _cpus(t, "0-3", "0-3")
    _hwmon(t, 0, ZONE0, "cpu_thermal", {"temp1_input": HOT})
    _rpi_volt(t, 1)
    return t


def pi3(root: Path, plus: bool = False) -> FakeTree:
    """Pi 3 B / B+: raspberrypi-cpufreq's 100 MHz steps from 600 MHz to 1.2 / 1.4 GHz."""
    t = FakeTree(root)
    model = "Raspberry Pi 3 Model B Plus Rev 1.3" if plus else "Raspberry Pi 3 Model B Rev 1.2"
    t.model(model, ("raspberrypi,3-model-b-plus" if plus else "raspberrypi,3-model-b", "brcm,bcm2837"))
    t.zone(0, "cpu-thermal", HOT, fakesys.RPI4_TRIPS)
    t.policy(0, [0, 1, 2, 3], khz_grid(600000, 100000, 1400000 if plus else 1200000), governor="ondemand")
    _cpus(t, "0-3", "0-3")
    _hwmon(t, 0, ZONE0, "cpu_thermal", {"temp1_input": HOT})
    _rpi_volt(t, 1)
    return t


def _nvpmodel(t: FakeTree, status: str) -> None:
    t.write("var/lib/nvpmodel/status", status + "\n")


def orin_nano_jp6(root: Path) -> FakeTree:
    t = fakesys.orin_nano(root, jetpack=6, cpu_mc=HOT, gpu_mc=HOT)
    _nvpmodel(t, "pmode:0000 fmode:quiet")
    fakesys.pwm_fan(t, board="orin", hwmon=2, cdev=None)
    _cpus(t, "0-5", "0-5")
    return t


ORIN_NX_CPU_KHZ = (*fakesys.ORIN_NANO_CPU_KHZ, 1651200, 1728000, 1804800, 1881600, 1958400, 1984000)
ORIN_NX_GPU_HZ = (306000000, 408000000, 510000000, 612000000, 714000000, 816000000, 918000000)


def orin_nx_jp6(root: Path) -> FakeTree:
    """Orin NX 16 GB (p3767-0000) on its reference carrier: 8 cores in two clusters, 918 MHz GPU."""
    t = FakeTree(root)
    t.model(
        "NVIDIA Jetson Orin NX Engineering Reference Developer Kit",
        ("nvidia,p3768-0000+p3767-0000", "nvidia,p3767-0000", "nvidia,tegra234"),
    )
    for i, z in enumerate(fakesys.ORIN_NANO_JP6_ZONES):
        t.zone(
            i, z, HOT if z[:3] in ("cpu", "gpu") else 50000, (("passive", 99000, 0), ("critical", 104500, 0))
        )
    t.policy(0, [0, 1, 2, 3], ORIN_NX_CPU_KHZ, min_khz=729600)
    t.policy(4, [4, 5, 6, 7], ORIN_NX_CPU_KHZ, min_khz=729600)
    t.devfreq("sys/devices/platform/bus@0/17000000.gpu", "17000000.gpu", "gpu", ORIN_NX_GPU_HZ)
    t.ina3221(1, "sys/devices/platform/c240000.i2c/i2c-1/1-0040", fakesys.ORIN_NANO_RAILS)
    _nvpmodel(t, "pmode:0003 fmode:quiet")
    fakesys.pwm_fan(t, board="orin", hwmon=2, cdev=None)
    _cpus(t, "0-7", "0-7")
    return t


def renamed(
    build: Callable[[Path], FakeTree], model: str, compatible: tuple[str, ...]
) -> Callable[[Path], FakeTree]:
    """A stock tree under another device-tree model and ``compatible``: a board whose SoC family
    no profile claims (a Pi 2 B's BCM2836, linux bcm2836-rpi-2-b.dts) or two profiles claim (a
    carrier whose tree says only ``nvidia,tegra234``: Orin Nano's and AGX Orin's)."""

    def make(root: Path) -> FakeTree:
        t = build(root)
        base = "sys/firmware/devicetree/base"
        t.write(f"{base}/model", model.encode() + b"\x00")
        t.write(f"{base}/compatible", b"".join(c.encode() + b"\x00" for c in compatible))
        return t

    return make


def orin_gpu_gpc(root: Path) -> FakeTree:
    """The GPU devfreq under Thor-era names (``gpu-gpc-0``, ``gpu-nvd-0``) beside an EMC ``bwmgr``."""
    t = fakesys.orin_nano(root, jetpack=6, cpu_mc=HOT, gpu_mc=HOT)
    shutil.rmtree(root / "sys/devices/platform/bus@0/17000000.gpu")
    os.unlink(root / "sys/class/devfreq/17000000.gpu")
    gpu = "sys/devices/platform/bus@0/d0b0000000.gpu"
    t.devfreq(gpu, "gpu-gpc-0", "gpu", fakesys.ORIN_NANO_GPU_HZ)
    t.devfreq(f"{gpu}/nvd", "gpu-nvd-0", "gpu", fakesys.ORIN_NANO_GPU_HZ)
    emc = (204000000, 665600000, 2133000000, 3199000000)
    t.devfreq("sys/devices/platform/bwmgr", "bwmgr", "bwmgr", emc, governor="performance")
    _nvpmodel(t, "pmode:0000 fmode:quiet")
    return t


def agx_orin_jp6(root: Path) -> FakeTree:
    t = fakesys.agx_orin(root, jetpack=6, cpu_mc=HOT, gpu_mc=HOT)
    _nvpmodel(t, "pmode:0000 fmode:quiet")
    fakesys.pwm_fan(t, board="orin", hwmon=2, cdev=None)
    return t


def nano_jp4(root: Path) -> FakeTree:
    """L4T 32 (kernel 4.9): the fan is ``/sys/devices/pwm-fan/target_pwm``, no hwmon, no cdev."""
    t = fakesys.jetson_nano(root, cpu_mc=HOT)
    for name, value in (("target_pwm", 0), ("cur_pwm", 0), ("temp_control", 1)):
        t.write(f"sys/devices/pwm-fan/{name}", value)
    _nvpmodel(t, "pmode:0000")
    return t


def xavier_nx_jp5(root: Path) -> FakeTree:
    t = fakesys.xavier_nx(root, cpu_mc=HOT)
    _nvpmodel(t, "pmode:0008 fmode:cool")
    fakesys.pwm_fan(t, board="orin", hwmon=3, cdev=None)
    return t


# -- session 19: boards as they ship that no bench built yet -------------------------------------
# Each shape names where it comes from: a real listing's file name (THERMOGOV_REAL_DATA), a
# kernel source, or a public source named by a short key: "jtop" = rbonghi/jetson_stats
# (jtop/core/power.py for the INA3221 hwmon and JP4 iio rails, jtop/core/gpu.py for the GPU
# devfreq names, tests/nvpmodel for the CPU clusters); "RPD" = raspberrypi/documentation
# (computers/raspberry-pi/frequency-management.adoc, config_txt/overclocking.adoc).
# docs/hardware.md, "Session 19: trees nobody built, the whole lifecycle".
TEGRA_I2C = "sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0040"


def _jp6_fan_cdev(t: FakeTree, tj_zone: int) -> None:
    """JetPack 6's kernel-driven fan: pwm-fan with cooling-levels <0 187 255> (max_state 2),
    bound to tj-thermal's active trips 74/95 °C, hyst 4 °C (tegra234-p3767.dtsi, p3768 carrier)."""
    cdev = "sys/devices/virtual/thermal/cooling_device0"
    t.write(f"{cdev}/type", "pwm-fan\n")
    t.write(f"{cdev}/max_state", 2)
    t.write(f"{cdev}/cur_state", 0)
    t.link("sys/class/thermal/cooling_device0", cdev)
    zone = f"sys/devices/virtual/thermal/thermal_zone{tj_zone}"
    for k, (temp, trip) in enumerate(((74000, 2), (95000, 3))):
        t.write(f"{zone}/trip_point_{trip}_type", "active\n")
        t.write(f"{zone}/trip_point_{trip}_temp", temp)
        t.write(f"{zone}/trip_point_{trip}_hyst", 4000)
        t.link(f"{zone}/cdev{k}", cdev)
        t.write(f"{zone}/cdev{k}_trip_point", trip)
        t.write(f"{zone}/cdev{k}_weight", 0)


def orin_nx_jp6_stock(root: Path, *, gb: int = 16) -> FakeTree:
    """Orin NX on JetPack 6 (L4T r36, kernel 5.15) on the p3768 carrier.  16 GB (p3767-0000):
    8 cores in policy0/policy4, GPU to 918 MHz; 8 GB (p3767-0001): 6 cores (policy4 = cpu4-5),
    GPU to 765 MHz (NVIDIA Orin NX datasheet figures).  ``17000000.gpu`` devfreq, the INA3221
    with ``in1_label`` VDD_IN (jtop, power sensors; Orin Nano/NX rails), tj-thermal's fan."""
    t = FakeTree(root)
    module = "p3767-0000" if gb == 16 else "p3767-0001"
    t.model(
        "NVIDIA Jetson Orin NX Engineering Reference Developer Kit",
        (f"nvidia,p3768-0000+{module}", f"nvidia,{module}", "nvidia,tegra234"),
    )
    t.boot_id("8d1f0c1e-0000-4000-8000-0000000000a1")
    for i, z in enumerate(fakesys.ORIN_NANO_JP6_ZONES):
        t.zone(
            i, z, HOT if z[:3] in ("cpu", "gpu") else 50000, (("passive", 99000, 0), ("critical", 104500, 0))
        )
    _jp6_fan_cdev(t, fakesys.ORIN_NANO_JP6_ZONES.index("tj-thermal"))
    t.policy(0, [0, 1, 2, 3], ORIN_NX_CPU_KHZ, min_khz=729600)
    t.policy(4, [4, 5, 6, 7] if gb == 16 else [4, 5], ORIN_NX_CPU_KHZ, min_khz=729600)
    for p in (0, 4):
        t.write(f"{CPUF}/policy{p}/scaling_driver", "tegra194\n")
    gpu = ORIN_NX_GPU_HZ if gb == 16 else (*ORIN_NX_GPU_HZ[:5], 765000000)
    t.devfreq("sys/devices/platform/bus@0/17000000.gpu", "17000000.gpu", "gpu", gpu)
    t.ina3221(1, TEGRA_I2C, fakesys.ORIN_NANO_RAILS)
    _nvpmodel(t, "pmode:0000 fmode:quiet")
    fakesys.pwm_fan(t, board="orin", hwmon=2, cdev=None)
    _cpus(t, "0-7" if gb == 16 else "0-5", "0-7" if gb == 16 else "0-5")
    return t


def orin_nano_jp5(root: Path) -> FakeTree:
    """Orin Nano on JetPack 5.1 (L4T r35, kernel 5.10): JP5 zone names (``CPU-therm``,
    ``Tboard_tegra`` without trips), the GPU as ``17000000.ga10b`` (jtop), nvfancontrol's
    pwm-fan hwmon without a cooling device."""
    t = fakesys.orin_nano(root, jetpack=5, cpu_mc=HOT, gpu_mc=HOT)
    _nvpmodel(t, "pmode:0000 fmode:quiet")
    fakesys.pwm_fan(t, board="orin", hwmon=2, cdev=None)
    _cpus(t, "0-5", "0-5")
    return t


def xavier_nx_jp51(root: Path) -> FakeTree:
    """Xavier NX on JetPack 5.1 (kernel 5.10): tegra194-cpufreq gives one policy per two-core
    Carmel cluster (policy0/2/4; jtop tests/nvpmodel: 8 Carmel cores in 4 pairs), gv11b devfreq, the
    INA3221 with VDD_IN, VDD_CPU_GPU_CV, VDD_SOC (tegrastats_xaviernx_gpuburn_stressng.log)."""
    t = FakeTree(root)
    t.model("NVIDIA Jetson Xavier NX Developer Kit", ("nvidia,p3509-0000+p3668-0001", "nvidia,tegra194"))
    zones = ("AUX-therm", "CPU-therm", "thermal-fan-est", "AO-therm", "GPU-therm", "PMIC-Die", "Tboard_tegra")
    for i, z in enumerate(zones):
        t.zone(i, z, 100000 if z.startswith("PMIC") else HOT if z[:3] in ("CPU", "GPU") else 50000)
    for p in (0, 2, 4):
        t.policy(p, [p, p + 1], fakesys.XAVIER_NX_CPU_KHZ, min_khz=1190400, max_khz=1907200)
    t.devfreq(
        "sys/devices/17000000.gv11b",
        "17000000.gv11b",
        "gv11b",
        (114750000, 318750000, 522750000, 726750000, 930750000, 1100250000),
    )
    rails = (("VDD_IN", 5000, 1400), ("VDD_CPU_GPU_CV", 5000, 400), ("VDD_SOC", 5000, 500))
    t.ina3221(1, "sys/devices/c250000.i2c/i2c-7/7-0040", rails)
    _nvpmodel(t, "pmode:0008 fmode:cool")
    fakesys.pwm_fan(t, board="orin", hwmon=2, cdev=None)
    _cpus(t, "0-5", "0-5")
    return t


def nano_jp46(root: Path) -> FakeTree:
    """Nano on JetPack 4.6 (L4T r32.7, kernel 4.9): zone types as the Nano 2GB lists them
    (sysfs_jetson-nano2gb_thermal_zone_types.txt), the GPU at ``gpu.0/devfreq/57000000.gpu``
    (jtop), the INA3221 as the iio ``ina3221x`` device (``rail_name_N``, ``in_power N_input``;
    jtop, JP4 iio), not hwmon, and the ``target_pwm`` fan."""
    t = FakeTree(root)
    t.model(
        "NVIDIA Jetson Nano Developer Kit",
        ("nvidia,p3449-0000-b00+p3448-0000-b00", "nvidia,jetson-nano", "nvidia,tegra210"),
    )
    for i, z in enumerate(fakesys.NANO_ZONE_TYPES):
        t.zone(i, z, 100000 if z.startswith("PMIC") else HOT)
    t.policy(0, [0, 1, 2, 3], fakesys.NANO_CPU_KHZ, governor="schedutil")
    t.devfreq("sys/devices/gpu.0", "57000000.gpu", "gpu", fakesys.NANO_GPU_HZ, governor="nvhost_podgov")
    dev = "sys/devices/7000c400.i2c/i2c-6/6-0040"
    t.write(f"{dev}/name", "ina3221x\n")
    t.link("sys/bus/i2c/devices/6-0040", dev)
    iio = f"{dev}/iio:device0"
    for n, (label, mw) in enumerate((("POM_5V_IN", 2100), ("POM_5V_GPU", 0), ("POM_5V_CPU", 400))):
        t.write(f"{iio}/rail_name_{n}", label + "\n")
        t.write(f"{iio}/in_power{n}_input", mw)
        t.write(f"{iio}/in_current{n}_input", mw // 5)
        t.write(f"{iio}/in_voltage{n}_input", 5000)
    t.link("sys/bus/iio/devices/iio:device0", iio)
    for name, value in (("target_pwm", 0), ("cur_pwm", 0), ("temp_control", 1)):
        t.write(f"sys/devices/pwm-fan/{name}", value)
    _nvpmodel(t, "pmode:0000")
    _cpus(t, "0-3", "0-3")
    return t


def nano_jp46_twin(root: Path, *, jtop: bool = False) -> FakeTree:
    """The Nano on JetPack 4.6 with its fan's hwmon twin ``tegra_pwmfan`` (L4T 32.4+'s
    ``pwm_fan.c`` registers the platform device's attribute group again as a hwmon child; one
    ``fan_data``, hard links here).  ``jtop``: jetson_stats' ``jtop.service`` enabled and
    running, its config keeping a manual fan speed (``jtop/core/fan.py``, ``services/jtop.service``)."""
    t = nano_jp46(root)
    t.write("sys/devices/pwm-fan/pwm_cap", 255)
    fakesys.l4t_fan_twin(t)
    if jtop:
        t.link("etc/systemd/system/multi-user.target.wants/jtop.service", "etc/systemd/system/jtop.service")
        t.write("proc/931/comm", "jtop\n")
        t.write("usr/local/jetson_stats/config.json", '{"fan": {"tegra_pwmfan": {"profile": "manual"}}}\n')
    return t


def pi4_66(root: Path, *, gpio_fan: bool) -> FakeTree:
    """Pi 4 B Rev 1.4 on Raspberry Pi OS (kernel 6.1/6.6, 64-bit, 600-1500 MHz in 100 MHz steps
    through cpufreq-dt).  ``gpio_fan``: the gpio-fan overlay's active trip 70 °C hyst 10 °C and
    its one-state cooling device bound to cpu-thermal (sysfs_rpi4_thermal_gpiofan_throttle_issue135);
    without it the zone has only its critical trip and no binding (bcm283x.dtsi cpu-crit)."""
    t = FakeTree(root)
    t.model("Raspberry Pi 4 Model B Rev 1.4", ("raspberrypi,4-model-b", "brcm,bcm2711"))
    trips = (("active", 70000, 10000),) if gpio_fan else fakesys.RPI4_TRIPS
    t.zone(0, "cpu-thermal", HOT, trips)
    t.policy(0, [0, 1, 2, 3], fakesys.RPI4_CPU_KHZ, governor="ondemand")
    t.write(f"{CPUF}/policy0/scaling_driver", "cpufreq-dt\n")
    _cpus(t, "0-3", "0-3")
    _hwmon(t, 0, ZONE0, "cpu_thermal", {"temp1_input": HOT})
    if gpio_fan:
        cdev = "sys/devices/virtual/thermal/cooling_device0"
        t.write(f"{cdev}/type", "gpio-fan\n")
        t.write(f"{cdev}/max_state", 1)
        t.write(f"{cdev}/cur_state", 1)
        t.link("sys/class/thermal/cooling_device0", cdev)
        t.link(f"{ZONE0}/cdev0", cdev)
        t.write(f"{ZONE0}/cdev0_trip_point", 0)
        t.write(f"{ZONE0}/cdev0_weight", 0)
    _rpi_volt(t, 1)
    return t


def pi5_active_cooler(root: Path) -> FakeTree:
    """Pi 5 with the Active Cooler on 6.6: the critical trip first, then four active trips, each
    bound to the pwm-fan cooling device (max_state 4) as cdev0..cdev4 -> trips 1,2,3,4,0
    (sysfs_rpi5_thermal_zone_cdev_map_issue5921.txt; temperatures RPD)."""
    t = pi5(root, fan=False)
    zone = t.root / ZONE0
    for f in zone.glob("trip_point_*"):
        f.unlink()
    trips = (("critical", 110000, 0), *fakesys.RPI5_TRIPS[:4])
    for k, (ttype, temp, hyst) in enumerate(trips):
        t.write(f"{ZONE0}/trip_point_{k}_type", ttype + "\n")
        t.write(f"{ZONE0}/trip_point_{k}_temp", temp)
        t.write(f"{ZONE0}/trip_point_{k}_hyst", hyst)
    fakesys.pwm_fan(t, board="rpi5", hwmon=2, cdev=0)
    for k, trip in enumerate((1, 2, 3, 4, 0)):
        t.link(f"{ZONE0}/cdev{k}", "sys/devices/virtual/thermal/cooling_device0")
        t.write(f"{ZONE0}/cdev{k}_trip_point", trip)
        t.write(f"{ZONE0}/cdev{k}_weight", 0)
    return t


def pi3bplus_32(root: Path) -> FakeTree:
    """Pi 3 B+ on 32-bit Raspberry Pi OS (armv7 kernel): cpufreq-dt over raspberrypi-cpufreq's
    600-1400 MHz, no fan (RPD; linux raspberrypi-cpufreq.c)."""
    t = pi3(root, plus=True)
    t.write(f"{CPUF}/policy0/scaling_driver", "cpufreq-dt\n")
    return t


def cm4_nofan(root: Path) -> FakeTree:
    """CM4 on a carrier without fan: cpu-thermal keeps the active trips 75/50 °C hyst 2 °C
    (sysfs_rpi-cm4_thermal_zone_trips_issue19.txt) with nothing bound to them."""
    t = FakeTree(root)
    t.model("Raspberry Pi Compute Module 4 Rev 1.0", ("raspberrypi,4-compute-module", "brcm,bcm2711"))
    t.zone(0, "cpu-thermal", HOT, (("active", 75000, 2000), ("active", 50000, 2000)))
    t.policy(0, [0, 1, 2, 3], fakesys.RPI4_CPU_KHZ, governor="ondemand")
    t.write(f"{CPUF}/policy0/scaling_driver", "cpufreq-dt\n")
    _cpus(t, "0-3", "0-3")
    _hwmon(t, 0, ZONE0, "cpu_thermal", {"temp1_input": HOT})
    _rpi_volt(t, 1)
    return t


def cm5_nofan(root: Path) -> FakeTree:
    """CM5 (``Raspberry Pi Compute Module 5 Rev 1.0``, kernel 6.6.63-v8-16k, 1500-2400 MHz:
    sbcbench_rpi-cm5_Xh2H.txt) on a carrier without fan: no pwm-fan hwmon, no cooling device."""
    t = pi5(root, fan=False)
    base = "sys/firmware/devicetree/base"
    t.write(f"{base}/model", b"Raspberry Pi Compute Module 5 Rev 1.0\x00")
    t.write(f"{base}/compatible", b"raspberrypi,5-compute-module\x00brcm,bcm2712\x00")
    return t


# Session 24b: a TX2 devkit on L4T 28 (JetPack 3, kernel 4.4) and L4T 32 (JetPack 4, kernel 4.9).
# Zone types as L4T lists them on a TX2 (L4T 28: no AO-therm; L4T 32 adds it); the mainline
# tegra186.dtsi's one critical trip at 101 °C on each BPMP zone (torvalds/linux
# arch/arm64/boot/dts/nvidia/tegra186.dtsi; L4T's own trips are not in a public index we found).
TX2_ZONES_28 = (
    "BCPU-therm", "MCPU-therm", "GPU-therm", "PLL-therm", "Tboard_tegra", "Tdiode_tegra", "PMIC-Die",
    "thermal-fan-est",
)  # fmt: skip
TX2_ZONES_32 = (*TX2_ZONES_28[:4], "AO-therm", *TX2_ZONES_28[4:])
# The carrier's INA3221 at 0x42 (energymon jetson/JetsonPowerRails.md): VDD_MUX feeds the carrier
# in parallel with the module's VDD_IN, so it is never the board's input (values estimated).
TX2_42 = (("VDD_MUX", 19000, 120), ("VDD_5V0_IO_SYS", 5000, 200), ("VDD_3V3_SYS", 3300, 150))


def tx2_l4t(root: Path, l4t: str = "28") -> FakeTree:
    """A TX2 devkit as L4T ``l4t`` ships it: A57 ``policy0`` (CPUs 0, 3-5) and Denver ``policy1``
    (CPUs 1-2), ``17000000.gp10b`` under nvhost_podgov, the module's two INA3221 and the
    carrier's (``iio_device`` on 28, ``iio:deviceK`` on 32), and the fan: L4T 28's
    ``/sys/kernel/debug/tegra_fan/target_pwm`` (forums.developer.nvidia.com/t/52786), L4T 32's
    ``/sys/devices/pwm-fan`` (``target_pwm``, ``cur_pwm``, ``temp_control``: the Nano's)."""
    t = FakeTree(root)
    t.model("NVIDIA Jetson TX2 Developer Kit", ("nvidia,p2771-0000", "nvidia,tegra186"))
    crit = (("critical", 101000, 0),)
    for i, z in enumerate(TX2_ZONES_28 if l4t == "28" else TX2_ZONES_32):
        t.zone(i, z, 100000 if z.startswith("PMIC") else HOT, crit if z.endswith("-therm") else ())
    khz = khz_grid(345600, 153600, 2035200)
    t.policy(0, [0, 3, 4, 5], khz, governor="schedutil")
    t.policy(1, [1, 2], khz, governor="schedutil")
    gpu_hz = (*(114750000 + 102000000 * k for k in range(12)), 1300500000)  # the profile's grid
    t.devfreq("sys/devices/17000000.gp10b", "17000000.gp10b", "gp10b", gpu_hz, governor="nvhost_podgov")
    iio = "iio_device" if l4t == "28" else "iio:device{k}"
    for k, (addr, rails) in enumerate(
        (("0-0040", fakesys.TX2_40), ("0-0041", fakesys.TX2_41), ("0-0042", TX2_42))
    ):
        fakesys.iio_chip(t, fakesys.I2C0, addr, rails, iio.format(k=k))
    fan = "sys/kernel/debug/tegra_fan" if l4t == "28" else "sys/devices/pwm-fan"
    for name, value in (("target_pwm", 0), ("cur_pwm", 0), ("temp_control", 1)):
        t.write(f"{fan}/{name}", value)
    _cpus(t, "0-5", "0-5")
    return t


# Session 26t: boards as they ship today that no bench built yet.  Sources per shape; "L4T" =
# NVIDIA Jetson Linux Developer Guide, Platform Power and Performance (docs.nvidia.com/jetson/archives).
def orin_nano_super(root: Path) -> FakeTree:
    """Orin Nano 8 GB devkit on JetPack 6.2 (L4T r36.4.3, kernel 5.15) in MAXN_SUPER: the DTB's
    first compatible gains ``-super`` (``nvidia,p3768-0000+p3767-0005-super``, as Jetson.GPIO's
    compat list and user reports print /proc/device-tree/compatible), the CPU table reaches
    1728 MHz and the GPU's 1020 MHz (NVIDIA Orin Nano Super datasheet: 1.02 GHz, was 625 MHz),
    so the board's tops lie above the ``jetson-orin-nano`` profile's own tables."""
    t = renamed(
        orin_nano_jp6,
        "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super",
        ("nvidia,p3768-0000+p3767-0005-super", "nvidia,p3767-0005", "nvidia,tegra234"),
    )(root)
    khz = (*fakesys.ORIN_NANO_CPU_KHZ, 1574400, 1651200, 1728000)
    for p in (0, 4):
        t.write(f"{CPUF}/policy{p}/scaling_available_frequencies", " ".join(map(str, khz)) + " \n")
        for name in ("cpuinfo_max_freq", "scaling_max_freq", "scaling_cur_freq"):
            t.write(f"{CPUF}/policy{p}/{name}", khz[-1])
    hz = (*fakesys.ORIN_NANO_GPU_HZ, 714000000, 816000000, 918000000, 1020000000)
    gpu = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"
    t.write(f"{gpu}/available_frequencies", " ".join(map(str, hz)) + "\n")
    t.write(f"{gpu}/max_freq", hz[-1])
    _nvpmodel(t, "pmode:0002 fmode:quiet")
    return t


THOR_ZONES = ("cpu-thermal", "gpu-thermal", "soc-thermal", "tj-thermal")


def agx_thor_jp7(root: Path) -> FakeTree:
    """Jetson AGX Thor devkit on JetPack 7.0 (L4T r38.2, kernel 6.8, SBSA layout): Tegra264, no
    profile claims its family (``nvidia,tegra264``: the upstream tegra264 bindings); 14 Neoverse
    cores with one cpufreq policy per core (cppc-style, no shared clusters), no GPU devfreq (the
    GPU is driven by the OpenRM driver, L4T r38 Jetson Thor power page: no devfreq node to
    cap), BPMP thermal zones (names estimated from the T234 pattern)."""
    t = FakeTree(root)
    t.model(
        "NVIDIA Jetson AGX Thor Developer Kit",
        ("nvidia,p3971-0000+p3834-0000", "nvidia,p3834-0000", "nvidia,tegra264"),
    )
    for i, z in enumerate(THOR_ZONES):
        t.zone(i, z, HOT, (("passive", 99000, 0), ("critical", 104500, 0)))
    khz = khz_grid(972000, 108000, 2592000)
    for c in range(14):
        t.policy(c, [c], khz, governor="schedutil")
        t.write(f"{CPUF}/policy{c}/scaling_driver", "cppc_cpufreq\n")
    _nvpmodel(t, "pmode:0000 fmode:quiet")
    _cpus(t, "0-13", "0-13")
    return t


def pi500(root: Path) -> FakeTree:
    """Raspberry Pi 500 (keyboard computer, BCM2712, no fan header: RPD computers/pi500): model
    ``Raspberry Pi 500 Rev 1.0``, compatible ``raspberrypi,500`` (linux bcm2712-rpi-500.dts);
    a passive heat spreader, so no pwm-fan hwmon and no cooling device."""
    t = pi5(root, fan=False)
    base = "sys/firmware/devicetree/base"
    t.write(f"{base}/model", b"Raspberry Pi 500 Rev 1.0\x00")
    t.write(f"{base}/compatible", b"raspberrypi,500\x00brcm,bcm2712\x00")
    return t


def pi_zero2w(root: Path) -> FakeTree:
    """Pi Zero 2 W (RP3A0 = BCM2710A1, 4x A53 at 1 GHz, no fan; compatible
    ``raspberrypi,model-zero-2-w``, ``brcm,bcm2837``: linux bcm2837-rpi-zero-2-w.dts):
    raspberrypi-cpufreq's 100 MHz steps from 600 MHz to 1000 MHz, below every rpi3 profile top."""
    t = FakeTree(root)
    t.model("Raspberry Pi Zero 2 W Rev 1.0", ("raspberrypi,model-zero-2-w", "brcm,bcm2837"))
    t.zone(0, "cpu-thermal", HOT, fakesys.RPI4_TRIPS)
    t.policy(0, [0, 1, 2, 3], khz_grid(600000, 100000, 1000000), governor="ondemand")
    t.write(f"{CPUF}/policy0/scaling_driver", "cpufreq-dt\n")
    _cpus(t, "0-3", "0-3")
    _hwmon(t, 0, ZONE0, "cpu_thermal", {"temp1_input": HOT})
    _rpi_volt(t, 1)
    return t


AGX_XAVIER_CPU_KHZ = (*khz_grid(115200, 76800, 2188800), 2265600)


def agx_xavier_jp5(root: Path) -> FakeTree:
    """AGX Xavier devkit on JetPack 5.1 (L4T r35, kernel 5.10): ``Jetson-AGX`` /
    ``nvidia,p2972-0000`` (the profile's DT), tegra194-cpufreq's one policy per two-core Carmel
    cluster, four of them (policy0/2/4/6), the 115.2-2265.6 MHz grid, gv11b devfreq to
    1377 MHz (L4T Xavier power page, MAXN), T194 zone names with ``Tboard_tegra``/``Tdiode_tegra``,
    two INA3221 on i2c-1 (GPU/CPU/SOC and CV/VDDRQ/SYS5V), the fan's pwm-fan hwmon."""
    t = FakeTree(root)
    t.model("Jetson-AGX", ("nvidia,p2972-0000", "nvidia,galen", "nvidia,tegra194"))
    zones = (
        "CPU-therm", "GPU-therm", "AUX-therm", "AO-therm", "PMIC-Die", "Tboard_tegra", "Tdiode_tegra",
        "thermal-fan-est",
    )  # fmt: skip
    for i, z in enumerate(zones):
        t.zone(i, z, 100000 if z.startswith("PMIC") else HOT if z[:3] in ("CPU", "GPU") else 50000)
    for p in (0, 2, 4, 6):
        t.policy(p, [p, p + 1], AGX_XAVIER_CPU_KHZ, min_khz=1190400)
    gpu = (*(114750000 + 102000000 * k for k in range(12)), 1236750000, 1338750000, 1377000000)
    t.devfreq("sys/devices/17000000.gv11b", "17000000.gv11b", "gv11b", gpu)
    i2c = "sys/devices/3160000.i2c/i2c-1"
    t.ina3221(1, f"{i2c}/1-0040", (("GPU", 19000, 100), ("CPU", 19000, 80), ("SOC", 19000, 150)))
    t.ina3221(2, f"{i2c}/1-0041", (("CV", 19000, 10), ("VDDRQ", 19000, 60), ("SYS5V", 5000, 400)))
    _nvpmodel(t, "pmode:0000 fmode:quiet")
    fakesys.pwm_fan(t, board="orin", hwmon=3, cdev=None)
    _cpus(t, "0-7", "0-7")
    return t


# Session 30t: the emulator's trees of the three profiles no tree was built for before
# (``sim/emulator/trees/{jetson-agx-xavier,jetson-xavier-nx,rpi3}.toml``, each fact cited there),
# built by the emulator's own builder with every die sensor at 92 °C, then the variants a real
# board shows: L4T 32's one policy for all Carmel cores (kernel 4.9, sbcbench_agx-xavier_4ebH
# "CPU sysfs topology": every CPU in policy 0), a power monitor gone, and the hostile ones.
def emu(board: str, *variants: Callable[[Path], Rules]) -> Callable[[Path], Rules]:
    """The emulator's stock tree of ``board`` (thermogov.sim.emulator.fakeboard), hot, then each
    variant applied in turn (their fault rules joined)."""

    def make(root: Path) -> Rules:
        from thermogov.board import load_board
        from thermogov.sim.emulator.fakeboard import build_fake_board
        from thermogov.sim.emulator.firmwarebits import FirmwareBits

        profile = load_board(board)
        layout = build_fake_board(profile, root, {s.name: HOT / 1000 for s in profile.sensors})
        for rel, rail in layout.rails:  # a running board: 1 W on every connected channel
            (root / rel).write_text(f"{round(1000 / rail.volt_v) if rail.volt_v > 0 else 0}\n")
        FirmwareBits(profile, root).update(False)  # a Pi's get_throttled, 0 (sim/emulator/firmwarebits.py)
        rules: Rules = []
        for v in variants:
            rules += v(root)
        return rules

    return make


def one_policy(root: Path) -> Rules:
    """L4T 32 (kernel 4.9): one ``policy0`` for every Carmel core; the other policies absent."""
    pols = sorted(p.name for p in (root / CPUF).iterdir())
    cpus = []
    for name in pols:
        cpus += (root / CPUF / name / "related_cpus").read_text().split()
        if name != "policy0":
            shutil.rmtree(root / CPUF / name)
    for attr in ("related_cpus", "affected_cpus"):
        (root / CPUF / "policy0" / attr).write_text(" ".join(cpus) + "\n")
    return []


def bcm2835_cpufreq(root: Path) -> Rules:
    """A Pi 3 on Raspbian's 4.x kernels: the old ``BCM2835 CPUFreq`` driver lists only
    arm_freq_min and arm_freq ("ondemand ... just switches min and max",
    sites.google.com/view/how2raspberrypi/cpu-frequency-scaling), not the 100 MHz steps of
    raspberrypi-cpufreq."""
    pol = root / CPUF / "policy0"
    khz = (pol / "scaling_available_frequencies").read_text().split()
    (pol / "scaling_available_frequencies").write_text(f"{khz[0]} {khz[-1]} \n")
    (pol / "scaling_driver").write_text("BCM2835 CPUFreq\n")
    return []


def no_hwmon(index: int) -> Callable[[Path], Rules]:
    """One power monitor (hwmon chip ``index``) gone: its driver not bound, a carrier without it."""

    def make(root: Path) -> Rules:
        shutil.rmtree(root / f"sys/class/hwmon/hwmon{index}")
        return []

    return make


def no_hwmon_named(name: str) -> Callable[[Path], Rules]:
    """The hwmon chip called ``name`` gone (its driver not loaded); nothing if there is none."""

    def make(root: Path) -> Rules:
        for chip in sorted((root / "sys/class/hwmon").glob("hwmon*")):
            if (chip / "name").read_text().strip() == name:
                shutil.rmtree(chip)
        return []

    return make


def rules(*given: tuple[str, str, int]) -> Callable[[Path], Rules]:
    def make(root: Path) -> Rules:
        return list(given)

    return make


def chmod_ro(rel: str) -> Callable[[Path], Rules]:
    def make(root: Path) -> Rules:
        os.chmod(root / rel, 0o444)
        return []

    return make


EMU_ZONE0 = "sys/class/thermal/thermal_zone0/temp"
EMU_ZONE1 = "sys/class/thermal/thermal_zone1/temp"


def stock(build: Callable[[Path], FakeTree]) -> Callable[[Path], Rules]:
    def make(root: Path) -> Rules:
        build(root)
        return []

    return make


# -- hostile variants ----------------------------------------------------------------------------
def cpus_offline(root: Path) -> Rules:
    t = pi5(root)
    _cpus(t, "0", "0-3")
    t.write(f"{CPUF}/policy0/affected_cpus", "0\n")
    return []


def cluster_offline(root: Path) -> Rules:
    """All of policy4's CPUs offline (an nvpmodel mode with fewer cores): every attribute EBUSY."""
    t = orin_nx_jp6(root)
    _cpus(t, "0-3", "0-7")
    p = f"{CPUF}/policy4"
    return [(f"{p}/{n}", "r", errno.EBUSY) for n in sorted(os.listdir(root / p))]


def no_list(root: Path) -> Rules:
    pi5(root)
    os.unlink(root / CPUF / "policy0/scaling_available_frequencies")
    return []


def agx_no_list(root: Path) -> Rules:
    """Only ``cpuinfo_min_freq``/``cpuinfo_max_freq`` on every cluster, below a profile floor."""
    agx_orin_jp6(root)
    for p in ("policy0", "policy4", "policy8"):
        os.unlink(root / CPUF / p / "scaling_available_frequencies")
    return []


def read_fails(build: Callable[[Path], FakeTree], rel: str, code: int) -> Callable[[Path], Rules]:
    def make(root: Path) -> Rules:
        build(root)
        return [(rel, "r", code)]

    return make


def content(rel: str, text: str | int) -> Callable[[Path], Rules]:
    def make(root: Path) -> Rules:
        pi5(root).write(rel, text)
        return []

    return make


def read_only_max(root: Path) -> Rules:
    pi5(root)
    os.chmod(root / CPUF / "policy0/scaling_max_freq", 0o444)
    return []


def linked_outside(rel: str) -> Callable[[Path], Rules]:
    def make(root: Path) -> Rules:
        pi5(root)
        out = root.parent / "outside"
        out.mkdir(exist_ok=True)
        p = root / rel
        (out / p.name).write_bytes(p.read_bytes())
        p.unlink()
        p.symlink_to(out / p.name)
        return []

    return make


def duplicate_zone(root: Path) -> Rules:
    fakesys.zone_ahead(pi5(root), "cpu-thermal", -40000)
    return []


def read_only_fs(
    build: Callable[[Path], FakeTree], under: tuple[str, ...] = ("sys",)
) -> Callable[[Path], Rules]:
    """A container or a cgroup-v2 sandbox where sysfs (or only cpufreq/devfreq) is mounted
    read-only: every write under ``under`` fails EROFS (mount(8) ``ro``; the modes still read
    0644, so only the write tells)."""

    def make(root: Path) -> Rules:
        build(root)
        rels = {
            os.path.relpath(os.path.join(dirpath, f), root)
            for top in under
            for dirpath, _dirs, files in os.walk(root / top)
            for f in files
        }
        # One rule per attribute name where the name alone is under ``under`` (the shim holds 64).
        names = {os.path.basename(r) for r in rels}
        outside = {os.path.basename(r) for r in fakesys.FakeTree(root).snapshot() if r not in rels}
        rules: Rules = [(f"/{n}", "w", errno.EROFS) for n in sorted(names - outside)]
        rules += [(r, "w", errno.EROFS) for r in sorted(rels) if os.path.basename(r) in outside]
        return rules[:64]

    return make


# Trees run with ``--board``: the nearest profile an operator picks, as the refusal line advises.
BOARD_FOR = {"agx-thor-jp7-as-agx-orin": "jetson-agx-orin"}
MAX0 = f"{CPUF}/policy0/scaling_max_freq"
# A governed zone reading exactly 0 or -40000 is in range: governed as cold (full clocks), said
# at start, dropped by the stuck-sensor check after `stuck_after_s` (docs/hardware.md, session 16).
COLD_BY_DESIGN = frozenset({"h-pi5-temp--40000", "h-pi5-temp-0"})
TREES: dict[str, Callable[[Path], Rules]] = {
    "pi5-6.6": stock(pi5),
    "pi5-6.12": stock(lambda r: pi5(r, "6.12")),
    "pi5-nofan-1000": stock(lambda r: pi5(r, fan=False, table=khz_grid(1000000, 100000, 2400000))),
    "pi4-32bit": stock(pi4_32bit),
    "pi3b": stock(pi3),
    "pi3bplus": stock(lambda r: pi3(r, plus=True)),
    "orin-nano-jp6": stock(orin_nano_jp6),
    "orin-nx-jp6": stock(orin_nx_jp6),
    "nofamily-pi2b": stock(
        renamed(pi3, "Raspberry Pi 2 Model B Rev 1.1", ("raspberrypi,2-model-b", "brcm,bcm2836"))
    ),
    "ambiguous-tegra234": stock(
        renamed(orin_nx_jp6, "Acme Orin carrier", ("acme,orin-box", "nvidia,tegra234"))
    ),
    "orin-gpu-gpc-0": stock(orin_gpu_gpc),
    "agx-orin-jp6": stock(agx_orin_jp6),
    "nano-jp4": stock(nano_jp4),
    "xavier-nx-jp5": stock(xavier_nx_jp5),
    "orin-nx16-jp6-stock": stock(orin_nx_jp6_stock),
    "orin-nx8-jp6-stock": stock(lambda r: orin_nx_jp6_stock(r, gb=8)),
    "orin-nano-jp5": stock(orin_nano_jp5),
    "xavier-nx-jp51": stock(xavier_nx_jp51),
    "nano-jp46": stock(nano_jp46),
    "nano-jp46-twin": stock(nano_jp46_twin),
    "nano-jp46-twin-jtop": stock(lambda r: nano_jp46_twin(r, jtop=True)),
    "pi4-6.6-gpiofan": stock(lambda r: pi4_66(r, gpio_fan=True)),
    "pi4-6.6-nocdev": stock(lambda r: pi4_66(r, gpio_fan=False)),
    "pi5-active-cooler": stock(pi5_active_cooler),
    "pi3bplus-32bit": stock(pi3bplus_32),
    "cm4-nofan": stock(cm4_nofan),
    "cm5-nofan": stock(cm5_nofan),
    "tx2-l4t28": stock(tx2_l4t),
    "tx2-l4t32": stock(lambda r: tx2_l4t(r, "32")),
    "orin-nano-super-jp62": stock(orin_nano_super),
    "agx-thor-jp7": stock(agx_thor_jp7),
    "agx-thor-jp7-as-agx-orin": stock(agx_thor_jp7),
    "pi500": stock(pi500),
    "pi-zero-2w": stock(pi_zero2w),
    "agx-xavier-jp5": stock(agx_xavier_jp5),
    "emu-agx-xavier-jp5": emu("jetson-agx-xavier"),
    "emu-xavier-nx-jp5": emu("jetson-xavier-nx"),
    "emu-rpi3": emu("rpi3"),
    "emu-rpi3-bcm2835-cpufreq": emu("rpi3", bcm2835_cpufreq),
    # Session 32r: the Pi 4's emulated tree (sim/emulator/trees/rpi4.toml), with and without its
    # firmware's `rpi_volt` chip, and its limit refusing writes as the Pi 3's does.
    "emu-rpi4": emu("rpi4"),
    "h-emu-rpi4-no-rpi-volt": emu("rpi4", no_hwmon_named("rpi_volt")),
    "h-emu-rpi4-max-w-EINVAL": emu("rpi4", rules((MAX0, "w", errno.EINVAL))),
    "emu-agx-xavier-l4t32-one-policy": emu("jetson-agx-xavier", one_policy),
    "emu-xavier-nx-l4t32-one-policy": emu("jetson-xavier-nx", one_policy),
    "h-emu-agx-xavier-one-monitor-gone": emu("jetson-agx-xavier", no_hwmon(1)),
    "h-emu-xavier-nx-no-monitor": emu("jetson-xavier-nx", no_hwmon(0)),
    "h-emu-rpi3-no-hwmon": emu("rpi3", no_hwmon(0)),
    "h-emu-agx-xavier-max-ro": emu("jetson-agx-xavier", chmod_ro(f"{CPUF}/policy2/scaling_max_freq")),
    "h-emu-rpi3-max-ro": emu("rpi3", chmod_ro(MAX0)),
    "h-emu-xavier-nx-max-w-EINVAL": emu("jetson-xavier-nx", rules((MAX0, "w", errno.EINVAL))),
    "h-emu-agx-xavier-gpu-w-EINVAL": emu(
        "jetson-agx-xavier", rules(("sys/class/devfreq/17000000.gv11b/max_freq", "w", errno.EINVAL))
    ),
    "h-emu-rpi3-max-w-EINVAL": emu("rpi3", rules((MAX0, "w", errno.EINVAL))),
    "h-emu-agx-xavier-gpu-temp-ENODATA": emu("jetson-agx-xavier", rules((EMU_ZONE1, "r", errno.ENODATA))),
    "h-emu-xavier-nx-temps-ENODATA": emu(
        "jetson-xavier-nx", rules((EMU_ZONE0, "r", errno.ENODATA), (EMU_ZONE1, "r", errno.ENODATA))
    ),
    "h-emu-rpi3-temp-ENODATA": emu("rpi3", rules((EMU_ZONE0, "r", errno.ENODATA))),
    "h-pi5-sysfs-ro": read_only_fs(pi5),
    "h-nano-super-cpufreq-ro": read_only_fs(
        orin_nano_super, (CPUF, "sys/devices/platform/bus@0/17000000.gpu/devfreq")
    ),
    "h-pi5-cpus-offline": cpus_offline,
    "h-nx-cluster-offline": cluster_offline,
    "h-pi5-no-list": no_list,
    "h-agx-no-list": agx_no_list,
    "h-pi5-max-EINVAL": read_fails(pi5, MAX0, errno.EINVAL),
    "h-pi5-max-EBUSY": read_fails(pi5, MAX0, errno.EBUSY),
    "h-pi5-max-empty": content(MAX0, ""),
    "h-pi5-max-nan": content(MAX0, "NaN\n"),
    "h-nx-p4max-EINVAL": read_fails(orin_nx_jp6, f"{CPUF}/policy4/scaling_max_freq", errno.EINVAL),
    "h-pi5-temp-ENODATA": read_fails(pi5, "thermal_zone0/temp", errno.ENODATA),
    "h-pi5-temp--40000": content(f"{ZONE0}/temp", -40000),
    "h-pi5-temp-0": content(f"{ZONE0}/temp", 0),
    "h-pi5-temp-255000": content(f"{ZONE0}/temp", 255000),
    "h-pi5-temp-nan": content(f"{ZONE0}/temp", "nan\n"),
    "h-pi5-max-ro": read_only_max,
    "h-link-out-max": linked_outside(MAX0),
    "h-link-out-min": linked_outside(f"{CPUF}/policy0/scaling_min_freq"),
    "h-link-out-temp": linked_outside(f"{ZONE0}/temp"),
    "h-link-out-list": linked_outside(f"{CPUF}/policy0/scaling_available_frequencies"),
    "h-link-out-cur": linked_outside(f"{CPUF}/policy0/scaling_cur_freq"),
    "h-pi5-dup-zone": duplicate_zone,
    "h-huge-list": content(
        f"{CPUF}/policy0/scaling_available_frequencies", "1500000 99999999999999999999 \n"
    ),
    "h-huge-max": content(MAX0, "99999999999999999999\n"),
    "h-huge-cpuinfo-max": content(f"{CPUF}/policy0/cpuinfo_max_freq", "18446744073709551615\n"),
    "h-huge-temp": content(f"{ZONE0}/temp", "123456789012345678901234567890\n"),
    "h-neg-list": content(f"{CPUF}/policy0/scaling_available_frequencies", "-1500000 1600000 \n"),
    "h-max-above-table": content(MAX0, "3000000\n"),
    "h-min-above-max": content(f"{CPUF}/policy0/scaling_min_freq", "2400000\n"),
}


# -- judging -------------------------------------------------------------------------------------
def _said(p: subprocess.CompletedProcess[str] | tuple[int | None, str], keep: int) -> tuple[object, ...]:
    rc, err = (p.returncode, p.stderr) if isinstance(p, subprocess.CompletedProcess) else p
    lines = [ln for ln in err.strip().splitlines() if "dry-run: at exit" not in ln]
    return rc, "TRACEBACK" if "Traceback" in err else "", lines[-keep:]


def judge(name: str, make: Callable[[Path], Rules], shim: Path, mid_s: float, unprofiled: str) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=f"stocktree-{name}-"))
    try:
        root = tmp / "root"
        faultshim.write_rules(tmp / "faults", make(root))
        env = faultshim.env(shim, tmp / "faults", root)
        cfg = tmp / "hysteresis.toml"
        cfg.write_text('[run]\npolicy = "hysteresis"\n')
        before = snapshot(root)
        doc = procutil.run_cli("doctor", "--sysfs-root", str(root), env=env)
        args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg)]
        args += ["--state-file", str(tmp / "state.json"), "--lock-dir", str(tmp)]
        if unprofiled and "nx" in name:
            args += ["--board", unprofiled]
        if name in BOARD_FOR:
            args += ["--board", BOARD_FOR[name]]
        dry = procutil.run_cli("run", "--dry-run", "--duration", "1s", *args, env=env)
        dry_wrote = changed(before, snapshot(root))
        proc = subprocess.Popen(
            [*procutil.script(), "run", "--duration", "4s", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        try:
            procutil.wait_line(proc, "thermogov: started")
            time.sleep(mid_s)
        except AssertionError:
            pass  # refused (or died): judged below by its exit status and stderr
        mid = snapshot(root)
        owned = journal_owned(tmp, root)
        _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
        mid_changed = changed(before, mid)
        rows = {
            "doctor": _said(doc, 1),
            "dry": _said(dry, 2),
            "dry-wrote": dry_wrote,
            "run": _said((proc.returncode, err.decode()), 3),
            "owned": sorted(owned),
            "mid-changed": mid_changed,
            "outside-owned": [k for k in mid_changed if k not in owned],
            "not-restored": changed(before, snapshot(root)),
            "journal-left": (tmp / "state/journal.json").exists(),
            "lowered": [k for k in mid_changed if k.endswith("max_freq")],
        }
        print(f"=== {name}")
        for k, v in rows.items():
            print(f"  {k}: {v!r}")
        sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    isolated_runtime_dir()  # never the real /run/thermogov (tests/runtimedir.py)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=[], help="Trees whose name contains one of these.")
    ap.add_argument("--mid-s", type=float, default=0.8, help="Seconds after `started` to look mid-run.")
    ap.add_argument("--board-unprofiled", default="", help="--board for the Orin NX trees (no profile).")
    ap.add_argument(
        "--lifecycle",
        action="store_true",
        help="Run the whole lifecycle (normal, SIGTERM, SIGHUP, kill -9 + restore) on each tree instead.",
    )
    ap.add_argument(
        "--fan-governor",
        action="store_true",
        help='With --lifecycle: fan = "governor" in [run] (a tree without a governable fan is refused up front).',
    )
    args = ap.parse_args()
    run_lines = 'fan = "governor"\n' if args.fan_governor else ""
    shim = faultshim.build()
    if shim is None:
        print("no C compiler: tests/hw/faultshim.c cannot be built", file=sys.stderr)
        return 2
    findings: list[str] = []
    for name, make in TREES.items():
        if not args.only or any(o in name for o in args.only):
            if not args.lifecycle:
                judge(name, make, shim, args.mid_s, args.board_unprofiled)
                continue
            extra = ["--board", args.board_unprofiled] if args.board_unprofiled and "nx" in name else []
            extra = ["--board", BOARD_FOR[name]] if name in BOARD_FOR else extra
            got = lifecycle(
                name,
                make,
                shim,
                args.mid_s,
                extra,
                expect_capped=name not in COLD_BY_DESIGN,
                run_lines=run_lines,
            )
            print(f"=== {name}: {len(got)} line(s)")
            for g in got:
                print(f"  {g}")
            sys.stdout.flush()
            findings += [g for g in got if " refused-up-front: " not in g]
    if args.lifecycle:
        print(f"findings: {len(findings)}")
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
