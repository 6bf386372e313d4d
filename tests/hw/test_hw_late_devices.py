"""A GPU (devfreq) and a cpufreq policy the tree lacks at start, governed once they appear.

Session 18 left two cases missing until a restart: a Jetson GPU whose ``/sys/class/devfreq``
entry appears only once its driver probes (after the unit started at boot), and a cpufreq
policy whose folder does not exist yet (a driver loaded as a module).  Each case starts a hot
Orin Nano (JetPack 6: ``17000000.gpu``) through the installed script with the entry taken out
of the tree, puts it back mid-run and waits on the daemon's own stderr line, never on a sleep.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

HOT_MC = 92000
GPU = "sys/class/devfreq/17000000.gpu"
GPU_DEV = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"
P4 = "sys/devices/system/cpu/cpufreq/policy4"


def _hot_orin(tmp: Path) -> fakesys.FakeTree:
    return fakesys.orin_nano(tmp / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)


def _unbound(t: fakesys.FakeTree, rel: str = GPU) -> str:
    """The class link taken out (the GPU driver not probed yet); its target, to put back."""
    link = t.root / rel
    target = os.readlink(link)
    link.unlink()
    return target


def _journaled(tmp: Path) -> dict[str, int]:
    entries = json.loads((tmp / "state" / "journal.json").read_text())["entries"]
    return {e["label"]: e["max"] for e in entries}


def _gpu_max(t: fakesys.FakeTree) -> int:
    return int((t.root / GPU_DEV / "max_freq").read_text())


def _started(tmp: Path) -> subprocess.Popen[bytes]:
    proc = procutil.start_run(tmp, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    return proc


def _gpu_appears(tmp: Path, t: fakesys.FakeTree, target: str) -> subprocess.Popen[bytes]:
    proc = _started(tmp)
    assert "17000000.gpu" not in _journaled(tmp)
    (t.root / GPU).symlink_to(target)
    procutil.wait_line(proc, "17000000.gpu appeared with", stream="stderr")
    return proc


def test_a_gpu_that_appears_after_start_is_journaled_capped_and_restored(tmp_path: Path) -> None:
    # Before: "domain gpu is not governed (no devfreq device ga10b/gpu ...)", and the GPU kept
    # the kernel's 625 MHz at 92 °C once its driver probed, for the rest of the run.
    t = _hot_orin(tmp_path)
    before = t.snapshot()
    top = _gpu_max(t)
    target = _unbound(t)
    proc = _gpu_appears(tmp_path, t, target)
    assert _journaled(tmp_path)["17000000.gpu"] == top, "its window of before, journaled"
    assert _gpu_max(t) < top, "capped with the decision held meanwhile"
    err = procutil.stopped(proc)
    assert "limits restored" in err
    assert t.snapshot() == before


def test_after_kill_9_a_restore_puts_back_the_gpu_that_appeared(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    before = t.snapshot()
    proc = _gpu_appears(tmp_path, t, _unbound(t))
    assert _gpu_max(t) < max(fakesys.ORIN_NANO_GPU_HZ)
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0, r.stderr
    assert t.snapshot() == before


def test_the_start_says_the_gpu_is_awaited_and_a_run_without_it_is_no_failure(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    _unbound(t)
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    err = procutil.stopped(proc)
    assert "domain gpu: no device named ga10b/gpu is here yet; governed once it appears" in err
    assert t.snapshot() == before
    r = procutil.run_cli("doctor", "--sysfs-root", str(t.root))
    assert r.returncode == 0, r.stderr
    assert "governs it once a device named ga10b/gpu appears" in r.stdout


def test_a_policy_absent_at_start_is_governed_once_its_folder_appears(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    before = t.snapshot()
    top = int((t.root / P4 / "scaling_max_freq").read_text())
    stash = tmp_path / "policy4"
    shutil.move(t.root / P4, stash)  # a cpufreq driver loaded after the unit started
    proc = _started(tmp_path)
    assert "policy4" not in _journaled(tmp_path)
    shutil.move(stash, t.root / P4)
    procutil.wait_line(proc, "policy4 appeared with", stream="stderr")
    assert _journaled(tmp_path)["policy4"] == top
    assert int((t.root / P4 / "scaling_max_freq").read_text()) < top
    procutil.stopped(proc)
    assert t.snapshot() == before


def test_a_devfreq_device_of_another_name_is_never_adopted(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    t.devfreq("sys/devices/15480000.nvdec", "15480000.nvdec", "nvdec", (115200000, 716800000))
    before = t.snapshot()
    gpu = _unbound(t)
    other = _unbound(t, "sys/class/devfreq/15480000.nvdec")
    proc = _started(tmp_path)
    (t.root / "sys/class/devfreq/15480000.nvdec").symlink_to(other)  # another engine probes first
    (t.root / GPU).symlink_to(gpu)
    procutil.wait_line(proc, "17000000.gpu appeared with", stream="stderr")
    assert "15480000.nvdec" not in _journaled(tmp_path)
    assert (
        t.root / "sys/devices/15480000.nvdec/devfreq/15480000.nvdec/max_freq"
    ).read_text() == "716800000\n"
    err = procutil.stopped(proc)
    assert "nvdec" not in err
    assert t.snapshot() == before


def _outside(t: fakesys.FakeTree, tmp: Path) -> Path:
    """The GPU's class link pointing out of the root, at a copy of its folder."""
    out = tmp / "outside" / "17000000.gpu"
    shutil.copytree(t.root / GPU_DEV, out, symlinks=True)
    (t.root / GPU).symlink_to(out)
    return out


@pytest.mark.parametrize(
    ("hostile", "why"),
    [
        ("outside", "outside the sysfs root"),
        ("min-above-max", "is above the max"),
        ("garbage-max", "not a whole number"),
        ("no-shared-opp", "shares no OPP"),
    ],
)
def test_a_gpu_that_appears_hostile_is_left_alone_and_named(tmp_path: Path, hostile: str, why: str) -> None:
    t = _hot_orin(tmp_path)
    target = _unbound(t)
    if hostile == "min-above-max":
        t.write(f"{GPU_DEV}/min_freq", 625000000)
        t.write(f"{GPU_DEV}/max_freq", 306000000)
    elif hostile == "garbage-max":
        t.write(f"{GPU_DEV}/max_freq", "nvgpu\n")
    elif hostile == "no-shared-opp":
        t.write(f"{GPU_DEV}/available_frequencies", "1000 2000\n")
    before = t.snapshot()
    proc = _started(tmp_path)
    outside = _outside(t, tmp_path) if hostile == "outside" else None
    outside_before = {p.name: p.read_bytes() for p in outside.iterdir() if p.is_file()} if outside else {}
    if outside is None:
        (t.root / GPU).symlink_to(target)
    line = procutil.wait_line(proc, "17000000.gpu appeared but is left alone", stream="stderr")
    assert why in line
    assert "17000000.gpu" not in _journaled(tmp_path)
    procutil.stopped(proc)
    (t.root / GPU).unlink()
    assert t.snapshot() == before, "nothing written to the device left alone"
    if outside is not None:
        assert {p.name: p.read_bytes() for p in outside.iterdir() if p.is_file()} == outside_before


def test_a_folder_made_before_its_attributes_is_adopted_once_they_are_there(tmp_path: Path) -> None:
    # The kernel makes a device's folder, then its files: a look between the two must neither
    # leave the GPU alone for good nor adopt half a device.
    t = _hot_orin(tmp_path)
    files = {p.name: p.read_bytes() for p in (t.root / GPU_DEV).iterdir() if p.is_file()}
    _unbound(t)
    proc = _started(tmp_path)
    (t.root / GPU).mkdir()
    procutil.wait_line(proc, "17000000.gpu appeared without", stream="stderr")
    for name, data in files.items():
        (t.root / GPU / name).write_bytes(data)
    procutil.wait_line(proc, "17000000.gpu appeared with", stream="stderr")
    assert int((t.root / GPU / "max_freq").read_text()) < max(fakesys.ORIN_NANO_GPU_HZ)
    procutil.stopped(proc)
    assert {p.name: p.read_bytes() for p in (t.root / GPU).iterdir()} == files


def test_a_board_none_of_whose_domains_is_there_yet_is_still_refused(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    _unbound(t)
    for p in ("policy0", "policy4"):
        shutil.rmtree(t.root / "sys/devices/system/cpu/cpufreq" / p)
    before = t.snapshot()
    r = procutil.run_cli("run", *procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "1s")
    assert r.returncode == 2, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert "none of its domains exists here" in line
    assert t.snapshot() == before


def test_a_path_read_while_absent_is_checked_again_when_a_link_out_of_the_root_appears(
    tmp_path: Path,
) -> None:
    # The daemon reads a waited-for attribute while it does not exist; a link that appears later
    # must meet the root check like any other, not be followed through a lexical memo.
    t = _hot_orin(tmp_path)
    _unbound(t)
    tree = SysfsTree(t.root)
    with pytest.raises(SensorError):
        tree.read_int(f"{GPU}/max_freq")
    _outside(t, tmp_path)
    with pytest.raises(SensorError, match="outside the sysfs root"):
        tree.read_int(f"{GPU}/max_freq")


def test_a_gpu_unbound_and_probed_again_is_no_failure_and_is_capped_again(tmp_path: Path) -> None:
    # The driver reloaded: the device's files are new ones under the same names.  Before, the
    # new files were refused as "replaced since start-up": the GPU ran uncapped, the exit failed.
    t = _hot_orin(tmp_path)
    before = t.snapshot()
    files = {p.name: p.read_bytes() for p in (t.root / GPU_DEV).iterdir() if p.is_file()}
    proc = _gpu_appears(tmp_path, t, _unbound(t))
    for name, data in files.items():  # made while the old ones exist: other inodes for sure
        (t.root / GPU_DEV / f"{name}.new").write_bytes(data)  # (tmpfs reuses a freed number)
    for name in files:
        (t.root / GPU_DEV / f"{name}.new").rename(t.root / GPU_DEV / name)
    procutil.wait_line(proc, "17000000.gpu went away", stream="stderr")
    procutil.wait_line(proc, "17000000.gpu appeared again with", stream="stderr")
    assert _gpu_max(t) < max(fakesys.ORIN_NANO_GPU_HZ)
    assert _journaled(tmp_path)["17000000.gpu"] == max(fakesys.ORIN_NANO_GPU_HZ)
    procutil.stopped(proc)
    assert t.snapshot() == before


def test_a_dry_run_says_what_it_would_write_to_a_gpu_that_appears_and_writes_nothing(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    target = _unbound(t)
    proc = procutil.start_run(tmp_path, "--duration", "120s", "--dry-run")
    procutil.wait_line(proc, "thermogov: started")
    (t.root / GPU).symlink_to(target)
    before = t.snapshot()
    procutil.wait_line(proc, "17000000.gpu appeared with", stream="stderr")
    procutil.stopped(proc)
    assert t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()
