"""Session 29r: root-daemon safety, the items review 28r left (docs/hardware.md, "Session 29r").

Each case drives the installed ``thermogov`` script on a fake tree (tests/hw/fakesys.py) and
waits on the daemon's own lines (procutil.wait_line), never a sleep.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
from pathlib import Path

import pytest

import thermogov
from tests.hw import fakesys, procutil
from tests.hw.test_hw_review26 import EXITS, _exit

CPU = "sys/devices/system/cpu/cpufreq"
GPU_MAX = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu/max_freq"


def _plant_file(p: Path, tmp: Path) -> str:
    """Another regular file at the path: made beside the owned one while it still exists (a new
    inode, whatever the file system reuses), then renamed over it."""
    planted = "1113600\n"
    new = p.with_name(p.name + ".planted")
    new.write_text(planted)
    os.replace(new, p)
    return planted


def _plant_link(p: Path, tmp: Path) -> str:
    outside = tmp / "outside.txt"
    outside.write_text("precious\n")
    swap = p.with_name(p.name + ".swap")
    swap.symlink_to(outside)
    os.replace(swap, p)
    return "precious\n"


@pytest.mark.parametrize(
    ("attr", "plant"),
    [
        ("scaling_min_freq", _plant_file),
        ("scaling_max_freq", _plant_file),
        ("scaling_min_freq", _plant_link),
    ],
    ids=["min-another-file", "max-another-file", "min-link-out"],
)
def test_a_limit_refused_mid_run_is_the_failsafe_at_once_and_restore_skips_it(
    tmp_path: Path, attr: str, plant: object
) -> None:
    """One owned limit of a member (policy4 of the Orin Nano's two-policy ``cpu`` domain)
    no longer the file owned while its twin still is: not the kernel's way (a folder made
    again whole), so the confinement refusal (hw/confine.py), which says "failsafe".  On a
    cool board held at its top caps the failsafe must follow at once, not at the governor's
    next cap decision (main acf49c0: "limits unreadable ... written again when it is back",
    policy0 and the GPU left at their top for the rest of the run).  The exit restores every
    file still owned, writes nothing to the refused one (nor through a link), exits 1."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)  # cool: 50 °C
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    p0_max = t.root / CPU / "policy0/scaling_max_freq"
    top_p0, top_gpu = int(p0_max.read_text()), int((t.root / GPU_MAX).read_text())
    assert top_p0 == max(fakesys.ORIN_NANO_CPU_KHZ), "a cool board runs at its top caps"
    target = t.root / CPU / "policy4" / attr
    assert callable(plant)
    planted = plant(target, tmp_path)
    line = procutil.wait_line(proc, "policy4:", stream="stderr")
    assert "since start-up" in line, line
    assert "failsafe for the rest of the run" in line, line
    # the failsafe in force once the line is said: the domain's other member and the GPU lowest
    assert int(p0_max.read_text()) < top_p0, "policy0 held at the domain's lowest cap"
    assert int((t.root / GPU_MAX).read_text()) < top_gpu, "every other domain at its lowest cap"
    proc.send_signal(signal.SIGTERM)
    _out, raw = proc.communicate(timeout=procutil.DEADLINE_S)
    err = raw.decode()
    assert "Traceback" not in err
    assert proc.returncode == 1, err
    assert "restore incomplete" in err and f"policy4/{attr}" in err, err
    after = t.snapshot()
    rel = f"{CPU}/policy4/{attr}"
    assert {k: v for k, v in after.items() if k != rel} == {k: v for k, v in before.items() if k != rel}
    shown = (tmp_path / "outside.txt") if plant is _plant_link else target
    assert shown.read_text() == planted, "nothing written to the refused file"


# -- (4) an nvpmodel mode change mid-run into a Super mismatch: noticed and said once, read only ---
def _conf(*names: str) -> str:
    """An nvpmodel.conf with one CPU param and a POWER_MODEL per name (ID = its index)."""
    head = f"< PARAM TYPE=CLOCK NAME=CPU_A78_0 >\nMAX_FREQ /{CPU}/policy0/scaling_max_freq\n"
    return head + "".join(
        f"< POWER_MODEL ID={i} NAME={n} >\nCPU_A78_0 MAX_FREQ -1\n" for i, n in enumerate(names)
    )


def test_a_super_mode_set_mid_run_under_a_profile_that_is_not_is_said_once(tmp_path: Path) -> None:
    """The plain Orin Nano profile on Super firmware in its 25 W mode (its own board: nothing said
    at start), then ``nvpmodel -m 2`` (MAXN_SUPER) mid-run: one line naming the mode and the Super
    profile; back to 15 W and to MAXN_SUPER again says nothing more.  The status and configuration
    are never written.  Main acf49c0: the mode was judged at start only (no line)."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    t.write("etc/nvpmodel.conf", _conf("15W", "25W", "MAXN_SUPER", "7W"))
    status = t.root / "var/lib/nvpmodel/status"
    t.write("var/lib/nvpmodel/status", "pmode:0001 fmode:quiet\n")
    proc = procutil.start_run(tmp_path, "--board", "jetson-orin-nano", "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    status.write_text("pmode:0002 fmode:quiet\n")
    line = procutil.wait_line(proc, "MAXN_SUPER", stream="stderr")
    assert "from 1 to 2 during the run" in line and "jetson-orin-nano-super" in line, line
    status.write_text("pmode:0000 fmode:quiet\n")
    status.write_text("pmode:0002 fmode:quiet\n")
    conf = (t.root / "etc/nvpmodel.conf").read_text()
    err = procutil.stopped(proc)
    assert "Super" not in err.replace("MAXN_SUPER", ""), "said once: " + err[-1500:]
    assert status.read_text() == "pmode:0002 fmode:quiet\n"
    assert (t.root / "etc/nvpmodel.conf").read_text() == conf


# -- (2) a pack the profile prefers appearing while another is read: the start's rule decides ------
def test_a_pack_the_profile_names_appearing_mid_run_replaces_the_one_read(tmp_path: Path) -> None:
    """BAT0 (charging) read from the start; BAT1, the one the profile's battery sensor names,
    appears (discharging): by the start's rule (hw/power.py ``battery_order``) BAT1's status is
    the power state from that read on, said once, in the same tick the sensor fuses its
    temperature.  Main acf49c0: BAT0 kept the state for the run (charging, while BAT1's
    temperature was fused), and no line named BAT1 as the power state."""
    text = (Path(thermogov.__file__).parent / "boards" / "jetson-orin-nano.toml").read_text()
    marker = "sysfs_names = []             # any power_supply of type Battery"
    assert marker in text
    board = tmp_path / "two-packs.toml"
    board.write_text(text.replace(marker, 'sysfs_names = ["BAT1"]'))
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    t.supply(
        "BAT0",
        "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Charging\nPOWER_SUPPLY_CAPACITY=20",
        temp_decic=300,
    )
    proc = procutil.start_run(tmp_path, "--board", str(board), "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    t.supply(
        "BAT1",
        "POWER_SUPPLY_NAME=BAT1\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=70",
        temp_decic=310,
    )
    line = procutil.wait_line(proc, "power supply BAT1", stream="stderr")
    assert "power state now" in line and "BAT0" in line, line
    err = procutil.stopped(proc)
    assert "power supply BAT1" not in err, "said once: " + err[-1500:]
    (trace,) = (tmp_path / "out").glob("*/trace.csv")
    events = trace.read_text()
    # the tick that read BAT1 first recorded its state (a poll reads in the tick it rescans)
    assert "power:charging" in events and "power:discharging" in events, events[-1500:]


# -- (3) a profile with two cpufreq domains: a new unnamed policy joins the one whose table it is ---
LITTLE_KHZ = (729600, 806400, 883200, 960000)


def _two_cpu_domains(tmp: Path) -> Path:
    """jetson-orin-nano's profile with its CPU described as two domains (big.LITTLE apart): ``cpu``
    naming policy0 with the profile's OPPs, ``cpub`` naming policy4 with four OPPs of its own."""
    text = (Path(thermogov.__file__).parent / "boards" / "jetson-orin-nano.toml").read_text()
    i = text.index("[domains.cpu]")
    j = text.index("\n\n", i)
    block = text[i:j]
    assert 'sysfs_names = ["policy0", "policy4"]' in block and "cores = 6" in block
    big = block.replace('["policy0", "policy4"]', '["policy0"]').replace("cores = 6", "cores = 4")
    little = block.replace("[domains.cpu]", "[domains.cpub]").replace('["policy0", "policy4"]', '["policy4"]')
    little = re.sub(r"opp_mhz = \[[^\]]*\]", f"opp_mhz = {[k / 1000 for k in LITTLE_KHZ]}", little)
    little = re.sub(r"volt_v = \[[^\]]*\]", "volt_v = [0.7056, 0.7167, 0.7278, 0.7389]", little)
    path = tmp / "two-cpu-domains.toml"
    path.write_text(text[:i] + big + "\n\n" + little.replace("cores = 6", "cores = 2") + text[j:])
    return path


@pytest.mark.parametrize("how", EXITS)
def test_under_two_cpu_domains_a_new_policy_joins_the_one_whose_table_it_offers(
    tmp_path: Path, how: str
) -> None:
    """A hot board whose profile describes two cpufreq domains; mid-run ``policy6`` (the little
    cluster's table exactly) and ``policy7`` (a table no domain has) appear, no domain naming
    either.  policy6 joins ``cpub``: journaled, capped with it, put back as it appeared on every
    exit path; policy7 is said once and never written.  Main acf49c0: such a profile took no new
    folder (hw/lateclusters.py looked for unnamed ones under one cpufreq domain only): policy6
    ran at full clock on the hot board, nothing said of either."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=92000, gpu_mc=92000)
    for c in (4, 5):
        (t.root / f"sys/devices/system/cpu/cpu{c}/cpufreq").unlink()
    shutil.rmtree(t.root / CPU / "policy4")
    t.policy(4, [4, 5], LITTLE_KHZ)
    before_start = t.snapshot()
    proc = procutil.start_run(tmp_path, "--board", str(_two_cpu_domains(tmp_path)), "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    t.policy(6, [6], LITTLE_KHZ)
    t.policy(7, [7], (729600, 1113600))
    late = (f"{CPU}/policy6", f"{CPU}/policy7", "sys/devices/system/cpu/cpu6", "sys/devices/system/cpu/cpu7")
    appeared = {k: v for k, v in t.snapshot().items() if k.startswith(late)}
    joined = procutil.wait_line(proc, "policy6", stream="stderr")
    assert "domain cpub" in joined, joined
    left = procutil.wait_line(proc, "policy7", stream="stderr")
    assert "left alone" in left and "matches no cpufreq domain" in left, left
    assert t.read_int(f"{CPU}/policy6/scaling_max_freq") < max(LITTLE_KHZ), "capped with cpub (hot)"
    assert t.read_int(f"{CPU}/policy7/scaling_max_freq") == 1113600
    said = _exit(proc, tmp_path, how)
    assert "Traceback" not in said and "policy7" not in said, said[-1500:]
    after = t.snapshot()
    assert {k: v for k, v in after.items() if k.startswith(late)} == appeared, said[-1500:]
    assert {k: v for k, v in after.items() if not k.startswith(late)} == before_start, said[-1500:]
