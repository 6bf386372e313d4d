"""Session 31r: root-daemon safety, the items review 30r left (docs/hardware.md, "Session 31r").

Exit statuses and one-line errors are driven through the installed ``thermogov`` script (one
subprocess per case, a short run); the rules themselves in process on tmp trees
(tests/hw/fakesys.py), never a sleep.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil


def _one_second_run(tmp: Path, shim: Path, rules: list[tuple[str, str, int]]) -> tuple[int, str]:
    """A hot Orin Nano's ``run --duration 1s`` with the fault ``rules``; (exit status, stderr)."""
    rules_file = tmp / "rules"
    faultshim.write_rules(rules_file, rules)
    env = faultshim.env(shim, rules_file, tmp)
    proc = procutil.start_run(tmp, "--duration", "1s", env=env)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    return proc.returncode, err.decode()


# -- (2) a full disk at start is a runtime failure (1), a read-only --state-dir bad input (2) ----------
@pytest.mark.parametrize(
    ("target", "code", "status", "said"),
    [
        ("journal.json.tmp", errno.ENOSPC, 1, "journal.json: cannot write the restore journal (ENOSPC"),
        ("journal.json.tmp", errno.EROFS, 2, "journal.json: cannot write the restore journal (Read-only"),
        (
            "thermogov.lock",
            errno.ENOSPC,
            1,
            "thermogov.lock: cannot write this run's pid into the lock (ENOSPC",
        ),
    ],
)
def test_a_start_time_write_on_a_full_disk_exits_1_naming_the_file_and_writes_nothing(
    tmp_path: Path, shim: Path, target: str, code: int, status: int, said: str
) -> None:
    """ENOSPC on the journal's first write is a good --state-dir on a full disk: exit 1, "free
    space"; EROFS stays bad input (exit 2, "fix --state-dir"; a guard, as on BASE); a lock whose
    pid cannot be written names its file.  The board byte for byte as before in each case.
    BASE d5d06d5: the journal's ENOSPC exited 2 ("fix --state-dir"), the lock's said only
    "No space left on device; check the disk and the path", naming no file."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    before = t.snapshot()
    status_now, err = _one_second_run(tmp_path, shim, [(target, "w", code)])
    assert "Traceback" not in err
    assert status_now == status, err[-800:]
    lines = [ln for ln in err.splitlines() if "error:" in ln]
    assert len(lines) == 1 and said in lines[0], err[-800:]
    assert ("free space" in lines[0]) == (code == errno.ENOSPC), lines[0]
    assert t.snapshot() == before, "nothing written to the board"
    assert not (tmp_path / "state" / "journal.json").exists()


# -- (3) OPP lists holding entries that are no OPP: governed with the rest, said once ---------------
P0 = "sys/devices/system/cpu/cpufreq/policy0"
GPU = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"


def test_zero_negative_and_repeated_opps_are_said_once_at_start_and_the_rest_governed(tmp_path: Path) -> None:
    """policy0 lists ``0 -5`` and one OPP twice, the GPU a ``0`` Hz entry: one warning each at
    start naming the file and what was ignored, the run governs (exit 0), every file put back.
    BASE d5d06d5: the entries were dropped without a word."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    (t.root / P0 / "scaling_available_frequencies").write_text("1510400 0 -5 115200 729600 1510400\n")
    gpu_list = (t.root / GPU / "available_frequencies").read_text().split()
    (t.root / GPU / "available_frequencies").write_text(" ".join(["0", *gpu_list]) + "\n")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "1s")
    _out, raw = proc.communicate(timeout=procutil.DEADLINE_S)
    err = raw.decode()
    assert proc.returncode == 0 and "Traceback" not in err, err[-800:]
    cpu = [ln for ln in err.splitlines() if "policy0/scaling_available_frequencies: ignored" in ln]
    assert len(cpu) == 1 and "0, -5 kHz" in cpu[0] and "1510400 kHz listed more than once" in cpu[0], err
    assert "governed with the 3 OPPs left" in cpu[0] and "--sysfs-root" in cpu[0]
    gpu = [ln for ln in err.splitlines() if "17000000.gpu/available_frequencies: ignored 0 Hz" in ln]
    assert len(gpu) == 1, err
    assert "is not governed" not in err
    assert t.snapshot() == before


def test_an_unsorted_opp_list_is_no_fault_and_says_nothing(tmp_path: Path) -> None:
    """A descending or unsorted list is a driver's table order (freq_table.c handles both):
    the same table as the sorted list, nothing said (a guard: so on BASE too)."""
    from thermogov.hw.discovery import read_policy
    from thermogov.hw.sysfs import SysfsTree

    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    sorted_policy = read_policy(SysfsTree(t.root), "policy0")
    listed = (t.root / P0 / "scaling_available_frequencies").read_text().split()
    (t.root / P0 / "scaling_available_frequencies").write_text(" ".join(reversed(listed)) + "\n")
    p = read_policy(SysfsTree(t.root), "policy0")
    assert p.table_hz == sorted_policy.table_hz and not p.error
    assert not getattr(p, "ignored", "")


def test_a_temperature_of_absurd_magnitude_is_no_reading() -> None:
    """Already handled (a guard): a zone or hwmon reading far outside any silicon's range is
    refused as no reading (hw/devices.py ``to_celsius``), never fused."""
    from thermogov.hw.devices import to_celsius
    from thermogov.interfaces import SensorError

    for raw in (10**12, -(10**12), 2**31 - 1):
        with pytest.raises(SensorError, match="no reading"):
            to_celsius(raw, 1000.0, "thermal_zone0/temp")


# -- (1) a restore meeting another writer: the watch's rule once more, and said ----------------------
class _Hooked:
    """The actuator's LimitIO with another writer acting at a chosen moment of the restore: on
    the first read of the max (``on_read``: after the limit watch's last look, before the
    restore's own read) or right after the restore's write of it (``after_write``)."""

    def __init__(self, io: object, t: fakesys.FakeTree, max_rel: str) -> None:
        self.io, self.t, self.max_rel = io, t, max_rel
        self.on_read: int | None = None
        self.after_write: int | None = None

    def read_int(self, rel: str) -> int:
        if rel == self.max_rel and self.on_read is not None:
            self.t.write(rel, self.on_read)
            self.on_read = None
        return self.io.read_int(rel)  # type: ignore[attr-defined,no-any-return]

    def write_int(self, rel: str, value: int) -> None:
        self.io.write_int(rel, value)  # type: ignore[attr-defined]
        if rel == self.max_rel and self.after_write is not None:
            self.t.write(rel, self.after_write)
            self.after_write = None

    def kernel_removed(self, f: object) -> bool:
        return bool(self.io.kernel_removed(f))  # type: ignore[attr-defined]


def _capped_pi5(tmp: Path) -> tuple[fakesys.FakeTree, object, _Hooked, int, int]:
    """A hot Pi 5's policy0 capped at 1.5 GHz by the actuator; (tree, actuator, hooked io, the
    original max, thermogov's cap), both kHz."""
    from tests.hw.limitrig import watched_policy0

    t, act, watch, _said = watched_policy0(tmp, cpu_mc=85000)
    orig = int((t.root / P0 / "scaling_max_freq").read_text())
    act.apply(1_500_000_000)
    watch.check(0.0)
    cap = int((t.root / P0 / "scaling_max_freq").read_text())
    assert cap < orig, "capped"
    hooked = _Hooked(act.io, t, f"{P0}/scaling_max_freq")
    act.io = hooked
    return t, act, hooked, orig, cap


def test_a_max_another_writer_set_below_the_value_of_before_is_left_at_exit_and_said(tmp_path: Path) -> None:
    """Another writer sets policy0's max to 1.8 GHz (above thermogov's cap, below the value of
    before, 2.4) after the watch's last look, just as the exit restore starts: it is left as it
    reads, never raised over, the min put back no higher, and the restore says so.  BASE
    d5d06d5: the restore wrote 2.4 GHz over the other writer's 1.8 and said nothing."""
    t, act, hooked, orig, cap = _capped_pi5(tmp_path)
    hooked.on_read = 1_800_000
    act.restore()  # type: ignore[attr-defined]
    assert int((t.root / P0 / "scaling_max_freq").read_text()) == 1_800_000
    assert int((t.root / P0 / "scaling_min_freq").read_text()) <= 1_800_000
    notes = getattr(act, "restore_notes", [])
    assert len(notes) == 1 and "max 1800000 kHz, set by another writer" in notes[0], notes
    assert f"thermogov's cap {cap}" in notes[0] and f"below the value of before {orig}" in notes[0]


def test_a_max_raised_past_the_value_of_before_at_exit_gets_it_back_and_is_said(tmp_path: Path) -> None:
    """Raised past the value of before since the last look (another writer, or the kernel
    re-creating the policy at its top): the lower of the two, the value of before, is written,
    and the line says what was found.  BASE: written, nothing said."""
    t, act, hooked, orig, _cap = _capped_pi5(tmp_path)
    hooked.on_read = orig + 100_000
    act.restore()  # type: ignore[attr-defined]
    assert int((t.root / P0 / "scaling_max_freq").read_text()) == orig
    notes = getattr(act, "restore_notes", [])
    assert len(notes) == 1 and f"max read {orig + 100_000} kHz, raised" in notes[0], notes
    assert f"{orig} written, the lower" in notes[0]


def test_a_max_raised_right_after_the_restore_wrote_is_said_not_called_restored(tmp_path: Path) -> None:
    """The other writer acts right after the restore's write (a race no read can prevent: sysfs
    has no compare-and-swap): the read-back shows it and the restore says so instead of
    claiming the value of before.  BASE: nothing said."""
    t, act, hooked, orig, _cap = _capped_pi5(tmp_path)
    top = orig + 200_000
    hooked.after_write = top
    act.restore()  # type: ignore[attr-defined]
    assert int((t.root / P0 / "scaling_max_freq").read_text()) == top
    notes = getattr(act, "restore_notes", [])
    assert len(notes) == 1 and f"max reads {top} kHz right after the restore wrote {orig}" in notes[0], notes


def test_a_max_lowered_below_thermogovs_cap_at_exit_still_gets_the_value_of_before(tmp_path: Path) -> None:
    """Lower than thermogov's cap (the kernel's thermal clamp on 5.4+, shown in the same file,
    or a lower writer): the value of before is written as always (over a clamp harmless), not
    taken as another writer's choice; nothing said.  A guard: so on BASE too."""
    t, act, hooked, orig, cap = _capped_pi5(tmp_path)
    hooked.on_read = cap - 500_000
    act.restore()  # type: ignore[attr-defined]
    assert int((t.root / P0 / "scaling_max_freq").read_text()) == orig
    assert not getattr(act, "restore_notes", [])


# -- (4) emulated tree fidelity: what a real kernel lists and exposes -------------------------------
@pytest.mark.parametrize(
    ("board", "top_khz"), [("jetson-xavier-nx", 1907200), ("jetson-agx-xavier", 2265600)]
)
def test_the_emulated_xaviers_list_the_kernels_table_from_115_mhz_and_govern_from_the_floor(
    tmp_path: Path, board: str, top_khz: int
) -> None:
    """tegra194-cpufreq lists 115.2 MHz up in 76.8 MHz steps (sbc-bench on both Xaviers): the
    emulated policy lists it so, its cpuinfo_min_freq is 115200, and the daemon's governed
    table still starts at the profile's 729.6 MHz.  BASE d5d06d5: the list began at 729600."""
    from thermogov.board import load_board
    from thermogov.hw.discovery import discover
    from thermogov.hw.sysfs import SysfsTree
    from thermogov.sim.emulator.fakeboard import build_fake_board

    profile = load_board(board)
    build_fake_board(profile, tmp_path / "root", {s.name: 50.0 for s in profile.sensors})
    listed = [int(k) for k in (tmp_path / "root" / P0 / "scaling_available_frequencies").read_text().split()]
    assert listed[:9] == [115200, 192000, 268800, 345600, 422400, 499200, 576000, 652800, 729600]
    assert listed[-1] == top_khz and int((tmp_path / "root" / P0 / "cpuinfo_min_freq").read_text()) == 115200
    inv = discover(SysfsTree(tmp_path / "root"))
    assert inv.policies[0].table_hz[0] == 115_200_000
    cpu = next(d for d in profile.domains if d.name == "cpu")
    assert cpu.opp_hz[0] == 729_600_000, "governed from the profile's floor, as before"


def test_the_emulated_pi3_has_the_firmwares_rpi_volt_alarm_and_the_daemon_reads_it(tmp_path: Path) -> None:
    """A Pi 3 kernel exposes ``rpi_volt`` with ``in0_lcrit_alarm`` (Documentation/hwmon/
    raspberrypi-hwmon.rst names the Pi 3 B and 3 B+): the emulated tree has it, reading 0, and
    the daemon's throttle reader takes it as a source.  BASE: no such chip."""
    from thermogov.board import load_board
    from thermogov.hw.sysfs import SysfsTree
    from thermogov.hw.throttle import find_sources
    from thermogov.sim.emulator.fakeboard import build_fake_board

    profile = load_board("rpi3")
    build_fake_board(profile, tmp_path / "root", {s.name: 50.0 for s in profile.sensors})
    chips = {
        (p / "name").read_text().strip(): p for p in (tmp_path / "root" / "sys/class/hwmon").glob("hwmon*")
    }
    assert "rpi_volt" in chips and (chips["rpi_volt"] / "in0_lcrit_alarm").read_text() == "0\n"
    assert "rpi_volt" in [s.name for s in find_sources(SysfsTree(tmp_path / "root"), ())]


@pytest.mark.parametrize("found", [2_400_000, 1_800_000])
def test_a_journal_restore_after_kill9_writes_the_journaled_value_whatever_it_finds(
    tmp_path: Path, found: int
) -> None:
    """A guard (so on BASE too): after ``kill -9`` the run's record of its last cap may lag its
    very last write by one, so a max between the record and the journaled value may be the
    dead daemon's own raise; the journal restore keeps writing the journaled value (above it:
    the lower of the two; below it: cannot be told from thermogov's own cap)."""
    from thermogov.hw.journal import JournalEntry, restore_entries
    from thermogov.hw.sysfs import SysfsTree

    t = fakesys.rpi5(tmp_path / "root")
    entry = JournalEntry(
        "cpu", "policy0", f"{P0}/scaling_min_freq", f"{P0}/scaling_max_freq", 1000, 1_500_000, 2_000_000
    )  # journaled under an operator's 2.0 GHz cap; the hardware's top is 2.4 GHz
    t.write(f"{P0}/scaling_max_freq", found)
    assert not restore_entries(SysfsTree(t.root), [entry])
    assert int((t.root / P0 / "scaling_max_freq").read_text()) == 2_000_000


# -- (5) exit paths: EIO on an owned limit's read at start is the hardware failing, exit 1 -----------
def test_an_owned_limit_that_reads_eio_at_start_exits_1_with_nothing_written(
    tmp_path: Path, shim: Path
) -> None:
    """policy0's max answers EIO from the first read (a driver failing to talk to the hardware):
    the input is fine, so exit 1, one line naming the file and saying nothing was changed, no
    journal, the tree as before; the hint names the device, not "the sensor".  BASE d5d06d5:
    exit 2 (bad input), "the sensor may be offline"."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    before = t.snapshot()
    status, err = _one_second_run(tmp_path, shim, [("policy0/scaling_max_freq", "r", errno.EIO)])
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if "error:" in ln]
    assert status == 1 and len(lines) == 1, err[-800:]
    assert "policy0/scaling_max_freq: read failed (EIO" in lines[0] and "nothing was changed" in lines[0]
    assert "sensor" not in lines[0]
    assert t.snapshot() == before and not (tmp_path / "state" / "journal.json").exists()


def test_a_policy_removed_between_discovery_and_own_is_a_runtime_failure_nothing_owned(
    tmp_path: Path,
) -> None:
    """policy4's folder goes away after discovery bound it and before the actuator reads its
    limits (a cluster hot-unplugged during start-up on a kernel that removes the folder): a
    runtime failure naming the file (exit 1 through the CLI), nothing owned or written.  BASE
    d5d06d5: an ActuatorError, exit 2 as bad input ("does not exist on this kernel/board")."""
    import shutil

    from thermogov.board import load_board
    from thermogov.hw.devices import CapActuator
    from thermogov.hw.discovery import discover
    from thermogov.hw.mapping import map_board
    from thermogov.hw.sysfs import SysfsTree
    from thermogov.interfaces import RuntimeFailure

    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    tree = SysfsTree(t.root)
    (cpu,) = [
        b for b in map_board(discover(tree), load_board("jetson-orin-nano")).domains if b.domain.name == "cpu"
    ]
    assert any("policy4" in f.max_rel for f in cpu.files)
    shutil.rmtree(t.root / "sys/devices/system/cpu/cpufreq/policy4")
    before = t.snapshot()
    with pytest.raises(RuntimeFailure, match=r"policy4/scaling_m\w+_freq: .*went away since discovery"):
        CapActuator.open(tree, cpu)
    assert t.snapshot() == before
