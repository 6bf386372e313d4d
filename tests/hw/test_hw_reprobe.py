"""A member present at start whose files the kernel removes and re-creates mid-run (session 20).

An nvgpu unbind/bind (``echo 17000000.gpu > /sys/bus/platform/drivers/gpu/unbind``, then
``bind``) or a cpufreq driver reload (``rmmod``/``modprobe``) removes the device's or policy's
folder and later makes a new one, with new files and the kernel's default limits.  Before,
the new files were refused as "replaced since start-up": the member ran at the kernel's limits,
the other domains went to failsafe and the run ended with exit 1.  Each case drives the
installed script on a hot fake board and waits on the daemon's own stderr line, never a sleep.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError, SensorError
from thermogov.trace import load_trace

HOT_MC = 92000
CPUFREQ = "sys/devices/system/cpu/cpufreq"


def _journaled(tmp: Path) -> dict[str, tuple[int, int]]:
    entries = json.loads((tmp / "state" / "journal.json").read_text())["entries"]
    return {e["label"]: (e["min"], e["max"]) for e in entries}


class Member:
    """One governed member of a fake board: its folder (and class link) as the kernel makes them."""

    def __init__(self, t: fakesys.FakeTree, folder: str, link: str = "") -> None:
        self.t = t
        self.folder = t.root / folder
        self.link = t.root / link if link else None
        self.target = os.readlink(self.link) if self.link else ""
        self.files = {p.name: p.read_bytes() for p in self.folder.iterdir() if p.is_file()}
        self.links = {p.name: os.readlink(p) for p in self.folder.iterdir() if p.is_symlink()}
        self._gone = 0

    def unbind(self) -> None:
        """The folder gone from the tree.  Its files are kept alive outside the tree until the
        next probe has made the new ones: sysfs never gives a new attribute the inode number of
        one just removed, but ext4 does, and a probe landing between two of the daemon's looks
        then showed a new min beside a max that looked like the one owned (a CI flake)."""
        if self.link is not None:
            self.link.unlink()
        self._gone += 1
        self.folder.rename(self.t.root.parent / f"{self.folder.name}.unbound-{self._gone}")

    def probe(self, **values: bytes) -> None:
        """The folder made again, files fresh with the kernel's defaults."""
        self._make(self.folder, values)
        for old in self.t.root.parent.glob(f"{self.folder.name}.unbound-*"):
            shutil.rmtree(old)
        if self.link is not None:
            self.link.symlink_to(self.target)

    def reprobe(self, **values: bytes) -> None:
        """Unbound and probed again at once: the new files are made while the old ones exist,
        so they are other inodes for sure (a file system may reuse a freed inode number)."""
        new = self.folder.with_name(self.folder.name + ".new")
        self._make(new, values)
        self.unbind()
        new.rename(self.folder)
        if self.link is not None:
            self.link.symlink_to(self.target)

    def _make(self, folder: Path, values: dict[str, bytes]) -> None:
        folder.mkdir()
        for name, target in self.links.items():
            (folder / name).symlink_to(target)
        for name, data in self.files.items():
            (folder / name).write_bytes(values.get(name, data))

    def max(self, name: str) -> int:
        return int((self.folder / name).read_text())


BOARDS = {
    "orin-nano-jp6": (
        lambda r: fakesys.orin_nano(r, jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC),
        "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu",
        "sys/class/devfreq/17000000.gpu",
    ),
    "orin-nano-jp5": (
        lambda r: fakesys.orin_nano(r, jetpack=5, cpu_mc=HOT_MC, gpu_mc=HOT_MC),
        "sys/devices/17000000.ga10b/devfreq/17000000.ga10b",
        "sys/class/devfreq/17000000.ga10b",
    ),
}


def _gpu(tmp: Path, board: str) -> tuple[fakesys.FakeTree, Member]:
    make, folder, link = BOARDS[board]
    t = make(tmp / "root")
    return t, Member(t, folder, link)


def _started(tmp: Path, *extra: str) -> subprocess.Popen[bytes]:
    proc = procutil.start_run(tmp, "--duration", "120s", *extra)
    procutil.wait_line(proc, "thermogov: started")
    return proc


def _orin_started(
    tmp: Path,
) -> tuple[fakesys.FakeTree, Member, dict[str, bytes | str], subprocess.Popen[bytes]]:
    """The hot JetPack 6 Orin Nano, its GPU, its files before the run, and the run started."""
    t, gpu = _gpu(tmp, "orin-nano-jp6")
    before = t.snapshot()
    return t, gpu, before, _started(tmp)


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_a_gpu_present_at_start_unbound_and_probed_again_is_held_then_capped_again(
    tmp_path: Path, board: str
) -> None:
    t, gpu = _gpu(tmp_path, board)
    name = gpu.folder.name
    before = t.snapshot()
    top = gpu.max("max_freq")
    proc = _started(tmp_path)
    assert _journaled(tmp_path)[name][1] == top
    assert gpu.max("max_freq") < top, "capped at start (hot board)"
    gpu.unbind()
    procutil.wait_line(proc, f"{name} went away", stream="stderr")
    assert name not in _journaled(tmp_path), "nothing of a gone device to restore"
    gpu.probe()
    line = procutil.wait_line(proc, f"{name} appeared again with", stream="stderr")
    assert "journaled, capped" in line
    assert gpu.max("max_freq") < top
    assert _journaled(tmp_path)[name][1] == top, "the new device's own defaults"
    err = procutil.stopped(proc)
    assert "limits restored" in err
    assert t.snapshot() == before


@pytest.mark.parametrize("when", ["after-the-reprobe", "while-gone"])
def test_kill_9_around_a_reprobe_then_restore_leaves_the_new_gpu_at_its_defaults(
    tmp_path: Path, when: str
) -> None:
    t, gpu, before, proc = _orin_started(tmp_path)
    gpu.unbind()
    procutil.wait_line(proc, "went away", stream="stderr")
    if when == "after-the-reprobe":
        gpu.probe()
        procutil.wait_line(proc, "appeared again with", stream="stderr")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    if when == "while-gone":
        gpu.probe()  # the driver's next probe, after the crash: its own defaults
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0, r.stderr
    assert t.snapshot() == before


def test_a_gpu_probed_again_within_one_look_is_not_written_through_the_old_files(tmp_path: Path) -> None:
    # A flicker: gone and back between two looks, no look sees it missing.  The owned files are
    # other inodes now; the new ones are judged and adopted afresh, never written as the old.
    t, gpu, before, proc = _orin_started(tmp_path)
    proc.send_signal(signal.SIGSTOP)  # no look can run in between
    gpu.reprobe()
    proc.send_signal(signal.SIGCONT)
    procutil.wait_line(proc, "17000000.gpu went away", stream="stderr")
    procutil.wait_line(proc, "17000000.gpu appeared again with", stream="stderr")
    assert gpu.max("max_freq") < max(fakesys.ORIN_NANO_GPU_HZ)
    procutil.stopped_as_before(proc, t, before, "failsafe")


def test_a_reprobed_file_that_reads_thermogovs_own_cap_keeps_the_start_window(tmp_path: Path) -> None:
    # Not a kernel default: the old value carried over (a vendor driver, a file copied back).
    # Journaled as found, a restore would leave the GPU capped; the window of before is kept.
    t, gpu = _gpu(tmp_path, "orin-nano-jp6")
    before = t.snapshot()
    top = gpu.max("max_freq")
    proc = _started(tmp_path)
    capped = gpu.max("max_freq")
    assert capped < top
    gpu.unbind()
    procutil.wait_line(proc, "went away", stream="stderr")
    gpu.probe(max_freq=f"{capped}\n".encode())
    line = procutil.wait_line(proc, "the window of before", stream="stderr")
    assert "reads thermogov's own cap" in line
    procutil.wait_line(proc, "appeared again with", stream="stderr")
    assert _journaled(tmp_path)["17000000.gpu"][1] == top
    procutil.stopped_as_before(proc, t, before)


@pytest.mark.parametrize("hostile", ["outside", "other-name"])
def test_something_else_at_the_gpus_place_is_never_adopted(tmp_path: Path, hostile: str) -> None:
    t, gpu = _gpu(tmp_path, "orin-nano-jp6")
    proc = _started(tmp_path)
    gpu.unbind()
    procutil.wait_line(proc, "went away", stream="stderr")
    if hostile == "outside":
        out = tmp_path / "outside" / "17000000.gpu"
        out.mkdir(parents=True)
        for name, data in gpu.files.items():
            (out / name).write_bytes(data)
        assert gpu.link is not None
        gpu.link.symlink_to(out)
        procutil.wait_line(proc, "17000000.gpu appeared but is left alone", stream="stderr")
        outside = {p.name: p.read_bytes() for p in out.iterdir()}
    else:
        t.devfreq("sys/devices/15480000.nvdec", "15480000.nvdec", "nvdec", (115200000, 716800000))
        gpu.probe()  # the GPU after the other engine: only the GPU is adopted
        procutil.wait_line(proc, "17000000.gpu appeared again with", stream="stderr")
        outside = {}
    assert "15480000.nvdec" not in _journaled(tmp_path)
    procutil.stopped(proc)
    if hostile == "outside":
        assert {p.name: p.read_bytes() for p in out.iterdir()} == outside, "nothing written out of the root"
    else:
        assert t.read("sys/devices/15480000.nvdec/devfreq/15480000.nvdec/max_freq") == "716800000"


@pytest.mark.parametrize(
    ("board", "policy"),
    [("orin-nano", "policy4"), ("xavier-nx", "policy0"), ("jetson-nano", "policy0")],
)
def test_a_policy_present_at_start_whose_driver_reloads_is_held_then_capped_again(
    tmp_path: Path, board: str, policy: str
) -> None:
    make = {
        "orin-nano": lambda r: fakesys.orin_nano(r, jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC),
        "xavier-nx": lambda r: fakesys.xavier_nx(r, cpu_mc=HOT_MC),
        "jetson-nano": lambda r: fakesys.jetson_nano(r, cpu_mc=HOT_MC),
    }[board]
    t = make(tmp_path / "root")
    p = Member(t, f"{CPUFREQ}/{policy}")
    before = t.snapshot()
    top = p.max("scaling_max_freq")
    proc = _started(tmp_path)
    assert p.max("scaling_max_freq") < top
    p.unbind()  # rmmod tegra194_cpufreq / cpufreq-dt
    procutil.wait_line(proc, f"{policy} went away", stream="stderr")
    assert policy not in _journaled(tmp_path)
    p.probe()  # modprobe: a new policy at cpuinfo_min..cpuinfo_max
    procutil.wait_line(proc, f"{policy} appeared again with", stream="stderr")
    assert p.max("scaling_max_freq") < top
    assert _journaled(tmp_path)[policy][1] == top
    err = procutil.stopped(proc)
    assert "limits restored" in err
    assert t.snapshot() == before


def test_a_policy_absent_at_start_adopted_then_recreated_is_adopted_again(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    before = t.snapshot()
    stash = tmp_path / "policy4"
    shutil.move(t.root / CPUFREQ / "policy4", stash)
    proc = _started(tmp_path)
    shutil.move(stash, t.root / CPUFREQ / "policy4")
    procutil.wait_line(proc, "policy4 appeared with", stream="stderr")
    p = Member(t, f"{CPUFREQ}/policy4")
    p.unbind()
    p.probe()
    procutil.wait_line(proc, "policy4 appeared again with", stream="stderr")
    procutil.stopped_as_before(proc, t, before)


@pytest.mark.parametrize("how", ["SIGINT", "SIGHUP-then-SIGTERM"])
def test_every_exit_after_a_reprobe_restores(tmp_path: Path, how: str) -> None:
    t, gpu = _gpu(tmp_path, "orin-nano-jp5")
    before = t.snapshot()
    proc = _started(tmp_path)
    gpu.unbind()
    procutil.wait_line(proc, "went away", stream="stderr")
    gpu.probe()
    procutil.wait_line(proc, "appeared again with", stream="stderr")
    if how == "SIGINT":
        proc.send_signal(signal.SIGINT)
    else:
        proc.send_signal(signal.SIGHUP)
        procutil.wait_line(proc, "reloaded", stream="stderr")
        proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
    assert t.snapshot() == before


RPI5_MAX = f"{CPUFREQ}/policy0/scaling_max_freq"


def test_only_a_file_gone_or_made_again_in_place_counts_as_remade(tmp_path: Path) -> None:
    # The kernel's way (a held member, re-adopted) against a tampered tree (refused, failsafe).
    t = fakesys.rpi5(tmp_path / "root")
    tree = SysfsTree(t.root)
    tree.own(RPI5_MAX)
    p = t.root / RPI5_MAX
    assert not tree.remade(RPI5_MAX), "still the file owned"
    new = p.with_name("new")
    new.write_bytes(p.read_bytes())  # made while the old one exists: another inode for sure
    p.unlink()
    assert tree.remade(RPI5_MAX), "gone with its folder"
    new.rename(p)
    assert tree.remade(RPI5_MAX), "a new file at the very path"
    p.unlink()
    p.symlink_to(tmp_path / "outside")
    assert not tree.remade(RPI5_MAX), "a link planted at it"
    p.unlink()
    folder = p.parent
    folder.rename(tmp_path / "old")
    shutil.copytree(tmp_path / "old", tmp_path / "elsewhere")
    (tmp_path / "elsewhere" / p.name).write_text("precious\n")
    folder.symlink_to(tmp_path / "elsewhere")
    assert not tree.remade(RPI5_MAX), "a link planted on the way"


def test_a_member_forgotten_has_no_descriptor_kept_on_its_dead_file(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    tree = SysfsTree(t.root)
    cur = f"{CPUFREQ}/policy0/scaling_cur_freq"
    tree.keep_open(cur)
    tree.read_int(cur)
    (fd,) = [e[0] for e in tree._kept.values() if e]
    tree.release_member(cur)
    with pytest.raises(OSError):
        os.fstat(fd)
    (t.root / cur).unlink()
    (t.root / cur).write_text("1000000\n")
    assert tree.read_int(cur) == 1000000


def test_a_member_forgotten_has_its_folders_link_checked_afresh(tmp_path: Path) -> None:
    # Discovery resolves the class entry itself (the own-folder check): kept after the member
    # went away, a link planted out of the root in its place was followed unchecked.
    t = fakesys.rpi5(tmp_path / "root")
    tree = SysfsTree(t.root)
    policy = f"{CPUFREQ}/policy0"
    tree.resolve(policy)
    tree.resolve(f"{policy}/scaling_max_freq")
    tree.release_member(f"{policy}/scaling_cur_freq")
    folder = t.root / policy
    shutil.copytree(folder, tmp_path / "outside")
    shutil.rmtree(folder)
    folder.symlink_to(tmp_path / "outside")
    with pytest.raises(SensorError, match="outside the sysfs root"):
        tree.resolve(policy)
    with pytest.raises(SensorError, match="outside the sysfs root"):
        tree.resolve(f"{policy}/scaling_max_freq")


def test_a_member_released_is_no_longer_owned_kept_or_ranged(tmp_path: Path) -> None:
    # One call lets go of all of it (session 21's review finding 4): before, its limits were
    # disowned and its clock forgotten in two calls in a fixed order.
    t = fakesys.rpi5(tmp_path / "root")
    tree = SysfsTree(t.root)
    policy = f"{CPUFREQ}/policy0"
    limits = (f"{policy}/scaling_min_freq", f"{policy}/scaling_max_freq")
    for rel in limits:
        tree.own(rel)
    tree.ranges[policy] = (1, 2, "cpuinfo_min_freq..cpuinfo_max_freq")
    tree.release_member(f"{policy}/scaling_cur_freq", limits)
    assert not tree.owned() and policy not in tree.ranges
    with pytest.raises(ActuatorError, match="not an attribute thermogov owns"):
        tree.write_int(limits[1], 1000000)


def test_a_cap_change_before_the_next_look_holds_the_gone_gpu_without_failsafe(tmp_path: Path) -> None:
    # The daemon stopped across the unbind and a cool-down: its first tick after resuming
    # releases the caps before the watch's look sees the GPU gone.  Before, that write met the
    # confinement refusal ("vanished") and sent the CPU to failsafe, its lowest cap.
    t, gpu, before, proc = _orin_started(tmp_path)
    proc.send_signal(signal.SIGSTOP)
    gpu.unbind()
    for zone in range(len(list((t.root / "sys/class/thermal").glob("thermal_zone*")))):
        t.write(f"sys/devices/virtual/thermal/thermal_zone{zone}/temp", 40000)
    proc.send_signal(signal.SIGCONT)
    procutil.wait_line(proc, "17000000.gpu went away", stream="stderr")
    gpu.probe()
    procutil.wait_line(proc, "17000000.gpu appeared again with", stream="stderr")
    err = procutil.stopped(proc)
    assert "failsafe" not in err
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    trace = load_trace(run_dir)
    assert not any(e and "failsafe" in str(e) for e in trace["event"])
    assert _limits(t.snapshot()) == _limits(before), "every limit back (the zones were cooled)"


def _limits(snap: dict[str, bytes | str]) -> dict[str, bytes | str]:
    return {k: v for k, v in snap.items() if not k.endswith("/temp")}
