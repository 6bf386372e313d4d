"""Generated board trees in the shapes kernels and vendors produce, against the daemon's promises.

``bench/safety_campaign.py`` attacks three known trees; this one asks what an unseen board does
to ``thermogov run``.  Each trial builds one of the six profile trees (tests/hw/fakesys.py),
hot, and applies a random set of *shapes*, each a variant the kernel ABI documents or a vendor
kernel ships (sources in the shape's docstring):

* cpufreq: big.LITTLE clusters with different OPP tables (overlapping or disjoint), a profile
  policy split in two, a CPU offline (``affected_cpus`` short of ``related_cpus``), no
  ``scaling_available_frequencies`` (``cpuinfo_min/max`` only), OPP lists unsorted or
  duplicated;
* devfreq: the GPU under the names Jetson kernels used (``57000000.gpu``, ``17000000.gv11b``,
  ``17000000.ga10b``, ``17000000.gpu``, ``gpu.0``, ``13e10000.host1x:gpu``), its governor
  ``userspace``;
* thermal: a twin of a governed zone's type ahead of it, reading an "off" value (-40000,
  100000, -256000) or with ``mode`` disabled; unusual types; trips in descending order or
  without ``hyst``; cooling devices (``cpufreq-cpuN``, ``pwm-fan`` with its hwmon, ``processor``)
  in odd orders;
* hwmon chips with and without ``temp*_label``; a mains-only ``power_supply``; a board-owned
  pwm-fan, or a governed one with a lever-driven ``thermal-idle`` device;
* attributes: a governed limit read-only (mode 0444, which sysfs refuses to root as well), one
  whose writes fail (EINVAL, EBUSY, EPERM: ``tests/hw/faultshim.c``; also the fan's and the
  idle device's), a kernel that rounds a write down to an OPP, another agent (nvpmodel,
  thermald) rewriting a limit mid-run.

Each tree runs ``doctor`` once and ``run`` once per exit path: the duration ending, SIGTERM,
SIGINT, SIGHUP (a reload) then SIGTERM, a runtime failure (a device the daemon owns going away
mid-run, a cluster before a GPU: its limits EBUSY, as ``store()``/``show()`` answer for an
inactive policy, drivers/cpufreq/cpufreq.c since commit 11e584cfb8a9; after the failure the
device comes back and ``thermogov restore`` finishes), and ``kill -9`` then the next start's
journal restore.  Three more (session 13): ``hotplug``, a governed cluster going offline
(EBUSY) and coming back with the kernel's fresh limits, whose cap must be in force again
within the daemon's next check; ``signals``, one seeded schedule of SIGHUP then SIGTERM while
the reload applies, SIGTERM/SIGINT at a random instant of start-up (before or after the
journal), a second stop while the first restores, or a SIGHUP storm; ``journal``, ``kill -9``
then the journal zero-length, truncated, of format 1 or 4 (a newer thermogov's), or its folder
read-only (a private bind mount: root only).  One more (session 15): ``modechange``, on Jetson
trees only, an operator's ``nvpmodel -m 2`` mid-run (nvpmodel's status file, a lower max in
every governed window) then SIGTERM, SIGINT, SIGHUP+SIGTERM, a failure, ``kill -9`` (before or
after the daemon's next check) or ``kill -9`` with the mode set while the daemon is dead: after
the exit (and the next start's journal restore) each window holds the mode's max, neither
above it (``mode-undone``) nor below it (``mode-cap-left``: thermogov's cap left in force).  Another shape, ``other_agent``, has an agent raise a governed max
again and again (jetson_clocks, thermald), lower it (nvpmodel), shrink its OPP list, or change
the governor string, checked against the rule in docs/hardware.md ("Other agents").  Two more (session 16): ``inactive_cluster``,
a governed cluster offline at start (every attribute EBUSY: the others must be governed, it
never owned), and ``unknown_model``, a device-tree model no profile names and a SoC family none
claims (must be refused).  One more (session 18): ``online``, a governed cluster that is not
cpu0's (or, on a Jetson tree, every cluster of the cpu domain) offline at start comes online
mid-run, goes offline again and comes back with the kernel's fresh limits: journaled before its
first write, capped within the daemon's next looks, then SIGTERM or ``kill -9`` and the next
start, the tree back byte for byte (``hw/lateclusters.py``).  One more (session 19): ``appear``,
the GPU's ``/sys/class/devfreq`` link or a governed policy folder that is not cpu0's absent at
start (its driver not probed or loaded yet) appears mid-run, at once or after flickering in and
out within a second: journaled before its first write, capped within the daemon's next looks,
then SIGTERM or ``kill -9`` and the next start, the tree back byte for byte
(``hw/latedevfreq.py``, ``hw/lateclusters.py``).  One more (session 20): ``reprobe``, the same
kind of entry present at start, removed mid-run once capped and made again with new files (new
inodes) holding the start's contents (the driver's defaults: an nvgpu unbind/bind, a cpufreq
driver reload), after a look saw it gone or within one look (``-flicker``): held, then journaled
before its first write and capped again within the daemon's next looks, then SIGTERM or
``kill -9`` and the next start, the tree back byte for byte (``hw/departures.py``).  Session 23:
late families ``boost_switched`` (the global ``cpufreq/boost`` switched mid-run) and
``policy_boost`` (``policyN/boost``, Linux 6.11+), and one-policy boards on the paths above:
``online`` offlines a CPU under a Pi's one policy (``cpu``), ``appear``/``reprobe`` take the one
policy when nothing else is there (a whole cpu domain absent at start is left alone by design).
Every run goes through the installed console script.  Checked after each: the whole tree
(bytes, modes, links) is as before; mid-run nothing outside the journaled (owned) attributes
changed, the journal owns only limits of governed devices and no read-only one, and some
governed max is lower than at start (every die zone reads 92 °C); no traceback; the exit status
and the one-line error as promised (0 for a stop, 1 naming ``thermogov restore`` for the
failure, 2 with one line and nothing written for a tree refused up front).

    python bench/board_shapes.py [--rounds 1] [--seed 1] [--trees 12] [--paths all]

Seeded: a failing trial names its seed and tree index, and ``--only-tree N`` replays it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.hw import fakesys, faultshim, procutil  # noqa: E402
from tests.runtimedir import isolated_runtime_dir  # noqa: E402

HOT_MC = 92000
LIMITS = ("scaling_min_freq", "scaling_max_freq", "min_freq", "max_freq")
CPUFREQ = "sys/devices/system/cpu/cpufreq"
EXIT_PATHS = (
    "normal",
    "sigterm",
    "sigint",
    "sighup",
    "failure",
    "kill9",
    "hotplug",
    "signals",
    "journal",
    "modechange",
    "online",
    "appear",
    "reprobe",
)
# The signal schedules of the "signals" path, one drawn per tree from the seed (see Runner._signals).
SIGNAL_SCHEDULES = ("hup-then-term", "term-at-start-up", "second-stop", "hup-storm")
# What the "journal" path does to the journal a kill -9 left (see Runner._damaged_journal).
JOURNAL_DAMAGE = ("zero-length", "truncated", "format-1", "format-4", "read-only-state-dir")
# The "modechange" path (Jetson trees): an operator's `nvpmodel -m` mid-run, then one of these
# exits; "kill9-then-mode" sets the mode while the daemon is dead (see Runner._set_mode).
MODE_EXITS = ("sigterm", "sigint", "sighup", "failure", "kill9", "kill9-then-mode")
MODE_STATUS = "var/lib/nvpmodel/status"  # nvpmodel's record (hw/powermode.py)
MODE_CONF = "etc/nvpmodel.conf"  # the modes' own definition (hw/nvpmodelconf.py)
# The "online" path (session 18): what is offline at start and comes online mid-run, and the exit.
ONLINE_VARIANTS = ("cluster", "domain")
ONLINE_EXITS = ("sigterm", "kill9")
# The "appear" path (session 19): what the tree lacks at start and gets mid-run (a GPU whose driver
# probes late; a policy folder a late cpufreq driver makes; either flickering in and out first).
APPEAR_VARIANTS = ("gpu", "policy", "gpu-flicker", "policy-flicker")
APPEAR_OTHER = {
    "gpu": "policy",
    "policy": "gpu",
    "gpu-flicker": "policy-flicker",
    "policy-flicker": "gpu-flicker",
}
# The "reprobe" path (session 20): the entry present at start that the kernel removes and makes again.
REPROBE_VARIANTS = ("gpu", "policy", "gpu-flicker", "policy-flicker")
# How long a cluster back online may run uncapped: the daemon looks once a second (hw/lateclusters.py);
# the rest is room for a loaded machine.
ONLINE_WAIT_S = 5.0


@dataclass
class Trial:
    """One generated tree: what was done to it and what the daemon must do with it."""

    board: str
    shapes: list[str] = field(default_factory=list)
    refuse_reason: str = ""  # set when the tree must be refused up front (exit 2)
    fault_rules: list[tuple[str, str, int]] = field(default_factory=list)
    agents: list[Callable[[FakeRun], None]] = field(default_factory=list)
    governed_policies: set[str] = field(default_factory=set)  # what the journal may own
    read_only: set[str] = field(default_factory=set)  # limits the journal must never own
    inactive: set[str] = field(default_factory=set)  # limits of an offline cluster: never owned either
    config: str = ""  # TOML lines added to the run's config (a governed fan, the lever)
    # What each other agent of the trial rewrites (its own change where the daemon owns none):
    # a set, since one tree may get two agents (a rival and an nvpmodel), each excused its own.
    rivals: set[str] = field(default_factory=set)
    late: dict[str, list[str]] = field(default_factory=dict)  # late family -> the shapes it added
    # The rival files the boost agent alone writes (session 24): a policy whose only rival is it
    # may still have a CPU taken offline under it (``online``, the ``cpu`` variant).
    boost_only: set[str] = field(default_factory=set)


@dataclass
class FakeRun:
    """The tree and the stop flag a background agent works with."""

    t: fakesys.FakeTree
    stop: threading.Event
    rng: random.Random
    # What other agents wrote to limits: rel -> (their last value, the value they found there).
    wrote: dict[str, tuple[int, int]] = field(default_factory=dict)
    # Set (under ``lock``) just before the trial sends the daemon its exit signal or kill.  An
    # agent's one action drawn for a random instant is skipped once it is set: landing after the
    # daemon restored (or died), it tested nothing of the daemon's and read as a limit the daemon
    # left changed (seed 7 trees 2 and 14, session 19).  Agents that act again and again (a
    # jetson_clocks storm, the rounding kernel) keep acting through the stop, as before.
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def once(self, action: Callable[[], None]) -> None:
        """An agent's one action, unless the trial already began to stop the daemon."""
        with self.lock:
            if not self.stopping.is_set():
                action()

    def begin_stop(self) -> None:
        with self.lock:
            self.stopping.set()


# -- tree helpers ------------------------------------------------------------------------------
def policies(t: fakesys.FakeTree) -> list[str]:
    """The ``policyN`` folders only: ``cpufreq/`` also holds ``boost`` and a governor's tunables
    folder on some boards (see :func:`cpufreq_globals`)."""
    d = t.root / CPUFREQ
    names = [p.name for p in d.iterdir() if re.fullmatch(r"policy\d+", p.name)] if d.exists() else []
    return sorted(names, key=lambda n: int(n[6:]))


def table_of(t: fakesys.FakeTree, pol: str) -> list[int]:
    """The OPPs a limit may take: the listed ones, and the boost ones while boost is on (the
    kernel's table holds both; ``scaling_available_frequencies`` shows the non-boost ones only,
    drivers/cpufreq/freq_table.c)."""
    p = t.root / CPUFREQ / pol / "scaling_available_frequencies"
    if p.exists():
        table = {int(x) for x in p.read_text().split()}
        boost = t.root / CPUFREQ / pol / "scaling_boost_frequencies"
        if boost.exists() and _boost_on(t, pol):
            table |= {int(x) for x in boost.read_text().split()}
        return sorted(table)
    return [t.read_int(f"{CPUFREQ}/{pol}/cpuinfo_min_freq"), t.read_int(f"{CPUFREQ}/{pol}/cpuinfo_max_freq")]


def _boost_on(t: fakesys.FakeTree, pol: str) -> bool:
    """The boost switch that rules ``pol``: its own ``policyN/boost`` where the kernel has one (Linux
    6.11+, the ``policy_boost`` shape), else the global ``cpufreq/boost`` (the order
    ``_policy_boost_state`` reads them in).  Reading only the global file raised in the agent threads
    of every tree without it (seed 3232)."""
    for rel in (f"{CPUFREQ}/{pol}/boost", f"{CPUFREQ}/boost"):
        if (t.root / rel).exists():
            return (t.root / rel).read_text().strip() == "1"
    return False


def set_table(t: fakesys.FakeTree, pol: str, table: list[int], listed: str | None = None) -> None:
    rel = f"{CPUFREQ}/{pol}"
    t.write(f"{rel}/scaling_available_frequencies", (listed or " ".join(map(str, table))) + " \n")
    t.write(f"{rel}/cpuinfo_min_freq", min(table))
    t.write(f"{rel}/cpuinfo_max_freq", max(table))
    t.write(f"{rel}/scaling_min_freq", min(table))
    t.write(f"{rel}/scaling_max_freq", max(table))
    t.write(f"{rel}/scaling_cur_freq", max(table))


def gpu_entry(t: fakesys.FakeTree) -> str | None:
    d = t.root / "sys/class/devfreq"
    if not d.exists():
        return None
    for e in sorted(d.iterdir()):
        node = e / "device/of_node/name"
        name = node.read_bytes().rstrip(b"\0").decode() if node.exists() else ""
        if "gpu" in e.name or name in {"ga10b", "gv11b", "gp10b", "gm20b", "gpu"}:
            return e.name
    return None


def profile_policies(board: str) -> set[str]:
    from thermogov.board import load_board

    b = load_board(board)
    return {n for d in b.domains if d.kind == "cpufreq" for n in d.sysfs_names}


def snapshot(root: Path) -> dict[str, tuple[object, int]]:
    """Every entry's content (bytes, link target or "dir") and mode bits."""
    out: dict[str, tuple[object, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            st = p.lstat()
            rel = str(p.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("-> " + os.readlink(p), 0)
            elif stat.S_ISREG(st.st_mode):
                out[rel] = (p.read_bytes(), stat.S_IMODE(st.st_mode))
            else:
                out[rel] = ("dir", stat.S_IMODE(st.st_mode))
    return out


def changed(a: dict[str, tuple[object, int]], b: dict[str, tuple[object, int]]) -> list[str]:
    return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))


def shown(keys: list[str], a: dict[str, tuple[object, int]], b: dict[str, tuple[object, int]]) -> str:
    """``keys`` with their contents before and after (``rel: was -> now``), for a finding."""

    def text(e: tuple[object, int] | None) -> str:
        v = e[0] if e else "absent"
        return v.decode(errors="replace").strip() if isinstance(v, bytes) else str(v)

    return ", ".join(f"{k}: {text(a.get(k))} -> {text(b.get(k))}" for k in keys)


# -- shapes ------------------------------------------------------------------------------------
def big_little(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """Clusters with their own OPP tables (an A55 + A76 SoC; ``policy0`` + ``policy4`` in
    Documentation/admin-guide/pm/cpufreq.rst's layout).  Overlapping: the profile's domain may
    use the common OPPs.  Disjoint: no cap is valid on both, the domain cannot be governed."""
    pols = [p for p in policies(t) if p in tr.governed_policies]
    if len(pols) < 2:
        # one listed policy split in two: the second one is not the profile's and is never written
        p = pols[0] if pols else policies(t)[0]
        cpus = [int(c) for c in t.read(f"{CPUFREQ}/{p}/related_cpus").split()]
        half = len(cpus) // 2
        table = table_of(t, p)
        t.write(f"{CPUFREQ}/{p}/related_cpus", " ".join(map(str, cpus[:half])) + "\n")
        t.write(f"{CPUFREQ}/{p}/affected_cpus", " ".join(map(str, cpus[:half])) + "\n")
        for c in cpus[half:]:
            (t.root / f"sys/devices/system/cpu/cpu{c}/cpufreq").unlink()
        t.policy(cpus[half], cpus[half:], [f + 100000 for f in table])
        tr.shapes.append(f"split-{p}")
        return
    last = pols[-1]
    table = table_of(t, last)
    if rng.random() < 0.6:
        new = sorted(set(table[::2]) | {f + 38400 for f in table[1::3]})
        tr.shapes.append(f"big-little-overlap-{last}")
    else:
        new = [f + 9600 for f in table]
        tr.shapes.append(f"big-little-disjoint-{last}")
    set_table(t, last, new)


def cpu_offline(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """One CPU of a cluster offline: ``affected_cpus`` lists the online CPUs only,
    ``related_cpus`` all of them (include/linux/cpufreq.h, ``cpus`` vs ``related_cpus``)."""
    p = rng.choice(policies(t))
    cpus = t.read(f"{CPUFREQ}/{p}/related_cpus").split()
    if len(cpus) < 2:
        return
    t.write(f"{CPUFREQ}/{p}/affected_cpus", " ".join(cpus[:-1]) + "\n")
    tr.shapes.append(f"cpu{cpus[-1]}-offline")


def no_available_list(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """Drivers without a frequency table (intel_pstate, CPPC) have no
    ``scaling_available_frequencies``; only ``cpuinfo_min_freq``/``cpuinfo_max_freq``."""
    for p in policies(t):
        (t.root / CPUFREQ / p / "scaling_available_frequencies").unlink(missing_ok=True)
    tr.shapes.append("no-available-frequencies")


def messy_tables(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """OPP lists in no order and with duplicates (a vendor driver listing per-speedo bins).  A
    policy without a list keeps none: writing one from its two ``cpuinfo`` ends made a two-OPP
    table no profile cap falls in (seed 8 tree 12, session 19: a harness finding).  The draws
    are made all the same, so every other shape of a seed stays as it was."""
    for p in policies(t):
        table = table_of(t, p)
        listed = table + rng.sample(table, k=min(3, len(table)))
        rng.shuffle(listed)
        if (t.root / CPUFREQ / p / "scaling_available_frequencies").exists():
            set_table(t, p, table, " ".join(map(str, listed)))
    g = gpu_entry(t)
    if g:
        f = t.root / "sys/class/devfreq" / g / "available_frequencies"
        hz = f.read_text().split()
        listed_hz = hz + hz[:2]
        rng.shuffle(listed_hz)
        f.write_text(" ".join(listed_hz) + "\n")
    tr.shapes.append("unsorted-duplicate-opps")


def _profile_names_gpu(t: fakesys.FakeTree, board: str, g: str) -> bool:
    """Whether the board's profile names the GPU entry ``g`` (its name, the part after the unit
    address, or its device-tree node), so the daemon governs it: ``gpu_renamed`` may give a board
    another kernel's name (Xavier's ``gv11b`` on an Orin, whose profile names ``ga10b``/``gpu``),
    a device the daemon rightly leaves alone, never capped by the appear and reprobe paths."""
    from thermogov.board import load_board

    node = t.root / "sys/class/devfreq" / g / "device/of_node/name"
    names = {g, g.rsplit(".", 1)[-1], node.read_text().strip("\0\n ") if node.is_file() else ""}
    wanted = {n.lower() for d in load_board(board).domains if d.kind == "devfreq" for n in d.sysfs_names}
    return bool({n.lower() for n in names if n} & wanted)


GPU_NAMES = (
    ("sys/devices/57000000.gpu", "57000000.gpu", "gpu"),  # L4T 32 (Nano, TX1)
    ("sys/devices/17000000.gv11b", "17000000.gv11b", "gv11b"),  # L4T 32 Xavier
    ("sys/devices/17000000.ga10b", "17000000.ga10b", "ga10b"),  # L4T 35 Orin
    ("sys/devices/platform/bus@0/17000000.gpu", "17000000.gpu", "gpu"),  # L4T 36 Orin
    ("sys/devices/platform/gpu.0", "gpu.0", "gpu"),  # nvgpu's platform device name
    ("sys/devices/platform/13e10000.host1x/13e10000.host1x:gpu", "13e10000.host1x:gpu", "gpu"),
)


def gpu_renamed(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """The GPU's devfreq under another kernel's name (see GPU_NAMES), ``available_frequencies``
    in Hz (Documentation/ABI/testing/sysfs-class-devfreq)."""
    g = gpu_entry(t)
    if g is None:
        return
    cls = t.root / "sys/class/devfreq" / g
    real = cls.resolve()
    table = [int(x) for x in (real / "available_frequencies").read_text().split()]
    governor = (real / "governor").read_text().strip()
    dev_rel, name, node = rng.choice(GPU_NAMES)
    cls.unlink()
    device = real.parent.parent  # <device>/devfreq/<name>: the device folder goes with it
    shutil.rmtree(device if device.name == g else real)
    t.devfreq(dev_rel, name, node, table, governor=governor)
    tr.shapes.append(f"gpu-{name}")


def gpu_userspace(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A devfreq device left on the ``userspace`` governor (its ``userspace/set_freq``)."""
    g = gpu_entry(t)
    if g is None:
        return
    d = t.root / "sys/class/devfreq" / g
    (d / "governor").write_text("userspace\n")
    t.write(f"sys/class/devfreq/{g}/userspace/set_freq", (d / "max_freq").read_text())
    tr.shapes.append("gpu-userspace")


def zone_twin(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A second zone with a governed zone's type, numbered before it, whose sensor is off:
    it reads a fixed -40000 (the sensor's floor), 100000 (a PMIC die reporting its alarm
    level, as the Jetson Nano's ``PMIC-Die``), -256000 (Tegra's offline marker), or its zone
    is ``mode`` disabled.  Duplicate types are legal: only ``thermal_zoneN`` is unique."""
    base = t.root / "sys/devices/virtual/thermal"
    zones = sorted((p for p in base.glob("thermal_zone*")), key=lambda p: int(p.name[12:]))
    cpu = next((z for z in zones if z.joinpath("type").read_text().strip().lower().startswith("cpu")), None)
    if cpu is None:
        return
    ztype = cpu.joinpath("type").read_text().strip()
    how = rng.choice(["-40000", "100000", "-256000", "disabled"])
    fakesys.zone_ahead(t, ztype, 45000 if how == "disabled" else int(how), disabled=how == "disabled")
    tr.shapes.append(f"zone-twin-{ztype}-{how}")


def odd_zones(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """Zones of unusual types after the known ones (ACPI ``acpitz``, ``x86_pkg_temp``, an
    ``iwlwifi_1`` that reads -ENODATA while the radio is down, a type with a blank)."""
    base = t.root / "sys/class/thermal"
    n = len(list(base.glob("thermal_zone*")))
    for k, (ztype, temp) in enumerate(
        rng.sample(
            [("acpitz", 27800), ("x86_pkg_temp", 51000), ("iwlwifi_1", None), ("soc thermal", 48000)], 2
        )
    ):
        t.zone(n + k, ztype, temp)
    tr.shapes.append("odd-zone-types")


def odd_trips(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """Trips listed hottest first and without ``trip_point_N_hyst`` (both legal: the ABI
    numbers trips in DT order and hyst is optional, Documentation/ABI/testing/sysfs-class-thermal),
    and cooling devices registered in another order (``cpufreq-cpuN``, ``processor``)."""
    for z in (t.root / "sys/devices/virtual/thermal").glob("thermal_zone*"):
        trips = sorted(z.glob("trip_point_*_temp"))
        if len(trips) >= 2:
            temps = [p.read_text() for p in trips]
            types = [(z / p.name.replace("_temp", "_type")).read_text() for p in trips]
            for i, (tt, ty) in enumerate(zip(reversed(temps), reversed(types), strict=True)):
                (z / f"trip_point_{i}_temp").write_text(tt)
                (z / f"trip_point_{i}_type").write_text(ty)
                (z / f"trip_point_{i}_hyst").unlink(missing_ok=True)
    kinds = ["cpufreq-cpu4", "processor", "cpufreq-cpu0", "thermal-cpufreq-0"]
    rng.shuffle(kinds)
    for i, kind in enumerate(kinds, start=5):
        real = f"sys/devices/virtual/thermal/cooling_device{i}"
        t.write(f"{real}/type", kind + "\n")
        t.write(f"{real}/max_state", 9)
        t.write(f"{real}/cur_state", 0)
        t.link(f"sys/class/thermal/cooling_device{i}", real)
    tr.shapes.append("odd-trips-cdevs")


def board_fan(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A pwm-fan (cooling device and hwmon) left to the board (fan = "board"): never written."""
    fakesys.pwm_fan(
        t, board="rpi5" if "Raspberry" in t.read("sys/firmware/devicetree/base/model") else "orin"
    )
    tr.shapes.append("board-fan")


def hwmon_labels(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """hwmon chips with and without ``temp1_label`` (Documentation/hwmon/sysfs-interface.rst:
    labels are optional) and an INA3221 channel with no ``inN_label``."""
    t.write("sys/devices/platform/nvme0/hwmon/hwmon7/name", "nvme\n")
    t.write("sys/devices/platform/nvme0/hwmon/hwmon7/temp1_input", 38850)
    t.write("sys/devices/platform/nvme0/hwmon/hwmon7/temp1_label", "Composite\n")
    t.link("sys/class/hwmon/hwmon7", "sys/devices/platform/nvme0/hwmon/hwmon7")
    t.write("sys/devices/virtual/hwmon/hwmon8/name", "cpu_thermal\n")
    t.write("sys/devices/virtual/hwmon/hwmon8/temp1_input", 47000)
    t.link("sys/class/hwmon/hwmon8", "sys/devices/virtual/hwmon/hwmon8")
    t.write("sys/devices/i2c/9-0040/hwmon/hwmon9/name", "ina3221\n")
    t.write("sys/devices/i2c/9-0040/hwmon/hwmon9/in1_input", 5000)
    t.write("sys/devices/i2c/9-0040/hwmon/hwmon9/curr1_input", 100)
    t.link("sys/class/hwmon/hwmon9", "sys/devices/i2c/9-0040/hwmon/hwmon9")
    tr.shapes.append("hwmon-labels")


def mains_only(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A power_supply class with a mains/USB input and no battery (a devkit's barrel jack)."""
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=1", kind="Mains")
    t.supply("usb", "POWER_SUPPLY_NAME=usb\nPOWER_SUPPLY_ONLINE=0", kind="USB")
    tr.shapes.append("mains-only")


def governed_limit(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> str:
    cands = [f"{CPUFREQ}/{p}/scaling_max_freq" for p in policies(t) if p in tr.governed_policies]
    g = gpu_entry(t)
    if g:
        cands.append(str((t.root / "sys/class/devfreq" / g / "max_freq").resolve().relative_to(t.root)))
    return rng.choice(cands)


def read_only_limit(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A limit attribute with mode 0444: sysfs refuses its write with EACCES even to root
    (kernfs checks the mode bits; a plain file would let root write it)."""
    rel = governed_limit(t, rng, tr)
    (t.root / rel).chmod(0o444)
    tr.fault_rules.append((rel, "w", 13))  # what sysfs answers (the fake file would accept it)
    tr.read_only.add(rel)
    tr.shapes.append(f"read-only-{Path(rel).parent.name}/{Path(rel).name}")


def refusing_limit(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A limit whose every write fails: EINVAL (a driver that rejects the value), EBUSY, EPERM."""
    rel = governed_limit(t, rng, tr)
    code = rng.choice([22, 16, 1])
    tr.fault_rules.append((rel, "w", code))
    tr.shapes.append(f"refuses-{code}-{Path(rel).parent.name}/{Path(rel).name}")


def unwritable_by_design(err: str, tr: Trial) -> bool:
    """Whether the run ended on the daemon's rule for a domain whose latest cap write failed
    (session 30, hw/unwritten.py: exit 1 after the restore, one line naming the file) and that file
    is one this trial's fault rules refuse to write: the right answer, not a finding.  Before,
    every ``refusing_limit`` tree that made the run write its refusing limit last was counted an
    ``exit-status`` finding (seed 32 tree 4: a GPU ``max_freq`` answering EPERM)."""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    if not lines or "its latest cap write failed" not in lines[-1]:
        return False
    refused = {"/".join(Path(r).parts[-2:]) for r, ops, _code in tr.fault_rules if "w" in ops}
    return any(f"/{tail}:" in lines[-1] for tail in refused)


def rounding_kernel(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A kernel that rounds a written limit down to the nearest OPP (devfreq's
    ``devfreq_get_freq_range``) and never lets max go under min (5.4+ QoS clamping).  A policy
    without ``scaling_available_frequencies`` has no table to round to: its limits are QoS
    requests kept as written inside ``cpuinfo_min/max`` (drivers/cpufreq/cpufreq.c); rounding
    them to those two ends made a cap read as a lower limit, which a power-mode change then
    made the mode's (seed 4 tree 12, session 19: a harness finding, not the daemon's)."""

    def agent(run: FakeRun) -> None:
        while not run.stop.wait(0.003):
            for p in policies(run.t):
                listed = (run.t.root / CPUFREQ / p / "scaling_available_frequencies").exists()
                _round_in_place(
                    run.t.root / CPUFREQ / p,
                    "scaling_min_freq",
                    "scaling_max_freq",
                    table_of(run.t, p),
                    clamp_only=not listed,
                )

    tr.agents.append(agent)
    tr.shapes.append("rounding-kernel")


def _round_in_place(d: Path, lo_name: str, hi_name: str, table: list[int], clamp_only: bool = False) -> None:
    """What the kernel makes of a written window: ``table`` its OPPs (or, ``clamp_only``, its
    two ends).  A kernel applies this within the write; here it comes a moment later, so a value
    is rewritten only while the file still holds what was read (else a restore written in
    between would be overwritten with a rounding of the value before it)."""
    try:
        hi = int((d / hi_name).read_text())
        lo = int((d / lo_name).read_text())
    except (OSError, ValueError):
        return
    if clamp_only:
        hi2 = min(max(hi, table[0]), table[-1])
        lo2 = min(max(lo, table[0]), hi2)
    else:
        hi2 = max([f for f in table if f <= hi] or [table[0]])
        lo2 = min(max([f for f in table if f <= lo] or [table[0]]), hi2)
    for name, old, new in ((hi_name, hi, hi2), (lo_name, lo, lo2)):
        if old != new:
            with contextlib.suppress(OSError, ValueError):
                if int((d / name).read_text()) == old:
                    _rewrite(d / name, new)


def nvpmodel_conf(mode2: dict[str, int]) -> str:
    """The ``/etc/nvpmodel.conf`` of the bench's ``nvpmodel -m 2``, in NVIDIA's format (a CLOCK
    PARAM per window, mode 0 with no cap, mode 2 with exactly the max values the fake nvpmodel
    wrote; docs/hardware.md, session 17).  Written when the mode is set (the daemon reads it only
    at a restore), so the other draws stay as they were; a window the mode skipped (another
    agent's, a read-only one) is absent from mode 2, as from a file that does not set it."""
    names = {rel: f"CLK_{i}" for i, rel in enumerate(sorted(mode2))}
    params = "".join(f"< PARAM TYPE=CLOCK NAME={n} >\nMAX_FREQ /{rel}\n\n" for rel, n in names.items())
    mode0 = "".join(f"{n} MAX_FREQ -1\n" for n in names.values())
    mode2_lines = "".join(f"{names[rel]} MAX_FREQ {v}\n" for rel, v in sorted(mode2.items()))
    return (
        "# generated by bench/board_shapes.py\n< PARAM TYPE=FILE NAME=EMC >\n"
        f"MAX_FREQ /sys/kernel/nvpmodel_emc_cap/emc_iso_cap\n\n{params}"
        f"< POWER_MODEL ID=0 NAME=MAXN >\n{mode0}EMC MAX_FREQ 0\n\n"
        f"< POWER_MODEL ID=2 NAME=BENCH >\n{mode2_lines}\n< PM_CONFIG DEFAULT=0 >\n"
    )


def _rewrite(p: Path, value: int) -> None:
    """In place, one write (a sysfs reader never sees a half-written value)."""
    data = f"{value}\n".encode().ljust(len(p.read_bytes()))  # same length: no truncation window
    fd = os.open(p, os.O_WRONLY)
    try:
        os.pwrite(fd, data, 0)
    finally:
        os.close(fd)


def rival_agent(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """Another agent (nvpmodel, jetson_clocks, thermald) writing a governed limit mid-run, once
    (never one the tree refuses to write: that agent is the kernel's user too)."""
    faulty = {r for r, _ops, _code in tr.fault_rules}
    rel = governed_limit(t, rng, tr)
    if rel in faulty:
        return
    tr.rivals.add(rel)

    def agent(run: FakeRun) -> None:
        if run.stop.wait(run.rng.uniform(0.3, 1.2)):
            return
        p = run.t.root / rel
        table = (
            sorted(int(x) for x in (p.parent / _table_name(p.name)).read_text().split())
            if (p.parent / _table_name(p.name)).exists()
            else [int(p.read_text())]
        )
        run.once(lambda: _agent_writes(run, rel, table[len(table) // 2]))

    tr.agents.append(agent)
    tr.shapes.append(f"rival-{Path(rel).parent.name}")


def _agent_writes(run: FakeRun, rel: str, value: int) -> None:
    """Write as another agent and remember its value and the first value it found there."""
    p = run.t.root / rel
    try:
        found = int(p.read_text())
    except ValueError:  # caught mid-write by a harness step that rewrites the file: skip once
        return
    _rewrite(p, value)
    run.wrote[rel] = (value, run.wrote[rel][1] if rel in run.wrote else found)


def _clamped_into_new_table(k: str, before, after) -> bool:
    """An owned limit whose OPP list another agent changed, holding its value of before moved
    into the new list's range: what a journal restore writes (``kill -9`` or a failure, then
    the next start or ``thermogov restore``; docs/hardware.md, "Restore semantics")."""
    folder, name = k.rsplit("/", 1)
    table = f"{folder}/{_table_name(name)}"
    if table not in before or before.get(table) == after.get(table):
        return False
    try:
        was, now = int(before[k][0]), int(after[k][0])
        opps = [int(x) for x in after[table][0].split()]
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
    return bool(opps) and now == min(max(was, min(opps)), max(opps))


def _clamped_under_agents_max(k: str, run: FakeRun, before, after) -> bool:
    """A lower limit the kernel holds at the max another agent wrote below it: the effective min
    never exceeds the max (5.4+ QoS, ``cpufreq_set_policy``), so the file reads the agent's max
    and no restore can make it read more while that max stands.  The fake rounding kernel so
    clamped ``scaling_min_freq`` 1190400 to a rival's 1036800 and it read as a limit the daemon
    left changed (seed 13 tree 10, session 22: a harness finding, not the daemon's)."""
    for lo, hi in (("scaling_min_freq", "scaling_max_freq"), ("min_freq", "max_freq")):
        if not k.endswith("/" + lo):
            continue
        sib = k[: -len(lo)] + hi
        if sib not in run.wrote:
            return False
        try:
            now, was, top = int(after[k][0]), int(before[k][0]), int(after[sib][0])
        except (KeyError, TypeError, ValueError):
            return False
        return now == top == run.wrote[sib][0] and now < was
    return False


def _held_under_boost_off(k: str, before, after) -> bool:
    """A policy limit the kernel's boost switch set (session 24, :func:`_switch_boost`): with
    boost switched during the run, ``scaling_max_freq`` at exit reading the top of the state at
    exit (the boost OPP when on, the listed top when off) is what the kernel's reset of the max
    request left and the daemon adopted; a min held under such a max likewise."""
    if not k.endswith(("/scaling_max_freq", "/scaling_min_freq")):
        return False
    folder = k.rsplit("/", 1)[0]
    was_st, st = _policy_boost_state(before, folder), _policy_boost_state(after, folder)
    was, now = _reads_int(before, k), _reads_int(after, k)
    if was_st is None or st is None or was is None or now is None or was_st[0] == st[0]:
        return False
    new_top = st[2] if st[0] else st[1]
    if k.endswith("/scaling_max_freq"):
        return now == new_top
    return now == new_top < was


def _reads_int(snap, k: str) -> int | None:
    try:
        return int(snap[k][0])
    except (KeyError, TypeError, ValueError):
        return None


def _agent_file(k: str, tr: Trial) -> bool:
    """A file another agent of the trial writes: its limit, or the OPP list or governor beside it."""
    if k in tr.rivals:
        return True
    folder = k.rsplit("/", 1)[0]
    same_dir = any(folder == r.rsplit("/", 1)[0] for r in tr.rivals)
    return same_dir and (k.endswith("available_frequencies") or k.endswith("governor"))


def _take_away(root: Path, entry: str, tmp: Path) -> Callable[[], None]:
    """``entry`` out of the tree (a class link unlinked, a policy folder moved aside); returns
    the function that puts it back."""
    p = root / entry
    limit = "max_freq" if "/devfreq/" in entry else "scaling_max_freq"
    (tmp / "stash-max").write_text((p / limit).read_text())
    if p.is_symlink():
        target = os.readlink(p)
        p.unlink()

        return lambda: p.symlink_to(target)
    stash = tmp / "stash-folder"
    shutil.move(p, stash)

    return lambda: shutil.move(stash, p) and None


def _offline_rules(root: Path, folders: list[str]) -> list[tuple[str, str, int]]:
    """What an inactive policy answers: EBUSY from every attribute (drivers/cpufreq/cpufreq.c)."""
    return [(f"{f}/{e.name}", "rw", 16) for f in folders for e in sorted((root / f).iterdir())]


def journal_problem(journal: Path, max_rel: str, found: int) -> str:
    """Why the journal does not (yet) make a write to ``max_rel`` safe: "" when an entry names
    it with the window found as the value restore puts back."""
    try:
        body = json.loads(journal.read_text())
    except (OSError, ValueError) as e:
        return f"journal unreadable ({type(e).__name__})"
    entry = next((e for e in body.get("entries", []) if e.get("max_rel") == max_rel), None)
    if entry is None:
        return "written while the journal does not name it"
    if entry.get("max") != found:
        return f"journaled max {entry.get('max')}, found {found}"
    return ""


def hotplug_targets(owned: set[str], tr: Trial) -> list[str]:
    """The governed clusters the ``hotplug`` path may take offline: those whose limits are the
    daemon's alone.  A folder where another agent of the trial writes (a jetson_clocks storm
    raising the max every 0.25 s, a rival, a changed governor) is left out: there the rule of
    *Other agents* lets the agent's raise stand after three re-caps (``limits_left``), so a look
    at the max reads the agent's value, not a cap lost by a cluster that came back (sessions
    15-17's false ``cap-lost-after-online`` on Pi trees, traced in session 17b)."""
    folders = sorted({str(Path(r).parent) for r in owned if r.endswith("scaling_max_freq")})
    return [f for f in folders if not _agent_folder(f, tr)]


def _agent_folder(folder: str, tr: Trial) -> bool:
    """Another agent of the trial writes a limit in ``folder`` (a changed governor string moves
    no limit: that folder stays the daemon's)."""
    return any(r.rsplit("/", 1)[0] == folder and Path(r).name in LIMITS for r in tr.rivals)


def _policies_alone(t: fakesys.FakeTree, tr: Trial, faulty: set[str]) -> list[str]:
    """The governed policy folders whose files are the daemon's alone: none refuses (``faulty``
    folders) or is written by another agent of the trial."""
    return [
        f"{CPUFREQ}/{p}"
        for p in policies(t)
        if p in tr.governed_policies
        and f"{CPUFREQ}/{p}" not in faulty
        and not _agent_folder(f"{CPUFREQ}/{p}", tr)
    ]


def cap_lost(capped: str, fresh: str, now: str) -> bool:
    """A cluster back online whose max still reads the kernel's fresh value after the daemon's
    next check, where that value differs from the cap it held before going offline."""
    return fresh.strip() != capped.strip() and now.strip() == fresh.strip()


OTHER_AGENTS = ("jetson-clocks-storm", "nvpmodel-lower", "nvpmodel-table-shrunk", "governor-changed")


def other_agent(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """Other agents that change the board mid-run: jetson_clocks/thermald raising a governed max
    to the top again and again, nvpmodel lowering one below the cap or shrinking an OPP table
    (``available_frequencies`` and the max with it), the governor string changed under us.
    The rule the daemon follows (docs/hardware.md, "Other agents"): a raise is the agent's
    later choice, restored at exit; a lowered limit is not fought and restore says it writes
    over it; files it does not own are the agent's."""
    faulty = {r for r, _ops, _code in tr.fault_rules}
    rel = governed_limit(t, rng, tr)
    if rel in faulty or rel in tr.rivals:
        return
    kind = rng.choice(OTHER_AGENTS)
    p = t.root / rel
    listed = p.parent / _table_name(p.name)
    table = sorted({int(x) for x in listed.read_text().split()}) if listed.exists() else [int(p.read_text())]
    gov = p.parent / ("scaling_governor" if p.name.startswith("scaling") else "governor")
    tr.rivals.add(rel if kind != "governor-changed" else str(gov.relative_to(t.root)))
    if kind == "nvpmodel-table-shrunk" and len(table) < 3:
        return

    def agent(run: FakeRun) -> None:
        if run.stop.wait(run.rng.uniform(0.2, 0.8)):
            return
        if kind == "jetson-clocks-storm":
            while True:
                _agent_writes(run, rel, table[-1])
                if run.stop.wait(0.25):
                    return
        elif kind == "nvpmodel-lower":
            run.once(lambda: _agent_writes(run, rel, table[0]))
        elif kind == "nvpmodel-table-shrunk":
            keep = table[: len(table) // 2 + 1]

            def shrink() -> None:
                listed.write_text(" ".join(map(str, keep)) + " \n")
                _agent_writes(run, rel, min(keep[-1], int(p.read_text())))

            run.once(shrink)
        elif gov.exists():
            run.once(lambda: gov.write_text("performance\n") and None)

    tr.agents.append(agent)
    tr.shapes.append(f"{kind}-{Path(rel).parent.name}")


def _table_name(limit: str) -> str:
    return "scaling_available_frequencies" if limit.startswith("scaling") else "available_frequencies"


def governed_fan_and_idle(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A pwm-fan handed to the governor (``fan = "governor"``) and a ``thermal-idle`` cooling
    device driven by the lever, either of them refusing every write (EPERM, EBUSY) half the
    time: an attribute the driver never lets anyone set holds its original all along."""
    if (t.root / "sys/class/thermal/cooling_device0").exists():
        return  # a board-owned fan is there already
    fakesys.pwm_fan(
        t, board="rpi5" if "Raspberry" in t.read("sys/firmware/devicetree/base/model") else "orin"
    )
    idle = "sys/devices/virtual/thermal/cooling_device3"
    t.write(f"{idle}/type", "thermal-idle\n")
    t.write(f"{idle}/max_state", 100)
    t.write(f"{idle}/cur_state", 0)
    t.link("sys/class/thermal/cooling_device3", idle)
    tr.config = 'fan = "governor"\n[lever]\nenabled = true\n'
    tr.shapes.append("governed-fan+idle")
    if rng.random() < 0.5:
        tr.fault_rules.append(("sys/devices/virtual/thermal/cooling_device0/cur_state", "w", 1))
        tr.shapes.append("fan-refuses")
    if rng.random() < 0.5:
        tr.fault_rules.append((f"{idle}/cur_state", "w", 16))
        tr.shapes.append("idle-refuses")


def inactive_cluster(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A governed cluster whose CPUs are all offline at start (an nvpmodel mode with fewer cores):
    the kernel keeps its policy, and every attribute answers EBUSY (drivers/cpufreq/cpufreq.c,
    ``show``/``store`` of an inactive policy).  The other clusters must still be governed."""
    pols = [p for p in policies(t) if p in tr.governed_policies][1:]
    if not pols:
        return
    p = rng.choice(pols)
    for name in sorted(e.name for e in (t.root / CPUFREQ / p).iterdir()):
        tr.fault_rules.append((f"{CPUFREQ}/{p}/{name}", "rw", 16))
    tr.inactive |= {f"{CPUFREQ}/{p}/scaling_min_freq", f"{CPUFREQ}/{p}/scaling_max_freq"}
    tr.shapes.append(f"inactive-{p}")


def unknown_model(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """A board no profile names and whose SoC family no profile claims (a Pi 2 B, BCM2836; a
    Jetson TK1, T124): its device-tree model matches no ``dt_models`` and its ``compatible`` no
    ``dt_socs`` (linux bcm2836-rpi-2-b.dts, tegra124-jetson-tk1.dts), and the run's config names
    no board, so ``run`` must refuse it up front.  (Until the SoC family step this shape drew a
    Pi 3 B+ / Orin NX, now governed by rpi3 / jetson-orin-nano with a warning.)"""
    base = "sys/firmware/devicetree/base"
    if "Raspberry" in t.read(f"{base}/model"):
        model, compat = "Raspberry Pi 2 Model B Rev 1.1", ("raspberrypi,2-model-b", "brcm,bcm2836")
    else:
        # a Jetson TK1 (T124, linux tegra124-jetson-tk1.dts): the TX2 drawn before has had a
        # profile since session 23d, so it was governed, not refused (seed 20 tree 1, session 24)
        model, compat = "NVIDIA Tegra124 Jetson TK1", ("nvidia,jetson-tk1", "nvidia,tegra124")
    t.write(f"{base}/model", model.encode() + b"\x00")
    t.write(f"{base}/compatible", b"".join(c.encode() + b"\x00" for c in compat))
    tr.refuse_reason = f"device-tree model {model!r} matches no profile"
    tr.shapes.append("unknown-model")


SHAPES: list[tuple[Callable[[fakesys.FakeTree, random.Random, Trial], None], float]] = [
    (big_little, 0.35),
    (cpu_offline, 0.3),
    (no_available_list, 0.2),
    (messy_tables, 0.3),
    (gpu_renamed, 0.5),
    (gpu_userspace, 0.2),
    (zone_twin, 0.3),
    (odd_zones, 0.3),
    (odd_trips, 0.3),
    (board_fan, 0.25),
    (hwmon_labels, 0.3),
    (mains_only, 0.3),
    (read_only_limit, 0.12),
    (refusing_limit, 0.15),
    (rounding_kernel, 0.2),
    (rival_agent, 0.2),
    (governed_fan_and_idle, 0.25),
    (other_agent, 0.35),  # the trees before it keep their seeded draws
    (inactive_cluster, 0.2),  # session 16, after the others for the same reason
    (unknown_model, 0.08),
]


def cpufreq_globals(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """Entries next to the ``policyN`` folders in ``cpufreq/``: a governor's tunables folder, kept
    there when the driver has one set for all policies (no ``CPUFREQ_HAVE_GOVERNOR_PER_POLICY``:
    a Raspberry Pi's ``cpufreq/ondemand/up_threshold``, which Raspberry Pi OS sets to 50), and
    the ``boost`` file of a driver with boost OPPs (cpufreq-dt's ``turbo-mode`` OPPs;
    Documentation/admin-guide/pm/cpufreq.rst, "The boost File in sysfs").  A policy lists its
    boost OPP in ``scaling_boost_frequencies``, never in ``scaling_available_frequencies``; with
    boost on, ``cpuinfo_max_freq`` and ``scaling_max_freq`` reach it, so the limit in force lies
    above every listed OPP (drivers/cpufreq/freq_table.c, ``cpufreq_frequency_table_cpuinfo``)."""
    gov, tunables = rng.choice(
        [
            ("ondemand", {"up_threshold": 50, "sampling_rate": 100000, "sampling_down_factor": 1,
                          "ignore_nice_load": 0, "io_is_busy": 0, "powersave_bias": 0}),
            ("conservative", {"up_threshold": 80, "down_threshold": 20, "freq_step": 5,
                              "sampling_rate": 200000, "sampling_down_factor": 1, "ignore_nice_load": 0}),
            ("schedutil", {"rate_limit_us": 10000}),
        ]
    )  # fmt: skip
    for name, value in tunables.items():
        t.write(f"{CPUFREQ}/{gov}/{name}", value)
    for p in policies(t):
        t.write(f"{CPUFREQ}/{p}/scaling_governor", gov + "\n")
    tr.shapes.append(f"cpufreq-{gov}-tunables")
    listed = [p for p in policies(t) if (t.root / CPUFREQ / p / "scaling_available_frequencies").exists()]
    if not listed or rng.random() < 0.3:
        return
    on = rng.random() < 0.6
    t.write(f"{CPUFREQ}/boost", "1\n" if on else "0\n")
    for p in listed:
        top = max(table_of(t, p))
        boost = top + rng.choice([100000, 76800, 200000])
        t.write(f"{CPUFREQ}/{p}/scaling_boost_frequencies", f"{boost} \n")
        if on:
            for name in ("cpuinfo_max_freq", "scaling_max_freq", "scaling_cur_freq"):
                t.write(f"{CPUFREQ}/{p}/{name}", boost)
    tr.shapes.append(f"boost-{'on' if on else 'off'}")


def _boost_opps(t: fakesys.FakeTree, rng: random.Random, on: bool) -> dict[str, tuple[int, int]]:
    """Boost OPPs on every listed policy (as :func:`cpufreq_globals` makes them, or those it made):
    policy -> (its listed top, its boost OPP).  With boost on, ``cpuinfo_max_freq``,
    ``scaling_max_freq`` and ``scaling_cur_freq`` read the boost OPP."""
    out: dict[str, tuple[int, int]] = {}
    for p in policies(t):
        d = t.root / CPUFREQ / p
        if not (d / "scaling_available_frequencies").exists():
            continue
        top = max(int(x) for x in (d / "scaling_available_frequencies").read_text().split())
        if (d / "scaling_boost_frequencies").exists():
            boost = int((d / "scaling_boost_frequencies").read_text().split()[0])
        else:
            boost = top + rng.choice([100000, 76800, 200000])
            t.write(f"{CPUFREQ}/{p}/scaling_boost_frequencies", f"{boost} \n")
            if on:
                for name in ("cpuinfo_max_freq", "scaling_max_freq", "scaling_cur_freq"):
                    t.write(f"{CPUFREQ}/{p}/{name}", boost)
        out[p] = (top, boost)
    return out


def _boost_kernel(run: FakeRun, tops: dict[str, tuple[int, int]], state: dict[str, bool]) -> None:
    """What the kernel does within a write: a limit above ``cpuinfo_max_freq`` is held at it
    (``cpufreq_verify_within_cpu_limits`` in ``cpufreq_set_policy``).  Once boost was on,
    ``cpuinfo_max_freq`` stays at the boost OPP after it is turned off (shipped kernels,
    hw/boostrule.py), so this holds nothing then: a boost limit written with boost off stands,
    as on a board.  Here a moment later, and once more after the stop, so the daemon's last
    restore is judged as the kernel would hold it."""

    def clamp() -> None:
        for p in tops:
            d = run.t.root / CPUFREQ / p
            with contextlib.suppress(OSError, ValueError):
                hi = int((d / "cpuinfo_max_freq").read_text())
                for name in ("scaling_max_freq", "scaling_min_freq", "scaling_cur_freq"):
                    if int((d / name).read_text()) > hi:
                        _rewrite(d / name, hi)

    while not run.stop.wait(0.003):
        clamp()
    clamp()


def _switch_boost(
    run: FakeRun, tops: dict[str, tuple[int, int]], state: dict[str, bool], p: str, on: bool
) -> None:
    """Boost of policy ``p`` switched as ``cpufreq_boost_set_sw`` does it on the kernels boards
    ship, 5.10.17 to 6.12 (drivers/cpufreq/cpufreq.c, freq_table.c; hw/boostrule.py): the max
    request is re-issued at the new top (the boost OPP when on, the listed top when off), so
    ``scaling_max_freq`` reads that whatever was written there, thermogov's cap too;
    ``cpuinfo_max_freq`` rises to the boost OPP when on and is left there when off (3c55e94c0ade);
    the min request is untouched (the effective min never above the max)."""
    top, boost = tops[p]
    d = run.t.root / CPUFREQ / p
    state[p] = on
    if on:
        _rewrite(d / "cpuinfo_max_freq", boost)
    new = boost if on else top
    _rewrite(d / "scaling_max_freq", new)
    for name in ("scaling_min_freq", "scaling_cur_freq"):
        with contextlib.suppress(OSError, ValueError):
            if int((d / name).read_text()) > new:
                _rewrite(d / name, new)


def _policy_boost_state(snap, folder: str) -> tuple[bool, int, int] | None:
    """(boost on, listed top, boost OPP) of the policy at ``folder`` in a snapshot, None when it
    has no boost OPPs or no readable switch (its own ``boost`` file first, then the global)."""
    try:
        listed = [int(x) for x in bytes(snap[f"{folder}/scaling_available_frequencies"][0]).split()]
        boost = [int(x) for x in bytes(snap[f"{folder}/scaling_boost_frequencies"][0]).split()]
    except (KeyError, TypeError, ValueError):
        return None
    flag = snap.get(f"{folder}/boost", snap.get(f"{CPUFREQ}/boost"))
    if not listed or not boost or flag is None or not isinstance(flag[0], bytes):
        return None
    if flag[0].strip() not in (b"0", b"1"):
        return None
    return flag[0].strip() == b"1", max(listed), max(boost)


def boost_left_on(after) -> list[str]:
    """Policies whose boost reads off at exit but whose ``scaling_max_freq`` is above the listed
    top: a boost limit put back over the switch (the kernel would run there, hw/boostrule.py)."""
    out = []
    for k in sorted(after):
        if not k.endswith("/scaling_max_freq") or not k.startswith(CPUFREQ + "/policy"):
            continue
        folder = k.rsplit("/", 1)[0]
        st = _policy_boost_state(after, folder)
        now = _reads_int(after, k)
        if st is not None and now is not None and not st[0] and now > st[1]:
            out.append(f"{k}: {now} above the listed top {st[1]} with boost off")
    return out


def _boost_rivals(tops: dict[str, tuple[int, int]], tr: Trial, files: list[str]) -> None:
    """The files the boost agent changes are its own (never a limit the daemon owns)."""
    before = set(tr.rivals)
    for p in tops:
        # Its limits are held by the fake kernel's clamp too: an agent's folder, so the paths
        # that take a policy offline or away (online, appear, reprobe, hotplug) leave it alone
        # (seed 16 trees 8 and 11: the clamp of a policy offline at start read as the daemon's
        # write before its journal; a real kernel switches boost on active policies only).
        tr.rivals |= {
            f"{CPUFREQ}/{p}/{n}" for n in ("cpuinfo_max_freq", "scaling_cur_freq", "scaling_max_freq")
        }
        tr.rivals.add(f"{CPUFREQ}/{p}/scaling_min_freq")
    tr.rivals |= set(files)
    tr.boost_only |= tr.rivals - before


def _boost_switched_alone(t: fakesys.FakeTree, tr: Trial, faulty: set[str]) -> list[str]:
    """Governed policy folders whose only other agent is the boost switch (session 24): the
    switch acts on active policies, and a policy with a CPU offline under it stays active, so
    the ``cpu`` variant of ``online`` may take one of its CPUs while boost is switched."""
    out = []
    for p in policies(t):
        folder = f"{CPUFREQ}/{p}"
        theirs = {r for r in tr.rivals if r.rsplit("/", 1)[0] == folder}
        if p in tr.governed_policies and folder not in faulty and theirs and theirs <= tr.boost_only:
            out.append(folder)
    return out


def boost_switched(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """The global ``/sys/devices/system/cpu/cpufreq/boost`` switched by another agent mid-run (a
    user's ``echo 0 > boost``, a power daemon), once or on and off again
    (Documentation/admin-guide/pm/cpufreq.rst, "The boost File in sysfs":
    ``cpufreq_boost_trigger_state`` calls the driver's ``set_boost`` for every policy).  Off at
    start and turned on, the hardware range grows above every window journaled; on at start and
    turned off, the boost limit found at start can no longer be held: the restore must give back
    what the kernel can hold (the listed top), and nothing else."""
    start_on = (
        (t.root / CPUFREQ / "boost").read_text().strip() == "1"
        if (t.root / CPUFREQ / "boost").exists()
        else (rng.random() < 0.5)
    )
    tops = _boost_opps(t, rng, start_on)
    if not tops:
        return
    t.write(f"{CPUFREQ}/boost", "1\n" if start_on else "0\n")
    state = dict.fromkeys(tops, start_on)
    twice = rng.random() < 0.4
    # Linux 6.11+ shows each policy's own switch, which the global one sets too
    # (``cpufreq_boost_trigger_state`` -> ``policy_set_boost``): a tree that also drew
    # ``policy_boost`` has its per-policy files rewritten by the same agent (seed 19 tree 7,
    # session 24: the bench's model).
    _boost_rivals(tops, tr, [f"{CPUFREQ}/boost", *(f"{CPUFREQ}/{p}/boost" for p in tops)])

    def agent(run: FakeRun) -> None:
        kernel = threading.Thread(target=_boost_kernel, args=(run, tops, state), daemon=True)
        kernel.start()
        for k, on in enumerate([not start_on, start_on][: 2 if twice else 1]):
            if run.stop.wait(run.rng.uniform(0.3, 1.2) if k == 0 else run.rng.uniform(0.5, 1.5)):
                break

            def flip(on: bool = on) -> None:
                _rewrite(run.t.root / CPUFREQ / "boost", int(on))
                for p in tops:
                    own = run.t.root / CPUFREQ / p / "boost"
                    if own.exists():
                        _rewrite(own, int(on))
                    _switch_boost(run, tops, state, p, on)

            run.once(flip)
        kernel.join()

    tr.agents.append(agent)
    tr.shapes.append(f"boost-{'on' if start_on else 'off'}-switched{'-twice' if twice else ''}")


def policy_boost(t: fakesys.FakeTree, rng: random.Random, tr: Trial) -> None:
    """Per-policy ``policyN/boost`` files (Linux 6.11+, ``store_local_boost`` in
    drivers/cpufreq/cpufreq.c; Documentation/admin-guide/pm/cpufreq.rst, policy attribute
    ``boost``): each policy boosted or not on its own, so one policy's range reaches its boost
    OPP while the next one's ends at its listed top; with a global ``boost`` file beside them
    when the tree has one.  Half the time another agent switches one policy's file mid-run."""
    glob = t.root / CPUFREQ / "boost"
    tops = _boost_opps(t, rng, False)
    if not tops:
        return
    state: dict[str, bool] = {}
    for p, (_top, boost) in tops.items():
        d = t.root / CPUFREQ / p
        on = int(d.joinpath("cpuinfo_max_freq").read_text()) == boost if glob.exists() else rng.random() < 0.5
        if on and int(d.joinpath("cpuinfo_max_freq").read_text()) != boost:
            for name in ("cpuinfo_max_freq", "scaling_max_freq", "scaling_cur_freq"):
                t.write(f"{CPUFREQ}/{p}/{name}", boost)
        t.write(f"{CPUFREQ}/{p}/boost", "1\n" if on else "0\n")
        state[p] = on
    tr.shapes.append("policy-boost-" + "".join("1" if state[p] else "0" for p in tops))
    if rng.random() < 0.5:
        return
    p = rng.choice(sorted(tops))
    _boost_rivals({p: tops[p]}, tr, [f"{CPUFREQ}/{p}/boost"])
    on = not state[p]

    def agent(run: FakeRun) -> None:
        kernel = threading.Thread(target=_boost_kernel, args=(run, tops, state), daemon=True)
        kernel.start()
        if not run.stop.wait(run.rng.uniform(0.3, 1.2)):

            def flip() -> None:
                _rewrite(run.t.root / CPUFREQ / p / "boost", int(on))
                _switch_boost(run, tops, state, p, on)

            run.once(flip)
        kernel.join()

    tr.agents.append(agent)
    tr.shapes.append(f"{p}-boost-switched-{'on' if on else 'off'}")


# Families added after the seeds of earlier sessions were run: drawn from a generator of their
# own (seeded from the tree's), so every earlier seed still makes the same trees and trials.
LATE_SHAPES: list[tuple[Callable[[fakesys.FakeTree, random.Random, Trial], None], float]] = [
    (cpufreq_globals, 0.3),  # session 22
    (boost_switched, 0.2),  # session 23, after it: its trees keep their draws
    (policy_boost, 0.2),
]
FORCED: set[str] = set()  # --shape: late families put on every tree


def build(root: Path, rng: random.Random) -> tuple[fakesys.FakeTree, Trial]:
    board = rng.choice(sorted(fakesys.BOARDS))
    kw = {"cpu_mc": HOT_MC}
    if board in ("jetson-orin-nano", "jetson-agx-orin"):
        kw["gpu_mc"] = HOT_MC
    if board == "jetson-orin-nano":
        kw["jetpack"] = rng.choice([5, 6])
    t = fakesys.BOARDS[board](root, **kw)
    tr = Trial(board, governed_policies=profile_policies(board))
    for shape, p in SHAPES:
        if rng.random() < p:
            shape(t, rng, tr)
    late = random.Random(repr(rng.getstate()))  # draws nothing from rng
    for k, (shape, p) in enumerate(LATE_SHAPES):
        # Session 22's family draws from ``late`` as it always did; each later one from its own
        # generator, so forcing one family (``--shape``) moves no other family's draws.
        gen = late if k == 0 else random.Random(f"{rng.getstate()!r}/{shape.__name__}")
        n = len(tr.shapes)
        if gen.random() < p or shape.__name__ in FORCED:
            shape(t, gen, tr)
        tr.late[shape.__name__] = tr.shapes[n:]
    return t, tr


# -- running -----------------------------------------------------------------------------------
def _package_dirs() -> tuple[str, ...]:
    import thermogov
    import thermogov.hw

    return tuple(str(Path(m.__file__).parent) + os.sep for m in (thermogov, thermogov.hw))


def before_thermogov(rc: int | None, err: str) -> bool:
    """A stop that landed while the interpreter itself started, before the console script ran a
    line of thermogov: SIGTERM's or SIGHUP's default action (exit -15, -1), or SIGINT's
    ``KeyboardInterrupt`` raised in ``site`` or the import machinery (exit 1, its traceback naming
    no file of thermogov's packages; an editable install's ``__editable__`` finder is the
    interpreter's ``site`` step too).  No program can answer these (``thermogov.entry`` blocks
    the signals from its first line on); nothing was written, which the caller still checks.
    systemd counts a death by SIGTERM as a clean stop (``SuccessExitStatus=``, systemd.service(5))."""
    if rc in (-signal.SIGTERM, -signal.SIGHUP) and not err.strip():
        return True
    if rc != 1 or not err.rstrip().endswith("KeyboardInterrupt"):
        return False
    files = [ln.split('"')[1] for ln in err.splitlines() if ln.lstrip().startswith('File "')]
    return not any(f.startswith(_package_dirs()) for f in files)


class Runner:
    def __init__(self, shim: Path | None) -> None:
        self.shim = shim
        self.counts: Counter[str] = Counter()
        self.findings: list[str] = []
        self._boost_cpu = False  # the online path's cpu variant under a boost-switched policy

    def env(self, tmp: Path, root: Path) -> dict[str, str] | None:
        return faultshim.env(self.shim, tmp / "faults", root) if self.shim else None

    def cli(self, tmp: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return procutil.run_cli(*args, env=self.env(tmp, root))

    def start(self, tmp: Path, root: Path, *extra: str, config: str = "") -> subprocess.Popen[bytes]:
        cfg = tmp / "hysteresis.toml"
        cfg.write_text('[run]\npolicy = "hysteresis"\n' + config)
        args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), *extra]
        return subprocess.Popen(
            [*procutil.script(), "run", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            env=self.env(tmp, root),
        )

    def finding(self, kind: str, where: str, detail: str) -> None:
        self.counts[f"finding:{kind}"] += 1
        self.findings.append(f"{kind} [{where}]: {detail}")

    def trial(self, tmp: Path, rng: random.Random, path: str, label: str) -> None:
        root = tmp / "root"
        t, tr = build(root, rng)
        where = f"{label} {tr.board} {'+'.join(tr.shapes) or 'plain'} {path}"
        if self.shim is None and tr.fault_rules:
            return
        then = ""  # the exit after the mode change (the "modechange" path only: other draws unchanged)
        if path == "modechange":
            if not tr.board.startswith("jetson"):
                return  # nvpmodel is Jetson's
            then = rng.choice(MODE_EXITS)
            where += f" ({then})"
            self.counts[f"variant:mode-then-{then}"] += 1
            t.write(MODE_STATUS, "pmode:0000 fmode:quiet\n")
        offline: list[str] = []  # the "online" path: policy folders offline at start
        if path == "online":
            offline = self._plan_online(t, tr, rng)
            if not offline:
                self.counts["variant:online-nothing-to-take-offline"] += 1
                return
            where += f" ({self._online_variant} {'+'.join(Path(f).name for f in offline)})"
            if self._online_variant == "cpu":  # the policy stays active: only a CPU goes
                where = where[:-1] + f" cpu{self._online_cpu})"
                offline = []
        appear: tuple[str, str] | None = None  # the "appear" path: (entry, its limit file)
        if path == "reprobe":
            appear = self._plan_appear(t, tr, rng, REPROBE_VARIANTS)
            if appear is None:
                self.counts["variant:reprobe-nothing-to-take-away"] += 1
                return
            where += f" ({self._appear_variant} {Path(appear[0]).name})"
            folder = Path(os.path.realpath(root / appear[0]))
            self._start_files = {  # the driver's defaults: what its next probe writes again
                p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()
            }
        if path == "appear":
            appear = self._plan_appear(t, tr, rng)
            if appear is None:
                self.counts["variant:appear-nothing-to-take-away"] += 1
                return
            where += f" ({self._appear_variant} {Path(appear[0]).name})"
        faultshim.write_rules(
            tmp / "faults", [*tr.fault_rules, *_offline_rules(root, offline)]
        ) if self.shim else None
        self.counts["runs"] += 1
        before = snapshot(root)
        put_back = _take_away(root, appear[0], tmp) if appear and path == "appear" else None
        if path == "normal":
            doc = self.cli(tmp, root, "doctor", "--sysfs-root", str(root))
            if doc.returncode not in (0,) or "Traceback" in doc.stderr:
                self.finding("doctor", where, f"rc={doc.returncode} {doc.stderr[-300:]}")
        run = FakeRun(t, threading.Event(), random.Random(rng.random()))
        threads = [threading.Thread(target=a, args=(run,), daemon=True) for a in tr.agents]
        proc = self.start(tmp, root, "--duration", "2.5s" if path == "normal" else "60s", config=tr.config)
        self._proc = proc
        for shape in tr.shapes:
            self.counts.update(f"variant:{k}" for k in OTHER_AGENTS if shape.startswith(k))
        schedule = rng.choice(SIGNAL_SCHEDULES) if path == "signals" else ""
        if schedule:
            self.counts[f"variant:{schedule}"] += 1
        if schedule == "term-at-start-up":
            self._stop_at_start_up(where, tr, tmp, proc, rng, before)
            return
        started = self._wait_started(proc)
        if not started:
            _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
            if put_back is not None:  # refused without it (its other domains cannot be governed)
                put_back()
                self.counts["variant:appear-refused-without-it"] += 1
                if self._only_policy and not tr.refuse_reason:
                    # The one governable domain absent at start: nothing to govern, so a refusal
                    # (one line, exit 2, nothing written) is the promise; judged as one below.
                    tr.refuse_reason = "its one governable domain is absent at start"
            self._refused(where, tr, proc.returncode, err.decode(), before, snapshot(root), tmp)
            return
        if tr.refuse_reason:
            self.finding("not-refused", where, f"started although {tr.refuse_reason}")
        if appear is not None and put_back is not None:
            self._appear(where, tmp, appear, put_back, rng)
        if path == "reprobe" and appear is not None:
            self._reprobe(where, tmp, appear, rng)
        for th in threads:
            th.start()
        time.sleep(rng.uniform(0.4, 1.2))
        mid = snapshot(root)
        owned = self._check_owned(where, tr, before, mid, tmp)
        expect_rc = {0}
        failed_cluster = ""
        mode_set: dict[str, tuple[int, int]] = {}  # rel -> (nvpmodel's value, the value it found)
        exit_path = then or path
        if path in ("appear", "reprobe"):
            exit_path = rng.choice(ONLINE_EXITS)
            where += f" ({exit_path})"
        if path == "online":
            exit_path = self._online(where, tmp, tr, owned, rng, offline or [self._cpu_policy])
        if then and then != "kill9-then-mode":
            mode_set = self._set_mode(t, tr, owned, rng)
            time.sleep(rng.uniform(0.0, 1.5))  # a kill -9 before or after the daemon's next check
        run.begin_stop()
        if exit_path in ("sigterm", "sigint"):
            proc.send_signal(signal.SIGTERM if exit_path == "sigterm" else signal.SIGINT)
        elif exit_path == "sighup":
            proc.send_signal(signal.SIGHUP)
            time.sleep(0.3)
            proc.send_signal(signal.SIGTERM)
        elif exit_path == "failure":
            failed_cluster = self._unplug(tmp, tr, owned)
            expect_rc = {1} if failed_cluster else {0}
            time.sleep(0.5)
            proc.send_signal(signal.SIGTERM)
        elif exit_path in ("kill9", "journal", "kill9-then-mode"):
            proc.kill()
        elif path == "hotplug":
            self._hotplug(where, tmp, tr, owned, rng)
            proc.send_signal(signal.SIGTERM)
        elif path == "signals":
            self._signals(proc, schedule, rng)
            where += f" ({schedule})"
        try:
            _out, errb = proc.communicate(timeout=procutil.DEADLINE_S)
        finally:
            run.stop.set()
            for th in threads:
                th.join()
        err = errb.decode()
        if "Traceback" in err:
            self.finding("traceback", where, err[-400:])
        if path == "journal":
            proc.wait()
            self._damaged_journal(
                where, tmp, tr, rng, before, lambda k, a: self._agents_choice(k, tr, run, owned, before, a)
            )
            return
        if exit_path == "kill9-then-mode":
            mode_set = self._set_mode(t, tr, owned, rng)
        if exit_path in ("kill9", "kill9-then-mode"):
            nxt = self.start(tmp, root, "--duration", "0.5s", config=tr.config)
            _o, e2 = nxt.communicate(timeout=procutil.DEADLINE_S)
            err = e2.decode()
            if not (nxt.returncode == 0 or unwritable_by_design(err, tr)) or "restored" not in err:
                self.finding("kill9-next-start", where, f"rc={nxt.returncode} {err[-300:]}")
        elif proc.returncode == 1 and unwritable_by_design(err, tr):
            pass  # the daemon's rule since session 30; the restore is checked on the snapshot below
        elif proc.returncode not in expect_rc:
            self.finding("exit-status", where, f"rc={proc.returncode} want {expect_rc}: {err[-300:]}")
        elif proc.returncode == 1:
            last = err.strip().splitlines()[-1] if err.strip() else ""
            if "thermogov restore" not in last:
                self.finding("failure-line", where, last[-300:])
            faultshim.write_rules(tmp / "faults", tr.fault_rules)  # the device is back
            r = self.cli(tmp, root, "restore", *procutil.paths(tmp))
            if r.returncode != 0:
                self.finding("restore-after-failure", where, f"rc={r.returncode} {r.stderr[-300:]}")
        after = snapshot(root)
        # A rival's write to a limit the daemon does not own is the rival's to undo, not ours.
        diff = [
            k
            for k in changed(before, after)
            if not self._agents_choice(k, tr, run, owned, before, after)
            and k not in (MODE_STATUS, MODE_CONF, MODE_CONF.split("/")[0])
        ]
        if mode_set:
            diff = self._check_mode_kept(where, mode_set, before, after, diff)
        # An agent's lower max that an nvpmodel mode change then made the mode's: the daemon keeps
        # it as the operator's and says so ("restore leaves policy0 ... as the new mode set"),
        # the rule of a mode change (seed 17 tree 6, session 23: the bench's expectation, which
        # wanted the other agents' rule to win).
        kept = {
            r
            for r, (v, _found) in run.wrote.items()
            if then and f"restore leaves {Path(r).parent.name} " in err and _reads_int(after, r) == v
        }
        diff = [k for k in diff if k not in kept]
        lowered = [r for r, (v, found) in run.wrote.items() if r in owned and v < found and r not in kept]
        if (
            lowered
            and proc.returncode == 0
            and exit_path not in ("kill9", "kill9-then-mode")
            and "restoring the value of before" not in err
        ):
            self.finding("restored-over-silently", where, ", ".join(lowered))
        if diff:
            self.finding("not-restored", where, shown(diff[:6], before, after))
        left_on = boost_left_on(after)
        if left_on and proc.returncode == 0 and not boost_left_on(before):
            self.finding("boost-limit-over-switch", where, "; ".join(left_on[:3]))
        if (tmp / "state/journal.json").exists():
            self.finding("journal-left", where, err[-200:])

    @staticmethod
    def _set_mode(
        t: fakesys.FakeTree, tr: Trial, owned: set[str], rng: random.Random
    ) -> dict[str, tuple[int, int]]:
        """``nvpmodel -m 2``: it records the mode, then writes a lower max into every governed
        window (a CPU cluster's, the GPU's; each mode of NVIDIA's nvpmodel.conf lists the CPU and
        GPU MAX_FREQ, as recalled, not re-checked), an OPP drawn from the lower half of its list,
        sometimes below thermogov's cap on the hot board, sometimes above it."""
        t.write(MODE_STATUS, "pmode:0002 fmode:quiet\n")
        faulty = {r for r, _ops, _code in tr.fault_rules}
        out: dict[str, tuple[int, int]] = {}  # rel -> (the mode's value, the value it found)
        for rel in sorted(r for r in owned if r.endswith("max_freq")):
            if rel in faulty or rel in tr.rivals:
                continue
            p = t.root / rel
            listed = p.parent / _table_name(p.name)
            try:
                table = sorted({int(x) for x in listed.read_text().split()})
                found = int(p.read_text())
            except (OSError, ValueError):
                continue
            lower = [f for f in table[: max(1, len(table) // 2)] if f < table[-1]]
            if not lower:
                continue
            value = rng.choice(lower)
            _rewrite(p, value)
            out[rel] = (value, found)
        t.write(MODE_CONF, nvpmodel_conf({rel: value for rel, (value, _found) in out.items()}))
        return out

    def _check_mode_kept(
        self, where: str, mode_set: dict[str, int], before, after, diff: list[str]
    ) -> list[str]:
        """After every exit (and a kill -9's next start) the mode's max must stand: above it, the
        operator's mode undone; below it, thermogov's own cap left in force.  Each window's min
        may be moved under that max (never an inverted window); its other changes stay findings.
        A mode that wrote the very value the file held (thermogov's cap) leaves nothing to see in
        the file: counted apart (``mode-undone-unseen``)."""
        for rel, (value, found) in mode_set.items():
            try:
                now = int(after[rel][0])
            except (KeyError, TypeError, ValueError):
                continue
            if now > value:
                kind = "mode-undone-unseen" if found == value else "mode-undone"
                self.finding(kind, where, f"{rel}: {now}, the mode set {value} over {found}")
            elif now < value:
                self.finding("mode-cap-left", where, f"{rel}: {now}, the mode set {value} over {found}")
            folder = rel.rsplit("/", 1)[0]
            lo_rel = f"{folder}/{'scaling_min_freq' if 'scaling' in rel else 'min_freq'}"
            try:
                was_lo, lo = int(before[lo_rel][0]), int(after[lo_rel][0])
            except (KeyError, TypeError, ValueError):
                continue
            if lo == min(was_lo, now):
                diff = [k for k in diff if k != lo_rel]
        return [k for k in diff if k not in mode_set]

    @staticmethod
    def _agents_choice(k: str, tr: Trial, run: FakeRun, owned: set[str], before, after) -> bool:
        """A change at exit that is another agent's to keep: a file the daemon does not own, or an
        owned limit the agent raised (its later choice), holding the agent's value."""
        if _agent_file(k, tr) and k not in owned:
            return True
        if k in owned and _clamped_into_new_table(k, before, after):
            return True
        if _clamped_under_agents_max(k, run, before, after):
            return True
        if _held_under_boost_off(k, before, after):
            return True
        if k not in run.wrote:
            return False
        value, found = run.wrote[k]
        try:
            now = int(after[k][0])
        except (TypeError, ValueError):
            return False
        return now == value and (value > found or k not in owned)

    def _damaged_journal(
        self, where: str, tmp: Path, tr: Trial, rng: random.Random, before, agents_choice: Callable
    ) -> None:
        """After a kill -9 the journal is torn, empty, from another version, or its folder is
        read-only: the next start refuses with one line (exit 2) and writes nothing; on a
        read-only folder the line names the restore, which puts every limit back and exits 1
        saying only the file is left."""
        damage = rng.choice(JOURNAL_DAMAGE)
        self.counts[f"variant:{damage}"] += 1
        where += f" ({damage})"
        j = tmp / "state/journal.json"
        if not j.exists():
            return
        if damage == "zero-length":
            j.write_bytes(b"")
        elif damage == "truncated":
            # cut inside the JSON text: a cut of only the trailing newline leaves a whole journal,
            # which the next start rightly restores (a false finding, seed 1 tree 19)
            body_text = j.read_bytes().rstrip()
            j.write_bytes(body_text[: rng.randrange(1, len(body_text))])
        elif damage.startswith("format-"):
            body = json.loads(j.read_text())
            body["format"] = int(damage[-1])
            j.write_text(json.dumps(body))
        killed = snapshot(tmp / "root")
        ro = damage == "read-only-state-dir"
        wrap = self._read_only(tmp / "state") if ro else []
        cfg = tmp / "hysteresis.toml"
        args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), "--duration", "0.5s"]
        nxt = subprocess.run(
            [*wrap, *procutil.script(), "run", *args],
            capture_output=True,
            text=True,
            timeout=procutil.DEADLINE_S,
            env=self.env(tmp, tmp / "root"),
        )
        lines = nxt.stderr.strip().splitlines()
        if nxt.returncode != 2 or len(lines) != 1 or "Traceback" in nxt.stderr:
            self.finding("damaged-journal-start", where, f"rc={nxt.returncode} {nxt.stderr[-300:]}")
        if changed(killed, snapshot(tmp / "root")):
            self.finding(
                "damaged-journal-wrote", where, ", ".join(changed(killed, snapshot(tmp / "root"))[:4])
            )
        if not ro:
            return
        if "thermogov restore" not in nxt.stderr:
            self.finding("damaged-journal-start", where, f"no restore named: {nxt.stderr[-300:]}")
        r = subprocess.run(
            [*wrap, *procutil.script(), "restore", *procutil.paths(tmp)],
            capture_output=True,
            text=True,
            timeout=procutil.DEADLINE_S,
            env=self.env(tmp, tmp / "root"),
        )
        if r.returncode != 1 or "limits restored" not in r.stderr or "Traceback" in r.stderr:
            self.finding("read-only-restore", where, f"rc={r.returncode} {r.stderr[-300:]}")
        after = snapshot(tmp / "root")
        diff = [k for k in changed(before, after) if not agents_choice(k, after)]
        if diff:
            self.finding("not-restored", where, ", ".join(diff[:6]))

    @staticmethod
    def _read_only(folder: Path) -> list[str]:
        """A command prefix running it with ``folder`` read-only (a private bind mount, root)."""
        f = str(folder)
        script = f'mount --bind "{f}" "{f}" && mount -o remount,ro,bind "{f}" "{f}" && exec "$@"'
        return ["unshare", "-m", "sh", "-c", script, "sh"]

    def _hotplug(self, where: str, tmp: Path, tr: Trial, owned: set[str], rng: random.Random) -> None:
        """A governed cluster goes offline (every attribute EBUSY) and comes back with the
        kernel's fresh limits (``cpuinfo_min_freq``..``cpuinfo_max_freq``, what a re-created
        policy starts with): within the daemon's next check its cap must be in force again."""
        folders = hotplug_targets(owned, tr)
        if not folders:
            # a stop at the instant a hotplug trial's would come: the agents' writes are seen by
            # the daemon's checks as in any other trial, not cut short by an early stop
            self.counts["variant:hotplug-no-cluster-of-its-own"] += 1
            time.sleep(rng.uniform(0.2, 1.5) + 2.2)
            return
        target = rng.choice(folders)
        d = tmp / "root" / target
        capped = (d / "scaling_max_freq").read_text()
        names = ("scaling_min_freq", "scaling_max_freq", "scaling_cur_freq")
        faultshim.write_rules(
            tmp / "faults", [*tr.fault_rules, *((f"{target}/{n}", "rw", 16) for n in names)]
        )
        time.sleep(rng.uniform(0.2, 1.5))
        for lim, info in (("scaling_min_freq", "cpuinfo_min_freq"), ("scaling_max_freq", "cpuinfo_max_freq")):
            (d / lim).write_text((d / info).read_text())
        faultshim.write_rules(tmp / "faults", tr.fault_rules)
        fresh = (d / "scaling_max_freq").read_text()
        time.sleep(2.2)  # more than the daemon's once-a-second check, on a loaded machine
        now = (d / "scaling_max_freq").read_text()
        if cap_lost(capped, fresh, now):
            self.finding(
                "cap-lost-after-online", where, f"{target}: capped {capped.strip()}, back at {now.strip()}"
            )

    def _plan_online(self, t: fakesys.FakeTree, tr: Trial, rng: random.Random) -> list[str]:
        """What the ``online`` path takes offline at start: one governed cluster that is not the
        first (``cluster``; cpu0's cluster stays, as on the boards, where nvpmodel modes switch
        off the later clusters), or every cluster of the profile's cpu domain (``domain``; Jetson
        trees only, whose GPU leaves the run something to govern at start); the other variant
        where the drawn one has nothing to take.  Only clusters whose files are the daemon's
        alone (none another agent writes, refuses, or makes read-only), on no tree that must be
        refused.  Draws after the tree is built: other paths are unchanged."""
        self._online_variant = rng.choice(ONLINE_VARIANTS)
        self._boost_cpu = False
        if self.shim is None or tr.refuse_reason or tr.read_only:
            return []
        faulty = {r.rsplit("/", 1)[0] for r, _ops, _code in tr.fault_rules}
        mine = _policies_alone(t, tr, faulty)
        later = [f for f in mine if not f.endswith("/policy0")]
        governed = [f"{CPUFREQ}/{p}" for p in policies(t) if p in tr.governed_policies]
        whole = mine if tr.board.startswith("jetson") and mine == governed else []
        if (self._online_variant == "cluster" and not later) or (
            self._online_variant == "domain" and not whole
        ):
            # the other variant where the drawn one has nothing to take (one cluster; a Pi)
            self._online_variant = "domain" if self._online_variant == "cluster" else "cluster"
        if self._online_variant == "cluster" and later:
            return [rng.choice(later)]
        if self._online_variant == "domain" and whole:
            return whole
        if not mine and len(governed) == 1 and _boost_switched_alone(t, tr, faulty) == governed:
            # a one-policy board whose policy the boost agent switches: a CPU offline under it
            # while boost goes off or on, and back (task of session 24)
            self._boost_cpu = True
            return self._plan_cpu_offline(t, governed)
        return self._plan_cpu_offline(t, mine) if mine and len(governed) == 1 else []

    def _plan_cpu_offline(self, t: fakesys.FakeTree, mine: list[str]) -> list[str]:
        """One-policy boards (a Pi: CPUs 0-3 under ``policy0``, no cluster to take offline): a
        CPU that is not cpu0 goes offline and online under the one policy (``cpu``).  Its
        ``cpuN/online`` made at start (Documentation/ABI/testing/sysfs-devices-system-cpu)."""
        rel = mine[0]
        cpus = t.read(f"{rel}/related_cpus").split()
        up = t.read(f"{rel}/affected_cpus").split()  # a CPU may be offline already (cpu_offline)
        if len(up) < 2:
            return []
        self._online_variant = "cpu"
        self._online_cpu, self._cpu_policy = up[-1], rel
        for c in cpus[1:]:
            t.write(f"sys/devices/system/cpu/cpu{c}/online", "1\n" if c in up else "0\n")
        return [rel]

    def _online(
        self, where: str, tmp: Path, tr: Trial, owned: set[str], rng: random.Random, offline: list[str]
    ) -> str:
        """Clusters offline at start come online mid-run, go offline again and come back with the
        kernel's fresh limits.  Judged: each is journaled before its first write (the journal
        names it whenever its max reads lower than found), capped within the daemon's next look
        (``hw/lateclusters.py``), capped again after the second coming; the exit (drawn: SIGTERM,
        or ``kill -9`` then the next start's journal restore) is judged by ``trial`` as for every
        path: the tree back byte for byte.  Returns that exit."""
        self.counts[f"variant:online-{self._online_variant}"] += 1
        if self._boost_cpu:
            self.counts["variant:online-cpu-boost-switched"] += 1
        exit_path = rng.choice(ONLINE_EXITS)
        where += f" ({exit_path})"
        root = tmp / "root"
        cpu_owned = any("/cpufreq/" in r for r in owned)
        if (self._online_variant == "cluster" and not cpu_owned) or any("disjoint" in s for s in tr.shapes):
            # a cluster sharing no OPP with its domain's caps is left alone, said: right (seed 1 tree 8)
            self.counts["variant:online-domain-ungoverned"] += 1
            return exit_path
        if self._online_variant == "cpu":
            self._cpu_online(where, root, offline[0], rng)
            return exit_path
        found = {f: int((root / f / "scaling_max_freq").read_text()) for f in offline}
        faultshim.write_rules(tmp / "faults", tr.fault_rules)  # its CPUs back online
        late = self._wait_capped(tmp, found)
        for f in offline:
            if f not in late:
                self.finding("online-not-capped", where, f"{f}: still {found[f]} after {ONLINE_WAIT_S:g} s")
            elif late[f]:
                self.finding("online-written-before-journaled", where, f"{f}: {late[f]}")
        if len(late) < len(offline):
            return exit_path
        capped = {f: (root / f / "scaling_max_freq").read_text() for f in offline}
        faultshim.write_rules(tmp / "faults", [*tr.fault_rules, *_offline_rules(root, offline)])
        time.sleep(rng.uniform(0.2, 1.5))
        for f in offline:  # a policy re-created with the kernel's fresh limits
            for lim, info in (
                ("scaling_min_freq", "cpuinfo_min_freq"),
                ("scaling_max_freq", "cpuinfo_max_freq"),
            ):
                (root / f / lim).write_text((root / f / info).read_text())
        faultshim.write_rules(tmp / "faults", tr.fault_rules)
        fresh = {f: (root / f / "scaling_max_freq").read_text() for f in offline}
        time.sleep(2.2)  # more than the daemon's once-a-second check, on a loaded machine
        for f in offline:
            now = (root / f / "scaling_max_freq").read_text()
            if cap_lost(capped[f], fresh[f], now):
                self.finding(
                    "cap-lost-after-online", where, f"{f}: capped {capped[f].strip()}, back at {now.strip()}"
                )
        return exit_path

    def _cpu_online(self, where: str, root: Path, rel: str, rng: random.Random) -> None:
        """A CPU of the one policy offline, then online again (twice): the policy stays, its
        ``affected_cpus`` (the online CPUs) short of ``related_cpus`` meanwhile, its limits
        untouched (``cpufreq_offline`` only stops and restarts the governor while a CPU of the
        policy stays online, drivers/cpufreq/cpufreq.c).  Judged: the cap the policy held
        stays in force through both, and the exit puts back the tree as found."""
        cpu, folder = self._online_cpu, root / rel
        online = root / f"sys/devices/system/cpu/cpu{cpu}/online"
        every = (folder / "affected_cpus").read_bytes()
        short = " ".join(c for c in every.decode().split() if c != cpu).encode() + b"\n"
        found = int((folder / "cpuinfo_max_freq").read_text())
        if not self._wait_capped(root.parent, {rel: found}):
            return  # never capped: the trial's own check says so
        capped = (folder / "scaling_max_freq").read_text()
        for _ in range(2):
            online.write_text("0\n")
            (folder / "affected_cpus").write_bytes(short)
            time.sleep(rng.uniform(0.2, 1.5))
            online.write_text("1\n")
            (folder / "affected_cpus").write_bytes(every)
            time.sleep(rng.uniform(0.2, 1.2))
        time.sleep(1.2)  # one more look of the daemon's
        now = (folder / "scaling_max_freq").read_text()
        # A boost switch replaces the cap by the new top (hw/boostrule.py): re-capped at the
        # daemon's next look, so a switch just now is waited out, not read as a cap lost.
        waited = 0.0
        while self._boost_cpu and int(now) >= found and waited < 3.0:
            time.sleep(0.1)
            waited += 0.1
            now = (folder / "scaling_max_freq").read_text()
        if int(now) >= found:
            self.finding(
                "cap-lost-after-cpu-online", where, f"{rel}: capped {capped.strip()}, now {now.strip()}"
            )

    @staticmethod
    def _wait_capped(tmp: Path, found: dict[str, int], limit: str = "scaling_max_freq") -> dict[str, str]:
        """Polls each folder's max until it reads lower than ``found``; for each one capped, what
        was wrong with the journal at that moment ("" when it named the folder's max with the
        window found).  A folder missing from the result was never capped."""
        out: dict[str, str] = {}
        deadline = time.monotonic() + ONLINE_WAIT_S
        while len(out) < len(found) and time.monotonic() < deadline:
            for f, was in found.items():
                if f in out or int((tmp / "root" / f / limit).read_text() or was) >= was:
                    continue
                out[f] = journal_problem(tmp / "state/journal.json", f"{f}/{limit}", was)
            time.sleep(0.05)
        return out

    def _plan_appear(
        self, t: fakesys.FakeTree, tr: Trial, rng: random.Random, variants: tuple[str, ...] = APPEAR_VARIANTS
    ) -> tuple[str, str] | None:
        """What the ``appear`` path takes out of the tree at start: the GPU's class link, or a
        governed policy folder that is not cpu0's; the other kind where the drawn one has none.
        Only an entry whose files are the daemon's alone (none another agent writes, refuses, or
        makes read-only), on no tree that must be refused.  Draws after the tree is built."""
        self._appear_variant = rng.choice(variants)
        self._only_policy = False
        if tr.refuse_reason:
            return None
        # Fault rules, read-only limits and agents name real folders; the class link is a name.
        faulty = {r.rsplit("/", 1)[0] for r, _ops, _code in tr.fault_rules}
        faulty |= {r.rsplit("/", 1)[0] for r in tr.read_only}
        g = gpu_entry(t)
        gpu = f"sys/class/devfreq/{g}" if g else ""
        gpu_ok = (
            bool(g)
            and _profile_names_gpu(t, tr.board, g)
            and not any(r.endswith(f"/{g}") for r in faulty)
            and not any(f"/{g}/" in r for r in tr.rivals)
        )
        names = policies(t)
        own = _policies_alone(t, tr, faulty) if not any("disjoint" in s for s in tr.shapes) else []
        pols = [f for f in own if f != f"{CPUFREQ}/{names[0]}"]  # cpu0's policy stays
        if not gpu_ok and not pols:
            # One-policy boards (a Pi): the one policy, its cpufreq driver probed late or
            # reloaded (``rmmod``/``modprobe``), when nothing else is there to take (session 23).
            pols = own[:1]
            self.counts["variant:only-policy"] += bool(pols)
            self._only_policy = bool(pols)
        wants_gpu = self._appear_variant.startswith("gpu")
        if (wants_gpu and not gpu_ok) or (not wants_gpu and not pols):
            self._appear_variant = APPEAR_OTHER[self._appear_variant]
            wants_gpu = not wants_gpu
        if wants_gpu:
            return (gpu, "max_freq") if gpu_ok else None
        return (rng.choice(pols), "scaling_max_freq") if pols else None

    def _appear(
        self, where: str, tmp: Path, appear: tuple[str, str], put_back: Callable[[], None], rng: random.Random
    ) -> None:
        """The entry taken away at start appears (after flickering in and out within a second, in
        the ``-flicker`` variants): judged, it is journaled before its first write and capped
        within the daemon's next looks (``hw/latedevfreq.py``, ``hw/lateclusters.py``)."""
        self.counts[f"variant:appear-{self._appear_variant}"] += 1
        entry, limit = appear
        root = tmp / "root"
        if self._appear_variant.endswith("flicker"):  # in and out within a second, then for good
            put_back()
            time.sleep(rng.uniform(0.05, 0.6))
            put_back = _take_away(root, entry, tmp)
            time.sleep(rng.uniform(0.0, 0.6))
        found = int((tmp / "stash-max").read_text())
        put_back()
        if self._only_policy:
            # The whole cpu domain absent at start: by design not waited for (hw/mapping.py,
            # ``offline_binding``: no cpufreq folder the profile names is a wrong profile or root
            # more often than a driver still loading); it must be left as found, never written.
            self.counts["variant:appear-whole-domain-left"] += 1
            time.sleep(2.2)
            now = int((root / entry / limit).read_text())
            if now != found:
                self.finding("appear-whole-domain-written", where, f"{entry}: {found} -> {now}")
            return
        late = self._wait_capped(tmp, {entry: found}, limit)
        if entry not in late:
            now = (root / entry / limit).read_text().strip()
            self.finding("appear-not-capped", where, f"{entry}: still {now} after {ONLINE_WAIT_S:g} s")
        elif late[entry]:
            self.finding("appear-written-before-journaled", where, f"{entry}: {late[entry]}")

    def _reprobe(self, where: str, tmp: Path, appear: tuple[str, str], rng: random.Random) -> None:
        """The entry, present and capped since start, removed and made again with new files
        holding the start's contents: after the daemon's next look saw it gone (the line it says),
        or within one look (``-flicker``, the daemon stopped meanwhile).  It must be capped again
        within the daemon's next looks, journaled first with the window found (hw/departures.py)."""
        self.counts[f"variant:reprobe-{self._appear_variant}"] += 1
        entry, limit = appear
        root = tmp / "root"
        files = self._start_files
        found = int(files[limit])
        if self._wait_capped(tmp, {entry: found}, limit).get(entry) is None:
            self.finding("reprobe-not-capped-at-start", where, entry)
            return
        folder = Path(os.path.realpath(root / entry))
        link = root / entry if (root / entry).is_symlink() else None
        target = os.readlink(link) if link is not None else ""
        flicker = self._appear_variant.endswith("flicker")
        pid = self._proc.pid
        # Made beside the old folder, while its files exist: new inodes for sure (tmpfs reuses a
        # freed inode number, and a file made again under the old number is the same file to
        # anyone, the daemon included).
        # Its subfolders too (a devfreq ``userspace/``), copied as they are; its attributes hold
        # the start's contents.
        new = folder.with_name(folder.name + ".probed")
        shutil.copytree(folder, new, symlinks=True)
        for name, data in files.items():
            (new / name).unlink()
            (new / name).write_bytes(data)
        if flicker:
            os.kill(pid, signal.SIGSTOP)  # no look in between: gone and back within one
        if link is not None:
            link.unlink()
        shutil.rmtree(folder)
        if not flicker:
            time.sleep(rng.uniform(1.1, 2.0))  # at least one look sees it gone
        new.rename(folder)
        if link is not None:
            link.symlink_to(target)
        if flicker:
            os.kill(pid, signal.SIGCONT)
        late = self._wait_capped(tmp, {entry: found}, limit)
        if entry not in late:
            now = (root / entry / limit).read_text().strip()
            self.finding("reprobe-not-capped", where, f"{entry}: still {now} after {ONLINE_WAIT_S:g} s")
        elif late[entry]:
            self.finding("reprobe-written-before-journaled", where, f"{entry}: {late[entry]}")

    def _signals(self, proc: subprocess.Popen[bytes], schedule: str, rng: random.Random) -> None:
        """Signals at random offsets (seeded), not only between ticks."""
        if schedule == "hup-then-term":  # SIGTERM while the reload is being applied
            proc.send_signal(signal.SIGHUP)
            time.sleep(rng.uniform(0.0, 0.15))
            proc.send_signal(signal.SIGTERM)
        elif schedule == "second-stop":  # a second stop while the first one restores
            proc.send_signal(rng.choice([signal.SIGTERM, signal.SIGINT]))
            time.sleep(rng.uniform(0.0, 0.05))
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(rng.choice([signal.SIGTERM, signal.SIGINT]))
        elif schedule == "hup-storm":
            for _ in range(rng.randint(5, 40)):
                proc.send_signal(signal.SIGHUP)
                time.sleep(rng.uniform(0.0, 0.01))
            proc.send_signal(signal.SIGTERM)

    def _stop_at_start_up(
        self, where: str, tr: Trial, tmp: Path, proc: subprocess.Popen[bytes], rng: random.Random, before
    ) -> None:
        """SIGTERM at a random instant of start-up (before or after the journal is written):
        exit 0 (restored) or 130 (before the daemon took the signal over), tree as before, no
        journal, at most one line."""
        time.sleep(rng.uniform(0.0, 1.5))
        proc.send_signal(rng.choice([signal.SIGTERM, signal.SIGINT]))
        _out, errb = proc.communicate(timeout=procutil.DEADLINE_S)
        err = errb.decode()
        where += " (term-at-start-up)"
        ok_rc = {0, 130} | ({2} if tr.refuse_reason or tr.read_only else set())
        if before_thermogov(proc.returncode, err):
            self.counts["variant:stopped-before-thermogov-ran"] += 1
        elif "Traceback" in err:
            self.finding("traceback", where, err[-400:])
        if proc.returncode not in ok_rc and not before_thermogov(proc.returncode, err):
            self.finding("exit-status", where, f"rc={proc.returncode} {err[-300:]}")
        diff = changed(before, snapshot(tmp / "root"))
        if diff:
            self.finding("not-restored", where, ", ".join(diff[:6]))
        if (tmp / "state/journal.json").exists():
            self.finding("journal-left", where, err[-200:])

    def _wait_started(self, proc: subprocess.Popen[bytes]) -> bool:
        try:
            procutil.wait_line(proc, "thermogov: started")
            return True
        except AssertionError:
            return False

    def _refused(self, where: str, tr: Trial, rc: int | None, err: str, before, after, tmp: Path) -> None:
        lines = err.strip().splitlines()
        if rc != 2 or len(lines) != 1 or "Traceback" in err:
            self.finding("refusal", where, f"rc={rc} lines={len(lines)} {err[-300:]}")
        elif not tr.refuse_reason and not tr.read_only and not any("disjoint" in s for s in tr.shapes):
            self.finding("refused-governable", where, lines[0][-300:])
        if changed(before, after) or (tmp / "state/journal.json").exists():
            self.finding("refusal-wrote", where, ", ".join(changed(before, after)[:5]))
        self.counts["refused"] += 1

    def _check_owned(self, where: str, tr: Trial, before, mid, tmp: Path) -> set[str]:
        """Checks what changed mid-run against the journal; returns the owned files (real paths)."""
        try:
            body = json.loads((tmp / "state/journal.json").read_text())
        except (OSError, ValueError):
            body = {"entries": [], "attrs": [], "states": []}
        owned = {e[k] for e in body.get("entries", []) for k in ("min_rel", "max_rel")}
        owned |= {a["rel"] for a in body.get("attrs", []) or []}
        owned |= {e["rel"] for e in body.get("states", []) or []}
        root = tmp / "root"
        real_owned = {str(Path(os.path.realpath(root / r)).relative_to(root.resolve())) for r in owned}
        outside = [k for k in changed(before, mid) if k not in real_owned and not _agent_file(k, tr)]
        if outside:
            self.finding("wrote-outside-owned", where, ", ".join(outside[:5]))
        if real_owned & tr.read_only:
            self.finding("owns-read-only", where, ", ".join(sorted(real_owned & tr.read_only)))
        if real_owned & tr.inactive:
            self.finding("owns-inactive", where, ", ".join(sorted(real_owned & tr.inactive)))
        # Every die sensor reads 92 °C, over the hysteresis trip: some governed max must be lower
        # now than at start (unless every one of them refuses its writes).
        maxes = [r for r in real_owned if r.endswith("max_freq")]
        faulty = {r for r, _ops, _code in tr.fault_rules}
        lowered = [r for r in maxes if mid.get(r, (b"", 0))[0] != before.get(r, (b"", 0))[0]]
        agent_raised = bool(tr.rivals & set(maxes))  # an agent may have raised one by now (its choice)
        if maxes and not lowered and not set(maxes) <= faulty and not agent_raised:
            self.finding("hot-board-not-capped", where, f"no max lowered of {len(maxes)}")
        return real_owned
        for r in owned:
            parts = r.split("/")
            if "cpufreq" in parts and not any(p in tr.governed_policies for p in parts):
                self.finding("owns-ungoverned", where, r)
            if "devfreq" in parts and "vic" in r:
                self.finding("owns-ungoverned", where, r)

    def _unplug(self, tmp: Path, tr: Trial, owned: set[str]) -> str:
        """A governed device goes away mid-run: its attributes answer EBUSY (a cpufreq policy
        whose CPUs all went offline; a devfreq device being unbound).  Returns its folder, ""
        when the daemon owns nothing (then the stop is an ordinary one)."""
        folders = sorted({str(Path(r).parent) for r in owned if Path(r).name in LIMITS})
        if not folders:
            return ""
        cpu = [f for f in folders if "/cpufreq/" in f]
        target = (cpu or folders)[-1]
        names = (
            ("scaling_min_freq", "scaling_max_freq") if "/cpufreq/" in target else ("min_freq", "max_freq")
        )
        cur = "scaling_cur_freq" if "/cpufreq/" in target else "cur_freq"
        rules = [*tr.fault_rules, *((f"{target}/{n}", "rw", 16) for n in names), (f"{target}/{cur}", "r", 16)]
        faultshim.write_rules(tmp / "faults", rules)
        return target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=1, help="Repeat the set of trees this many times.")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trees", type=int, default=12, help="Generated trees per round.")
    ap.add_argument("--paths", default="all", help=f"Comma-separated exit paths ({', '.join(EXIT_PATHS)}).")
    ap.add_argument("--only-tree", type=int, default=None, help="Replay one tree index of the seed.")
    ap.add_argument(
        "--shape",
        action="append",
        default=[],
        choices=[s.__name__ for s, _ in LATE_SHAPES],
        help="Put this late shape family on every tree (the others keep their draws).",
    )
    args = ap.parse_args()
    FORCED.update(args.shape)
    paths = EXIT_PATHS if args.paths == "all" else tuple(args.paths.split(","))
    shim = faultshim.build()
    if shim is None:
        print("no C compiler: the trees with failing reads/writes are skipped")
    isolated_runtime_dir()  # never the real /run/thermogov (tests/runtimedir.py)
    # Started in the background by a script (`bench ... &`), this process inherits SIGINT
    # ignored and so would every run it starts: a SIGINT landing before a run's first line is
    # then discarded by the kernel and the run governs for its whole duration (seed 5 tree 18,
    # session 19: a 60 s timeout, the harness's launch, not the daemon).  The runs get SIGINT
    # as a terminal gives it, at its default action.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    r = Runner(shim)
    t0 = time.monotonic()
    n = 0
    for rnd in range(args.rounds):
        for k in range(args.trees):
            if args.only_tree is not None and k != args.only_tree:
                continue
            for path in paths:
                # the same tree for every exit path: the seed decides the tree, not the path
                rng = random.Random(f"{args.seed}/{rnd}/{k}")
                with tempfile.TemporaryDirectory(prefix="tgshape-") as d:
                    try:
                        r.trial(Path(d), rng, path, f"seed {args.seed} round {rnd} tree {k}")
                    except (subprocess.TimeoutExpired, OSError, ValueError, AssertionError) as e:
                        r.finding("harness", f"round {rnd} tree {k} {path}", f"{type(e).__name__}: {e}")
                n += 1
    print(
        f"{n} tree x exit-path trials, {r.counts['runs']} runs, {r.counts['refused']} refused up front, "
        f"{time.monotonic() - t0:.0f} s (seed {args.seed})"
    )
    variants = sorted(
        (k.removeprefix("variant:"), c) for k, c in r.counts.items() if k.startswith("variant:")
    )
    if variants:
        print("variants: " + ", ".join(f"{k} {c}" for k, c in variants))
    kinds = Counter(f.split(" [", 1)[0] for f in r.findings)
    for kind, c in sorted(kinds.items()):
        print(f"finding {kind:<24} {c}")
    for f in r.findings:
        print("FAIL", f)
    return 0 if not r.findings else 1


if __name__ == "__main__":
    sys.exit(main())
