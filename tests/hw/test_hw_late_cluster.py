"""A cluster offline at start that comes online mid-run (hw/lateclusters.py), through the installed script.

Session 16 skipped a policy whose CPUs were all offline at start (every attribute EBUSY); when
its CPUs came back (an nvpmodel mode with more cores) it ran at the kernel's limits, full clock
on a hot board, until thermogov restarted.  Each case starts a hot Orin Nano with ``policy4``
inactive (the fault shim answers EBUSY from all its attributes), takes the faults away (its
CPUs back online) and waits on the daemon's own stderr line, never on a sleep.
"""

from __future__ import annotations

import errno
import json
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil

CPUFREQ = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPUFREQ}/policy0"
P4 = f"{CPUFREQ}/policy4"
HOT_MC = 92000
LIMITS = ("scaling_min_freq", "scaling_max_freq", "scaling_cur_freq")


def _inactive(root: Path, policies: tuple[str, ...]) -> list[tuple[str, str, int]]:
    """What an inactive policy answers: EBUSY from every attribute's show() and store()."""
    return [
        (f"{p}/{name}", "rw", errno.EBUSY)
        for p in policies
        for name in sorted(x.name for x in (root / p).iterdir())
    ]


def hot_orin_offline(tmp: Path, shim: Path, *policies: str) -> tuple[fakesys.FakeTree, dict[str, str]]:
    """A hot Orin Nano whose ``policies`` (cpufreq folders) are inactive through the fault shim."""
    t = fakesys.orin_nano(tmp / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    faultshim.write_rules(tmp / "faults", _inactive(t.root, policies))
    return t, faultshim.env(shim, tmp / "faults", t.root)


def _hot_orin_policy4_offline(tmp: Path, shim: Path) -> tuple[fakesys.FakeTree, dict[str, str]]:
    return hot_orin_offline(tmp, shim, P4)


def _max(t: fakesys.FakeTree, policy: str) -> int:
    return int((t.root / policy / "scaling_max_freq").read_text())


def _journaled(tmp: Path) -> list[str]:
    return sorted(e["label"] for e in json.loads((tmp / "state" / "journal.json").read_text())["entries"])


def _started_then_online(tmp: Path, t: fakesys.FakeTree, env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = procutil.start_run(tmp, "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    assert _max(t, P0) < max(fakesys.ORIN_NANO_CPU_KHZ), "policy0 is capped on the hot board"
    assert "policy4" not in _journaled(tmp)
    back_online(tmp, proc, "policy4")
    return proc


def back_online(tmp: Path, proc: subprocess.Popen[bytes], *policies: str) -> None:
    """The fault shim's EBUSY taken away (a CPU of each policy back online), then each policy's
    ``came online`` line waited for."""
    faultshim.write_rules(tmp / "faults", [])
    for name in policies:
        procutil.wait_line(proc, f"{name} came online", stream="stderr")


def killed_then_restored(tmp: Path, proc: subprocess.Popen[bytes], env: dict[str, str]) -> None:
    """``kill -9`` the daemon, then ``thermogov restore`` from its journal (exit 0)."""
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    r = procutil.run_cli("restore", *procutil.paths(tmp), env=env)
    assert r.returncode == 0, r.stderr


def test_a_cluster_coming_online_is_journaled_capped_like_the_others_and_restored(
    tmp_path: Path, shim: Path
) -> None:
    # Before: policy4 kept its 1510.4 MHz (the kernel's) for the rest of the run at 92 °C.
    t, env = _hot_orin_policy4_offline(tmp_path, shim)
    before = t.snapshot()
    found = _max(t, P4)
    proc = _started_then_online(tmp_path, t, env)
    assert "policy4" in _journaled(tmp_path)
    entry = next(
        e
        for e in json.loads((tmp_path / "state" / "journal.json").read_text())["entries"]
        if e["label"] == "policy4"
    )
    assert entry["max"] == found, "the window of before is what the journal keeps, not the cap"
    assert _max(t, P4) == _max(t, P0) < found, "capped with its domain"
    err = procutil.stopped(proc)
    assert "limits restored" in err
    assert t.snapshot() == before


def test_after_kill_9_the_next_start_restores_the_cluster_that_came_online(
    tmp_path: Path, shim: Path
) -> None:
    t, env = _hot_orin_policy4_offline(tmp_path, shim)
    before = t.snapshot()
    proc = _started_then_online(tmp_path, t, env)
    assert _max(t, P4) < int((t.root / P4 / "cpuinfo_max_freq").read_text())
    killed_then_restored(tmp_path, proc, env)
    assert t.snapshot() == before


def test_the_cluster_going_offline_again_is_no_failure_and_is_capped_again_when_back(
    tmp_path: Path, shim: Path
) -> None:
    t, env = _hot_orin_policy4_offline(tmp_path, shim)
    before = t.snapshot()
    proc = _started_then_online(tmp_path, t, env)
    capped = _max(t, P4)
    faultshim.write_rules(tmp_path / "faults", [(f"{P4}/{n}", "rw", errno.EBUSY) for n in LIMITS])
    procutil.wait_line(proc, "policy4: limits unreadable", stream="stderr")
    for limit, info in (("scaling_min_freq", "cpuinfo_min_freq"), ("scaling_max_freq", "cpuinfo_max_freq")):
        t.write(f"{P4}/{limit}", int((t.root / P4 / info).read_text()))  # a re-created policy's limits
    faultshim.write_rules(tmp_path / "faults", [])
    procutil.wait_line(proc, "policy4 came back", stream="stderr")
    assert _max(t, P4) == capped
    procutil.stopped(proc)
    assert t.snapshot() == before


def test_a_dry_run_says_what_it_would_write_to_a_cluster_coming_online_and_writes_nothing(
    tmp_path: Path, shim: Path
) -> None:
    t, env = _hot_orin_policy4_offline(tmp_path, shim)
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--dry-run", "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    faultshim.write_rules(tmp_path / "faults", [])
    procutil.wait_line(proc, "policy4 came online", stream="stderr")
    procutil.stopped(proc)
    assert t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()


@pytest.mark.parametrize(
    ("limit", "content", "said", "why"),
    [
        # The start's rule (hw/limits.py check_limits_in_force) holds for a late cluster too: its
        # window is what a restore would write back, so a 0 kHz min is neither journaled nor owned.
        (
            "scaling_min_freq",
            "0\n",
            "policy4 came online but is left alone",
            "not a frequency limit the kernel shows",
        ),
        # EBUSY is the kernel's answer for an offline policy; a word where a frequency should be
        # is not, so the cluster's staying ungoverned is said instead of left silent.
        ("scaling_max_freq", "performance\n", "policy4 is left ungoverned", "scaling_max_freq"),
        # The same of its min, read once the max reads (session 19: silent before).
        ("scaling_min_freq", "powersave\n", "policy4 is left ungoverned", "scaling_min_freq"),
    ],
)
def test_a_cluster_coming_online_with_a_limit_no_kernel_shows_is_left_alone_and_named(
    tmp_path: Path, shim: Path, limit: str, content: str, said: str, why: str
) -> None:
    t, env = _hot_orin_policy4_offline(tmp_path, shim)
    proc = procutil.start_run(tmp_path, "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    (t.root / P4 / limit).write_text(content)
    before = t.snapshot()
    faultshim.write_rules(tmp_path / "faults", [])
    line = procutil.wait_line(proc, said, stream="stderr")
    assert why in line
    assert "policy4" not in _journaled(tmp_path)
    procutil.stopped(proc)
    after = t.snapshot()
    assert {k: v for k, v in after.items() if k.startswith(P4)} == {
        k: v for k, v in before.items() if k.startswith(P4)
    }, "nothing written to the cluster left alone"


def _max_linked_in_the_root(t: fakesys.FakeTree, tmp: Path) -> None:
    """``scaling_max_freq`` swapped for a link to another file under the root (resolved inside)."""
    t.write("sys/kernel/planted_max", "1510400\n")
    (t.root / P4 / "scaling_max_freq").unlink()
    (t.root / P4 / "scaling_max_freq").symlink_to("../../../../../kernel/planted_max")


def _max_linked_out_of_the_root(t: fakesys.FakeTree, tmp: Path) -> None:
    (tmp / "outside_max").write_text("1510400\n")
    (t.root / P4 / "scaling_max_freq").unlink()
    (t.root / P4 / "scaling_max_freq").symlink_to(tmp / "outside_max")


def _folder_swapped_for_a_link(t: fakesys.FakeTree, tmp: Path) -> None:
    """The policy's folder moved elsewhere under the root and linked back: each attribute is a
    file, but not the one its path named when first read."""
    (t.root / "sys/kernel").mkdir(parents=True, exist_ok=True)
    (t.root / P4).rename(t.root / "sys/kernel/policy4")
    (t.root / P4).symlink_to("../../../../kernel/policy4")


def _min_above_max(t: fakesys.FakeTree, tmp: Path) -> None:
    t.write(f"{P4}/scaling_max_freq", 729600)
    t.write(f"{P4}/scaling_min_freq", 1510400)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        # Before (session 19): the run stopped mid-run, exit 1 ("refusing to own it"), every
        # other cluster's governing ended with it.
        (_max_linked_in_the_root, "is a symlink"),
        (_max_linked_out_of_the_root, "is a symlink"),
        # Before: joined, and its cap written through the link to the moved files.
        (_folder_swapped_for_a_link, "now resolves to"),
        # Before: journaled and capped, a window no kernel shows "restored" at exit; refused at
        # start by the same rule now (tests/hw/test_hostile_sysfs_contents.py).
        (_min_above_max, "is above the max"),
    ],
    ids=["max-linked-in-the-root", "max-linked-out-of-the-root", "folder-swapped", "min-above-max"],
)
def test_a_cluster_coming_online_with_a_bad_attribute_is_left_alone_and_the_rest_governed_on(
    tmp_path: Path, shim: Path, change, why: str
) -> None:
    t, env = _hot_orin_policy4_offline(tmp_path, shim)
    proc = procutil.start_run(tmp_path, "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    change(t, tmp_path)
    before = t.snapshot()
    faultshim.write_rules(tmp_path / "faults", [])
    line = procutil.wait_line(proc, "policy4 came online but is left alone", stream="stderr")
    assert why in line
    assert "policy4" not in _journaled(tmp_path)
    assert _max(t, P0) < max(fakesys.ORIN_NANO_CPU_KHZ), "policy0 still governed"
    err = procutil.stopped(proc)  # exit 0, no traceback
    assert "limits restored" in err and "policy4 came online" not in err, "said once"
    after = t.snapshot()
    mine = (P4, "sys/kernel")
    assert {k: v for k, v in after.items() if k.startswith(mine)} == {
        k: v for k, v in before.items() if k.startswith(mine)
    }, "nothing written to the cluster left alone"
    outside = tmp_path / "outside_max"
    assert not outside.exists() or outside.read_text() == "1510400\n"
