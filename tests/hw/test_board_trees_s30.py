"""Session 30t: the daemon on the emulated trees of jetson-agx-xavier, jetson-xavier-nx and rpi3.

Those three profiles had no tree shape (``sim/emulator/trees/``), so their emulated trees had
zones without trips, no power monitor and CPUs split in order, and the daemon had never run on
their shape.  Now each has one (JetPack 5 for the Jetsons), and the daemon, through the
installed script, on each and on variants a real board shows, found three things:

* ``doctor`` on an AGX Xavier said its summed rails were "measured instead ... the run's
  power_w" and, in the same line, that power_w and energy_j "will be empty" (they are not);
* a sum whose every rail reads 0 (a monitor measuring nothing) went into power_w and energy_j as
  0.00 W, where an input rail reading 0 W is refused as no power;
* one cluster rejecting its limit (EINVAL: a pre-5.4 kernel's min > max rule, a driver's own
  check) ended the cap write of its whole domain, so a hot Xavier NX whose ``policy0`` refused
  kept ``policy2`` and ``policy4`` at full clock for the whole run.
"""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hw import faultshim, procutil
from tests.hw.fakesys import FakeTree, KernelTree
from tests.runtimedir import child_env
from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw.devices import CapActuator
from thermogov.hw.discovery import discover
from thermogov.hw.mapping import map_board
from thermogov.hw.railsum import summed_reader
from thermogov.interfaces import ActuatorError
from thermogov.sim.emulator.emulate import Emulator
from thermogov.sim.emulator.fakeboard import build_fake_board
from thermogov.sim.emulator.firmwarebits import FirmwareBits
from thermogov.trace import load_trace

BOARDS = ("jetson-agx-xavier", "jetson-xavier-nx", "rpi3")
CPUF = "sys/devices/system/cpu/cpufreq"
GPU = "sys/class/devfreq/17000000.gv11b"
HOT_C = 92.0


def _hot_tree(root: Path, board: str, *, rail_w: float = 1.0) -> FakeTree:
    """The emulator's tree of ``board`` with every sensor at 92 °C and ``rail_w`` on each
    connected rail (the builder writes 0 mA until an emulator steps)."""
    profile = load_board(board)
    layout = build_fake_board(profile, root, {s.name: HOT_C for s in profile.sensors})
    for rel, rail in layout.rails:
        ma = round(rail_w / rail.volt_v * 1000) if rail.volt_v > 0 else 0
        (root / rel).write_text(f"{ma}\n")
    FirmwareBits(profile, root).update(False)  # a Pi's get_throttled, 0: as the emulator shows it
    return FakeTree(root)


_RUNNING: list[subprocess.Popen[bytes]] = []


@pytest.fixture(autouse=True)
def _no_daemon_outlives_its_test() -> Iterator[None]:
    """A run is started without --duration: one whose test failed before SIGTERM is ended here."""
    yield
    while _RUNNING:
        proc = _RUNNING.pop()
        if proc.poll() is None:
            proc.terminate()  # SIGTERM: it restores its own tree
            proc.communicate(timeout=procutil.DEADLINE_S)


def _started(tmp_path: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    proc = procutil.start_run(tmp_path, env=env)
    _RUNNING.append(proc)
    return proc


def _doctor(root: Path, env: dict[str, str] | None = None) -> str:
    d = procutil.run_cli("doctor", "--sysfs-root", str(root), env=env)
    assert d.returncode == 0 and "Traceback" not in d.stderr, d.stderr[-800:]
    return d.stdout


def _policy0_rejects(tmp_path: Path, shim: Path, board: str) -> tuple[FakeTree, dict[str, str]]:
    """A hot ``board`` tree whose ``policy0/scaling_max_freq`` answers every write with EINVAL
    (the fault shim's rule), and the environment a run needs for the shim."""
    t = _hot_tree(tmp_path / "root", board)
    faultshim.write_rules(tmp_path / "faults", [(f"{CPUF}/policy0/scaling_max_freq", "w", errno.EINVAL)])
    return t, faultshim.env(shim, tmp_path / "faults", t.root)


def _stopped_with_a_domain_unwritten(
    proc: subprocess.Popen[bytes], t: FakeTree, before: dict[str, bytes | str]
) -> str:
    """SIGTERM a run whose domain's latest cap write failed: exit 1 after the restore, one line
    naming the domain and its EINVAL (session 30), no traceback, the tree as it was; that line."""
    proc.terminate()
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    text = err.decode()
    assert proc.returncode == 1, text
    assert "Traceback" not in text
    (verdict,) = [line for line in text.splitlines() if "latest cap write failed" in line]
    assert "EINVAL" in verdict and verdict.endswith("the limits were restored"), verdict
    assert t.snapshot() == before
    return verdict


def _trace(tmp_path: Path) -> dict[str, list[object]]:
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    return load_trace(run_dir)


# -- the shapes ------------------------------------------------------------------------------------
@pytest.mark.parametrize("board", BOARDS)
def test_each_new_tree_has_trips_clusters_and_monitors_as_the_board_ships_them(
    tmp_path: Path, board: str
) -> None:
    emu = Emulator(load_board(board), tmp_path, Config(board=board), speed=1.0)
    emu.step(0.5)
    inv = discover(KernelTree(tmp_path))
    trips = {z.type: [(t.type, t.temp_c) for t in z.trips] for z in inv.zones}
    policies = [(p.name, p.related_cpus) for p in inv.policies]
    rails = [(r.label, r.hwmon) for h in inv.hwmons for r in h.rails]
    if board == "rpi3":
        assert trips == {"cpu-thermal": [("critical", 80.0)]}
        assert policies == [("policy0", (0, 1, 2, 3))]
        # session 31r: the firmware's under-voltage chip too (kernel doc raspberrypi-hwmon.rst)
        assert [h.chip for h in inv.hwmons] == ["cpu_thermal", "rpi_volt"]
        assert (tmp_path / CPUF / "policy0/scaling_governor").read_text() == "ondemand\n"
        return
    tops = [("passive", 99.0), ("critical", 104.5)]
    assert trips == {"CPU-therm": tops, "GPU-therm": tops}
    if board == "jetson-agx-xavier":
        assert policies == [
            ("policy0", (0, 1)),
            ("policy2", (2, 3)),
            ("policy4", (4, 5)),
            ("policy6", (6, 7)),
        ]
        assert [label for label, _ in rails] == ["GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"]
        summed = map_board(inv, load_board(board)).summed
        model = emu.world.last_power_w
        assert model is not None and model > 3.0
        # the rest shares sum to 1: the six rails add up to the model's board power (mA rounding)
        assert summed_reader(KernelTree(tmp_path), summed)() == pytest.approx(model, rel=0.01)
    else:
        assert policies == [("policy0", (0, 1)), ("policy2", (2, 3)), ("policy4", (4, 5))]
        assert rails == [("VDD_IN", "hwmon0"), ("VDD_CPU_GPU_CV", "hwmon0"), ("VDD_SOC", "hwmon0")]
        assert map_board(inv, load_board(board)).power is not None


# -- the daemon on each ------------------------------------------------------------------------------
@pytest.mark.parametrize("board", BOARDS)
def test_doctor_and_a_hot_run_on_each_new_tree_govern_only_the_limits_and_restore_them(
    tmp_path: Path, board: str
) -> None:
    t = _hot_tree(tmp_path / "root", board)
    out = _doctor(t.root)
    assert f"profile: {board} " in out, out
    assert ("rpi firmware get_throttled 0x0" in out) == (board == "rpi3"), out
    assert "trips (°C):" in out, out
    assert ("will be empty" in out) == (board == "rpi3"), out  # a Pi 3 has no power monitor
    before = t.snapshot()
    proc = _started(tmp_path)
    line = procutil.wait_line(proc, "thermogov: started")
    assert f" board={board} " in line, line
    journal = json.loads((tmp_path / "state" / "journal.json").read_text())
    owned = {e[k] for e in journal["entries"] for k in ("min_rel", "max_rel")}
    assert owned and all(r.startswith(f"{CPUF}/policy") or r.startswith(f"{GPU}/") for r in owned), (
        owned
    )  # nothing outside the limits it governs
    assert t.read_int(f"{CPUF}/policy0/scaling_max_freq") < int(before[f"{CPUF}/policy0/cpuinfo_max_freq"])
    procutil.stopped_as_before(proc, t, before, "Traceback")
    powers = [w for w in _trace(tmp_path)["power_w"] if w is not None]
    if board == "rpi3":
        assert not powers  # a Pi 3 has no power monitor in sysfs
    else:  # the Xavier NX's VDD_IN (1 W), the AGX Xavier's six rails summed (6 W)
        assert powers and powers[0] == pytest.approx(1.0 if board == "jetson-xavier-nx" else 6.0, rel=0.01)


def test_doctor_says_the_agx_xavier_sum_is_the_runs_power_not_that_it_is_lost(tmp_path: Path) -> None:
    """Base: "... measured instead: GPU + ... = 6.000 W now (...; the run's power_w); the trace's
    power_w, the run's energy_j and inferences_per_joule will be empty"."""
    _hot_tree(tmp_path, "jetson-agx-xavier")
    (line,) = [ln for ln in _doctor(tmp_path).splitlines() if ln.startswith("board power:")]
    assert "measured instead: GPU + CPU + SOC + CV + VDDRQ + SYS5V = 6.0" in line, line
    assert "empty" not in line, line


def test_a_sum_whose_every_rail_reads_0_is_no_power(tmp_path: Path) -> None:
    """Base: power_w 0.0 on every row (and energy_j 0), doctor "= 0.000 W now"."""
    t = _hot_tree(tmp_path / "root", "jetson-agx-xavier", rail_w=0.0)
    (line,) = [ln for ln in _doctor(t.root).splitlines() if ln.startswith("board power:")]
    assert "every rail reads 0" in line and "stay empty while it reads so" in line, line
    before = t.snapshot()
    proc = _started(tmp_path)
    procutil.wait_line(proc, "thermogov: started")
    err = procutil.stopped_as_before(proc, t, before, "Traceback")
    assert "every rail reads 0, no power a running module draws" in err, err
    assert [w for w in _trace(tmp_path)["power_w"] if w is not None] == []


# -- a cluster that rejects its limit --------------------------------------------------------------
def test_one_policy_rejecting_its_limit_leaves_the_others_capped_in_process(tmp_path: Path) -> None:
    _hot_tree(tmp_path, "jetson-xavier-nx")
    tree = KernelTree(tmp_path)
    tree.write_faults = {f"{CPUF}/policy0/scaling_max_freq": errno.EINVAL}
    (cpu,) = [
        d for d in map_board(discover(tree), load_board("jetson-xavier-nx")).domains if d.domain.name == "cpu"
    ]
    act = CapActuator.open(tree, cpu)
    with pytest.raises(ActuatorError, match="EINVAL"):
        act.apply(act.table_hz[0])
    lowest_khz = act.table_hz[0] // 1000
    assert [tree.read_int(f"{CPUF}/{p}/scaling_max_freq") for p in ("policy2", "policy4")] == [lowest_khz] * 2
    assert tree.read_int(f"{CPUF}/policy0/scaling_max_freq") == 1907200  # untouched, as the kernel left it


def test_a_hot_xavier_nx_whose_policy0_rejects_its_limit_caps_its_other_clusters(
    tmp_path: Path, shim: Path
) -> None:
    """Base: "actuator cpu: .../policy0/scaling_max_freq: write of 729600 failed (EINVAL ...)"
    and policy2/policy4 at 1907.2 MHz on a board at 92 °C for the whole run."""
    t, env = _policy0_rejects(tmp_path, shim, "jetson-xavier-nx")
    before = t.snapshot()
    proc = _started(tmp_path, env=env)
    procutil.wait_line(proc, "write of 729600 failed (EINVAL", stream="stderr")
    assert [t.read_int(f"{CPUF}/{p}/scaling_max_freq") for p in ("policy2", "policy4")] == [729600, 729600]
    assert _stopped_with_a_domain_unwritten(proc, t, before).startswith("thermogov: error: cpu: ")


# -- variants a real board shows ------------------------------------------------------------------
def test_l4t_32s_one_policy_for_every_carmel_core_is_governed_whole(tmp_path: Path) -> None:
    """Kernel 4.9 (JetPack 4): one ``policy0`` for CPUs 0-7 (sbc-bench 4ebH's topology), the
    profile's policy2/4/6 absent: policy0 governed, the others said absent, all restored."""
    t = _hot_tree(tmp_path / "root", "jetson-agx-xavier")
    for p in ("policy2", "policy4", "policy6"):
        shutil.rmtree(t.root / CPUF / p)
    for attr in ("related_cpus", "affected_cpus"):
        t.write(f"{CPUF}/policy0/{attr}", "0 1 2 3 4 5 6 7\n")
    out = _doctor(t.root)
    assert "policy0         cpus 0,1,2,3,4,5,6,7" in out, out
    assert "policy2, policy4, policy6: not here" in out, out
    before = t.snapshot()
    proc = _started(tmp_path)
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(f"{CPUF}/policy0/scaling_max_freq") == 729600
    procutil.stopped_as_before(proc, t, before, "Traceback")


def test_a_missing_monitor_costs_only_the_power(tmp_path: Path) -> None:
    """The AGX Xavier's second INA3221 gone (driver unbound): one warning naming the first rail
    missing, power_w empty (never three rails of six), the board governed and restored."""
    t = _hot_tree(tmp_path / "root", "jetson-agx-xavier")
    shutil.rmtree(t.root / "sys/class/hwmon/hwmon1")
    before = t.snapshot()
    proc = _started(tmp_path)
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(f"{GPU}/max_freq") == 114750000
    err = procutil.stopped_as_before(proc, t, before, "Traceback")
    assert "rail CV, one the jetson-agx-xavier profile sums, is not among the power monitor's rails" in err
    assert [w for w in _trace(tmp_path)["power_w"] if w is not None] == []


@pytest.mark.parametrize("board", ["jetson-agx-xavier", "jetson-xavier-nx"])
def test_a_pre_5_4_kernel_with_nvpmodels_floor_is_lowered_and_put_back(tmp_path: Path, board: str) -> None:
    """JetPack 4's kernel 4.9 refuses a max below the current min (EINVAL, old cpufreq_set_policy);
    nvpmodel leaves scaling_min_freq at 1190.4 MHz and the GPU's min at 318.75 MHz: the lowest
    cap is still reached (min first) and restore puts both back (a guard: passes on base too)."""
    _hot_tree(tmp_path, board)
    for pol in (tmp_path / CPUF).iterdir():
        (pol / "scaling_min_freq").write_text("1190400\n")
    (tmp_path / GPU / "min_freq").write_text("318750000\n")
    tree = KernelTree(tmp_path, semantics="old")
    before = FakeTree(tmp_path).snapshot()
    for d in map_board(discover(tree), load_board(board)).domains:
        act = CapActuator.open(tree, d)
        assert act.apply(act.table_hz[0]) == act.table_hz[0]
        act.restore()
    assert FakeTree(tmp_path).snapshot() == before


def test_a_hot_pi_3_whose_only_limit_rejects_every_write_is_a_runtime_failure(
    tmp_path: Path, shim: Path
) -> None:
    """Base: the run logged the first EINVAL, ran uncapped at 92 °C to its end and exited 0, so a
    service manager or a script saw a governed run.  Now: exit 1 after the restore, one line
    naming the domain and its error; the tree as it was."""
    t, env = _policy0_rejects(tmp_path, shim, "rpi3")
    before = t.snapshot()
    proc = _started(tmp_path, env=env)
    procutil.wait_line(proc, "failed (EINVAL", stream="stderr")
    assert _stopped_with_a_domain_unwritten(proc, t, before).startswith(
        "thermogov: error: cpu: its latest cap write"
    )


def test_ab_on_a_pi_3_whose_only_limit_rejects_every_write_compares_nothing(
    tmp_path: Path, shim: Path
) -> None:
    """Base: each block "ran" its arm on a board no write could cap and `ab` ranked the two
    policies (exit 0).  Now block 1 ends the comparison: exit 1, one line naming the domain, the
    tree as it was (session 30, hw/unwritten.py)."""
    t, env = _policy0_rejects(tmp_path, shim, "rpi3")
    before = t.snapshot()
    p = subprocess.run(
        [
            *procutil.script(), "ab", *procutil.paths(tmp_path), "--lock-dir", str(tmp_path / "locks"),
            "--out", str(tmp_path / "out"), "--policy", "stepped", "--policy", "hysteresis",
            "--block", "2s", "--pairs", "2", "--cool-down", "0", "--workload", "builtin",
        ],
        capture_output=True, text=True, timeout=procutil.DEADLINE_S * 2, env=child_env(env), check=False,
    )  # fmt: skip
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    (line,) = [ln for ln in p.stderr.splitlines() if ln.startswith("thermogov: error:")]
    assert line.startswith("thermogov: error: block 1 (") and "cpu: its latest cap write failed (" in line, (
        line
    )
    assert "EINVAL" in line and line.endswith("nothing was compared"), line
    assert sorted(d.name for d in (tmp_path / "out").iterdir()) == ["block-01"]
    assert t.snapshot() == before
