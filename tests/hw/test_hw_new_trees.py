"""Session 16: stock board trees no earlier test built, through discovery and the installed script.

Two shapes found something (docs/hardware.md, "Session 16: trees nobody built yet"):

* a CPU cluster whose CPUs are all offline at start (an nvpmodel mode with fewer cores on an
  Orin Nano or NX): every attribute of its policy answers EBUSY, and that one error used to
  leave the whole CPU domain ungoverned on a hot board;
* a device-tree model no profile matches (a Raspberry Pi 3 B+, a Jetson Orin NX): the daemon
  governed it with the config's default board, a Jetson Orin Nano profile, without saying so.
  Now such a board is governed by the one profile claiming its ``compatible`` SoC/module family
  (``dt_socs``), said once; a family no profile or two profiles claim is refused.
"""

from __future__ import annotations

import errno
import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys, faultshim, procutil
from tests.hw.fakesys import FakeTree, KernelTree, khz_grid
from thermogov.board import load_board
from thermogov.config import Config, parse_config
from thermogov.hw.discovery import discover
from thermogov.hw.mapping import choose_board, family_warning, map_board, unmatched_model
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


def _renamed(t: FakeTree, model: str, compatible: tuple[str, ...]) -> FakeTree:
    """The same tree under another device-tree model and ``compatible``."""
    base = "sys/firmware/devicetree/base"
    t.write(f"{base}/model", model.encode() + b"\x00")
    t.write(f"{base}/compatible", b"".join(c.encode() + b"\x00" for c in compatible))
    return t


def _pi2b(root: Path) -> FakeTree:
    """A Pi 2 B (BCM2836, linux bcm2836-rpi-2-b.dts): no profile names it, none claims its SoC."""
    return _renamed(
        _pi3_bplus(root), "Raspberry Pi 2 Model B Rev 1.1", ("raspberrypi,2-model-b", "brcm,bcm2836")
    )


def _orin_nx(root: Path) -> FakeTree:
    """A hot Orin NX devkit (linux tegra234-p3768-0000+p3767-0000.dts): module p3767-0000."""
    t = fakesys.orin_nano(root, jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    return _renamed(
        t,
        "NVIDIA Jetson Orin NX Engineering Reference Developer Kit",
        ("nvidia,p3768-0000+p3767-0000", "nvidia,p3767-0000", "nvidia,tegra234"),
    )


def _hot_run_stopped(tmp_path: Path, env: dict[str, str] | None = None) -> tuple[dict[str, Any], int, str]:
    """A hysteresis run on the tree, its journal read once started, then SIGTERM.

    Returns (the journal, the exit status, stderr)."""
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
    return journal, proc.returncode, err.decode()


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
    journal, rc, err = _hot_run_stopped(tmp_path, env)
    assert rc == 0, err
    assert "policy4: inactive" in err and "domain cpu governs policy0 without it" in err
    labels = sorted(e["label"] for e in journal["entries"])
    assert labels == ["17000000.gpu", "policy0"], labels
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    caps = [v for v in load_trace(run_dir)["cpu_cap_hz"] if v is not None]
    assert caps and caps[-1] < max(fakesys.ORIN_NANO_CPU_KHZ) * 1000, "the hot online cluster is capped"
    assert t.snapshot() == before


def test_a_model_no_profile_matches_and_no_family_claims_is_refused_unless_a_board_is_chosen(
    tmp_path: Path,
) -> None:
    t = _pi2b(tmp_path / "root")
    inv = discover(KernelTree(t.root))
    why = unmatched_model(None, Config(), inv)
    assert "'Raspberry Pi 2 Model B Rev 1.1'" in why and "--board" in why
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
    assert family_warning(None, Config(), inv) == ""


def test_a_model_no_profile_names_is_governed_by_the_one_profile_claiming_its_family(tmp_path: Path) -> None:
    for tree, profile, family in (
        (_pi3_bplus(tmp_path / "pi3"), "rpi3", "brcm,bcm2837"),
        (_orin_nx(tmp_path / "nx"), "jetson-orin-nano", "nvidia,p3767"),
    ):
        inv = discover(KernelTree(tree.root))
        assert unmatched_model(None, Config(), inv) == ""
        board, reason = choose_board(None, Config(), inv)
        assert board.name == profile and repr(family) in reason
        warning = family_warning(None, Config(), inv)
        assert profile in warning and repr(family) in warning and repr(inv.model) in warning
        # A board the user chose (even in the config) beats the family, and is not warned about.
        chosen = parse_config({"run": {"board": "rpi5"}})
        assert choose_board(None, chosen, inv)[0].name == "rpi5" and family_warning(None, chosen, inv) == ""
        assert family_warning("rpi5", Config(), inv) == ""


def test_a_family_two_profiles_claim_is_refused_naming_them(tmp_path: Path) -> None:
    # A carrier whose tree names only the SoC: tegra234 is both the Orin Nano's and the AGX Orin's.
    t = _renamed(
        fakesys.orin_nano(tmp_path / "root", jetpack=6), "Acme Orin box", ("acme,box", "nvidia,tegra234")
    )
    inv = discover(KernelTree(t.root))
    why = unmatched_model(None, Config(), inv)
    assert "'nvidia,tegra234'" in why and "jetson-agx-orin" in why and "jetson-orin-nano" in why
    assert family_warning(None, Config(), inv) == ""
    r = procutil.run_cli("run", "--dry-run", *procutil.paths(tmp_path), "--duration", "1s")
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [f"thermogov: error: {why}"], r.stderr


@pytest.mark.parametrize("dry", [True, False])
def test_run_on_an_unprofiled_board_exits_2_with_one_line_and_writes_nothing(
    tmp_path: Path, dry: bool
) -> None:
    # Before: an unprofiled board was governed with the jetson-orin-nano profile; the only line
    # said its GPU domain was missing.  (A Pi 3 B+ until its SoC family was claimed by rpi3.)
    t = _pi2b(tmp_path / "root")
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
    # With a config named, doctor checks it as `run` would: exit 2, the cause said once.
    conf = tmp_path / "empty.toml"
    conf.write_text("", encoding="utf-8")
    doc = procutil.run_cli("doctor", "--config", str(conf), "--sysfs-root", str(t.root))
    assert doc.returncode == 2 and doc.stderr.count("matches no board profile") == 1, doc.stderr
    ok = procutil.run_cli("run", *args, "--board", "rpi3", *(["--dry-run"] if dry else []))
    assert ok.returncode == 0, ok.stderr
    assert t.snapshot() == before


@pytest.mark.parametrize("board", ["pi3bplus", "orin-nx"])
def test_a_hot_board_governed_by_its_family_says_so_once_caps_every_domain_and_restores(
    tmp_path: Path, board: str
) -> None:
    # Before (session 16's refusal): exit 2 until a --board or [run] board line was added.
    t = _pi3_bplus(tmp_path / "root") if board == "pi3bplus" else _orin_nx(tmp_path / "root")
    profile = "rpi3" if board == "pi3bplus" else "jetson-orin-nano"
    before = t.snapshot()
    doc = procutil.run_cli("doctor", "--sysfs-root", str(t.root))
    assert doc.returncode == 0 and f"governing with {profile}" in doc.stderr, doc.stderr
    assert f"profile: {profile}" in doc.stdout, doc.stdout
    journal, rc, err = _hot_run_stopped(tmp_path)
    assert rc == 0, err
    said = [ln for ln in err.splitlines() if "has no profile" in ln]
    assert len(said) == 1 and f"governing with {profile}" in said[0] and "--board" in said[0], err
    assert "is not governed" not in err, err
    bmap = map_board(discover(KernelTree(t.root)), load_board(profile))
    tops = {b.domain.name: max(b.hw_table_hz) for b in bmap.domains}
    assert set(tops) == {d.name for d in load_board(profile).domains}, bmap.missing_domains
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    trace = load_trace(run_dir)
    for name, top in tops.items():  # every domain capped below the board's top OPP at 92 °C
        caps = [v for v in trace[f"{name}_cap_hz"] if v is not None]
        assert caps and caps[-1] < top, (name, caps, top)
    assert len(journal["entries"]) >= len(tops)
    assert t.snapshot() == before


def test_a_dt_socs_entry_that_is_no_compatible_string_exits_2_with_one_line(tmp_path: Path) -> None:
    text = (Path(__file__).parents[2] / "thermogov" / "boards" / "rpi3.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('dt_socs = ["brcm,bcm2837"]', 'dt_socs = ["bcm2837"]'))
    r = procutil.run_cli(
        "doctor", "--sysfs-root", str(_pi3_bplus(tmp_path / "root").root), "--board", str(bad)
    )
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert "board.dt_socs" in lines[0] and "'bcm2837'" in lines[0] and "vendor,family" in lines[0], r.stderr


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
