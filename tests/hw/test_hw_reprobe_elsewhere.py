"""A member made again somewhere else than its own folder is never adopted (review 20r (d)).

The kernel makes a re-probed member where it was: a devfreq device's folder under its parent
device (which an unbind keeps), its class entry a link to it named alike; a cpufreq policy as
the directory ``cpufreq/policyN`` itself, never a link.  Once the member that went away was
forgotten (its resolutions dropped so the new entry meets the root check afresh), an entry
made again as a link *inside* the root to another folder passed: a policy linked to another
governed policy's folder was adopted, both domains' members then one file journaled twice;
a GPU entry linked to a copy of its folder elsewhere was adopted and capped there.  Each case
drives the installed script on a hot Orin Nano and waits on the daemon's own lines.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.discovery import read_policy
from thermogov.hw.sysfs import SysfsTree

HOT_MC = 92000
CPUFREQ = "sys/devices/system/cpu/cpufreq"
P0, P4 = f"{CPUFREQ}/policy0", f"{CPUFREQ}/policy4"
GPU = "sys/class/devfreq/17000000.gpu"
GPU_DEV = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"


def _journaled(tmp: Path) -> dict[str, tuple[str, int]]:
    entries = json.loads((tmp / "state" / "journal.json").read_text())["entries"]
    return {e["label"]: (e["max_rel"], e["max"]) for e in entries}


def _hot(tmp: Path) -> fakesys.FakeTree:
    return fakesys.orin_nano(tmp / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)


def _started(tmp: Path) -> subprocess.Popen[bytes]:
    proc = procutil.start_run(tmp, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    return proc


def _copy_elsewhere(t: fakesys.FakeTree, rel: str, where: str) -> Path:
    """The member's folder copied (its defaults) to ``where`` under the root, the original removed."""
    out = t.root / where
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(t.root / rel, out, symlinks=True)
    shutil.rmtree(t.root / rel)
    return out


def _mine(snap: dict[str, bytes | str], *prefixes: str) -> dict[str, bytes | str]:
    return {k: v for k, v in snap.items() if k.startswith(prefixes)}


@pytest.mark.parametrize("target", ["another-governed-policy", "a-copy-elsewhere"])
def test_a_policy_made_again_as_a_link_to_another_folder_is_left_alone(tmp_path: Path, target: str) -> None:
    t = _hot(tmp_path)
    before = t.snapshot()
    proc = _started(tmp_path)
    assert set(_journaled(tmp_path)) >= {"policy0", "policy4"}
    if target == "another-governed-policy":
        shutil.rmtree(t.root / P4)  # the driver unloaded ...
        procutil.wait_line(proc, "policy4 went away", stream="stderr")
        (t.root / P4).symlink_to("policy0")  # ... and policy4 made again as policy0's folder
    else:
        _copy_elsewhere(t, P4, "sys/kernel/policy4")
        procutil.wait_line(proc, "policy4 went away", stream="stderr")
        (t.root / P4).symlink_to("../../../../kernel/policy4")
    # Before: "policy4 appeared again with ...: journaled, capped with domain cpu"
    line = procutil.wait_line(proc, "policy4", stream="stderr")
    assert "left alone" in line and "its own folder" in line, line
    assert "policy4" not in _journaled(tmp_path)
    assert _journaled(tmp_path)["policy0"][0] == f"{P0}/scaling_max_freq"
    capped = t.snapshot()
    err = procutil.stopped(proc)
    assert "limits restored" in err
    after = t.snapshot()
    assert _mine(after, P0) == _mine(before, P0), "policy0 restored, once"
    assert _mine(after, "sys/kernel") == _mine(capped, "sys/kernel"), "nothing written elsewhere"


def test_a_gpu_made_again_as_a_link_to_a_copy_elsewhere_in_the_root_is_left_alone(tmp_path: Path) -> None:
    t = _hot(tmp_path)
    proc = _started(tmp_path)
    link = t.root / GPU
    link.unlink()  # unbound ...
    # a copy under sys/devices (one outside it is no device's at all: test_hw_devfreq_outside_devices)
    out = _copy_elsewhere(t, GPU_DEV, "sys/devices/platform/copy/17000000.gpu")
    procutil.wait_line(proc, "17000000.gpu went away", stream="stderr")
    link.symlink_to(os.path.relpath(out, link.parent))  # ... its entry made again, elsewhere
    found = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    # Before: "17000000.gpu appeared again with ...: journaled, capped with domain gpu"
    line = procutil.wait_line(proc, "17000000.gpu", stream="stderr")
    assert "left alone" in line and "where it was" in line, line
    assert "17000000.gpu" not in _journaled(tmp_path)
    err = procutil.stopped(proc)
    assert "limits restored" in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == found, "nothing written there"


def test_a_policy_folder_that_is_a_link_is_not_its_own_at_start(tmp_path: Path) -> None:
    # The start's rule (discovery, as for a devfreq entry since session 20c): the kernel makes a
    # policy as the directory cpufreq/policyN, never a link.  Before, policy4 linked to policy0
    # was governed as a second member journaling policy0's files (and said "lowered by another
    # writer" of its own cap); now it is left alone, named, like a read-only policy.
    t = _hot(tmp_path)
    shutil.rmtree(t.root / P4)
    (t.root / P4).symlink_to("policy0")
    tree = SysfsTree(t.root)
    assert "its own folder" in read_policy(tree, "policy4").not_own
    assert not read_policy(tree, "policy0").not_own
    before = t.snapshot()
    proc = _started(tmp_path)
    assert set(_journaled(tmp_path)) == {"policy0", "17000000.gpu"}
    assert int((t.root / P0 / "scaling_max_freq").read_text()) < max(fakesys.ORIN_NANO_CPU_KHZ)
    err = procutil.stopped(proc)
    assert "its own folder" in err and "another writer" not in err
    assert t.snapshot() == before


def test_a_file_owned_for_one_member_is_not_ownable_for_another(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    tree = SysfsTree(t.root)
    rel = f"{P0}/scaling_max_freq"
    assert tree.taken(rel) == ""
    tree.own(rel)
    assert "already governs for another member" in tree.taken(rel)
