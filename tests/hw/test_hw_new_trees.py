"""Session 16: stock board trees no earlier test built, through discovery and the installed script.

Two shapes found something (docs/hardware.md, "Session 16: trees nobody built yet"):

* a CPU cluster whose CPUs are all offline at start (an nvpmodel mode with fewer cores on an
  Orin Nano or NX): every attribute of its policy answers EBUSY, and that one error used to
  leave the whole CPU domain ungoverned on a hot board;
* a device-tree model no profile matches (a Raspberry Pi 3 B+, a Jetson Orin NX): the daemon
  governed it with the config's default board, a Jetson Orin Nano profile, without saying so.
"""

from __future__ import annotations

import errno
import json
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil
from tests.hw.fakesys import FakeTree, KernelTree, khz_grid
from thermogov.board import load_board
from thermogov.config import Config, parse_config
from thermogov.hw.discovery import discover
from thermogov.hw.mapping import choose_board, map_board, unmatched_model
from thermogov.trace import load_trace

CPUFREQ = "sys/devices/system/cpu/cpufreq"
P4 = f"{CPUFREQ}/policy4"
HOT_MC = 92000


def _inactive_rules(root: Path) -> list[tuple[str, str, int]]:
    """What an inactive policy answers: EBUSY from every attribute's show() and store()."""
    return [(f"{P4}/{name}", "rw", errno.EBUSY) for name in sorted(p.name for p in (root / P4).iterdir())]


def _pi3_bplus(root: Path) -> FakeTree:
    """A Pi 3 B+ (BCM2837B0, 600..1400 MHz in the 100 MHz steps of raspberrypi-cpufreq.c)."""
    t = FakeTree(root)
    t.model("Raspberry Pi 3 Model B Plus Rev 1.3", ("raspberrypi,3-model-b-plus", "brcm,bcm2837"))
    t.zone(0, "cpu-thermal", HOT_MC, fakesys.RPI4_TRIPS)
    t.policy(0, [0, 1, 2, 3], khz_grid(600000, 100000, 1400000), governor="ondemand")
    return t


def test_an_inactive_cluster_is_left_alone_and_the_others_are_bound(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path, jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    tree = KernelTree(t.root)
    tree.faults = {rel: code for rel, _ops, code in _inactive_rules(t.root)}
    inv = discover(tree)
    (p4,) = [p for p in inv.policies if p.name == "policy4"]
    assert "inactive" in p4.inactive and "EBUSY" in p4.inactive and not p4.error
    bmap = map_board(inv, load_board("jetson-orin-nano"))
    (cpu,) = [d for d in bmap.domains if d.domain.name == "cpu"]
    assert [f.label for f in cpu.files] == ["policy0"]
    assert any("policy4: inactive" in why for why in cpu.skipped)
    assert "cpu" not in bmap.missing_domains


def test_a_domain_whose_every_cluster_is_inactive_is_missing_with_the_reason(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path, cpu_mc=HOT_MC)
    tree = KernelTree(t.root)
    p0 = f"{CPUFREQ}/policy0"
    tree.faults = {f"{p0}/{p.name}": errno.EBUSY for p in (t.root / p0).iterdir()}
    bmap = map_board(discover(tree), load_board("rpi5"))
    assert "inactive" in bmap.missing_domains["cpu"]


def test_a_hot_orin_with_a_cluster_offline_governs_the_online_one_and_restores(
    tmp_path: Path, shim: Path
) -> None:
    # Before: "domain cpu is not governed (policy4/scaling_available_frequencies: read failed
    # (EBUSY ...))": policy0 ran at full clock at 92 °C; only the GPU was capped.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    faultshim.write_rules(tmp_path / "faults", _inactive_rules(t.root))
    env = faultshim.env(shim, tmp_path / "faults", t.root)
    before = t.snapshot()
    doc = procutil.run_cli("doctor", "--sysfs-root", str(t.root), env=env)
    assert doc.returncode == 0 and "policy4         INACTIVE" in doc.stdout, doc.stdout + doc.stderr
    cfg = tmp_path / "cfg.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--config", str(cfg)]
    args += ["--state-file", str(tmp_path / "state.json")]
    proc = subprocess.Popen(
        [*procutil.script(), "run", *args, "--duration", "60s"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    procutil.wait_line(proc, "thermogov: started")
    journal = json.loads((tmp_path / "state" / "journal.json").read_text())
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert "policy4: inactive" in err.decode() and "domain cpu governs policy0 without it" in err.decode()
    labels = sorted(e["label"] for e in journal["entries"])
    assert labels == ["17000000.gpu", "policy0"], labels
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    caps = [v for v in load_trace(run_dir)["cpu_cap_hz"] if v is not None]
    assert caps and caps[-1] < max(fakesys.ORIN_NANO_CPU_KHZ) * 1000, "the hot online cluster is capped"
    assert t.snapshot() == before


def test_a_model_no_profile_matches_is_refused_unless_a_board_is_chosen(tmp_path: Path) -> None:
    t = _pi3_bplus(tmp_path / "root")
    inv = discover(KernelTree(t.root))
    why = unmatched_model(None, Config(), inv)
    assert "'Raspberry Pi 3 Model B Plus Rev 1.3'" in why and "--board" in why
    # A board the user chose stands in for the model: the option, a board file, [run] board.
    assert unmatched_model("rpi3", Config(), inv) == ""
    assert unmatched_model(None, parse_config({"run": {"board": "rpi3"}}), inv) == ""
    # No model at all (a listing, a bare tree): the config's board, as before.
    bare = FakeTree(tmp_path / "bare")
    bare.policy(0, [0], (600000, 1200000))
    assert unmatched_model(None, Config(), discover(KernelTree(bare.root))) == ""
    # A known model never is.
    assert unmatched_model(None, Config(), discover(KernelTree(fakesys.rpi5(tmp_path / "p5").root))) == ""
    assert choose_board(None, Config(), inv)[0].name == Config().board  # doctor still shows a mapping


@pytest.mark.parametrize("dry", [True, False])
def test_run_on_an_unprofiled_board_exits_2_with_one_line_and_writes_nothing(
    tmp_path: Path, dry: bool
) -> None:
    # Before: a Pi 3 B+ was governed with the jetson-orin-nano profile; the only line said its
    # GPU domain was missing.
    t = _pi3_bplus(tmp_path / "root")
    before = t.snapshot()
    args = [*procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "1s"]
    args += ["--state-file", str(tmp_path / "state.json")]
    r = procutil.run_cli("run", *args, *(["--dry-run"] if dry else []))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "matches no board profile" in lines[0] and "--board" in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()
    doc = procutil.run_cli("doctor", "--sysfs-root", str(t.root))
    assert doc.returncode == 0 and "matches no board profile" in doc.stderr, doc.stderr
    ok = procutil.run_cli("run", *args, "--board", "rpi3", *(["--dry-run"] if dry else []))
    assert ok.returncode == 0, ok.stderr
    assert t.snapshot() == before


def test_a_policy_without_an_opp_list_is_offered_the_profiles_opps_inside_its_range(tmp_path: Path) -> None:
    # Before: only cpuinfo_min/max (115.2 and 2201.6 MHz) were OPPs; the profile's floor
    # (729.6 MHz) left one cap, the top, and a 92 °C AGX Orin's CPU could not be capped at all.
    t = fakesys.agx_orin(tmp_path / "root", cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    for p in ("policy0", "policy4", "policy8"):
        (t.root / CPUFREQ / p / "scaling_available_frequencies").unlink()
    board = load_board("jetson-agx-orin")
    (cpu,) = [d for d in map_board(discover(KernelTree(t.root)), board).domains if d.domain.name == "cpu"]
    (profile_cpu,) = [d for d in board.domains if d.name == "cpu"]
    assert set(profile_cpu.opp_hz) <= set(cpu.hw_table_hz)
    assert cpu.hw_table_hz[0] == min(fakesys.AGX_ORIN_CPU_KHZ) * 1000
    assert cpu.hw_table_hz[-1] == max(fakesys.AGX_ORIN_CPU_KHZ) * 1000
    args = [*procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "0.5s"]
    args += ["--state-file", str(tmp_path / "state.json"), "--policy", "hysteresis"]
    r = procutil.run_cli("run", "--dry-run", *args)
    assert r.returncode == 0, r.stderr
    lowest_khz = profile_cpu.opp_hz[0] // 1000
    assert f"policy0/scaling_max_freq={lowest_khz}" in r.stderr, r.stderr
