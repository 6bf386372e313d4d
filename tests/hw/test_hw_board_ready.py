"""The first hour on a board: --policy, no root, no board, doctor --json, the trip-hold warning."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tests.hw import fakesys
from tests.hw.asuser import run_as_nobody
from tests.hw.cliargs import board_paths, run_args
from thermogov import tomlread
from thermogov.board import builtin_board_names, load_board
from thermogov.config import Config, parse_config
from thermogov.hw import cli, holdcheck
from thermogov.hw.cli import doctor_command, restore_command, run_command
from thermogov.hw.sysfs import SysfsTree

SCRIPT = Path(sys.prefix) / "bin" / "thermogov"
TRIP75 = "[policies.stepped]\ntrip_c = 75.0\nrelease_c = 60.0\n"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def _dry(tmp: Path, *extra: str) -> list[str]:
    return run_args(tmp, "--dry-run", *extra)


# -- run --policy ----------------------------------------------------------------------------------
def test_run_policy_option_chooses_the_policy(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    r = CliRunner().invoke(run_command, _dry(tmp_path, "--policy", "hysteresis"))
    assert r.exit_code == 0, r.output
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    assert tomlread.loads((run_dir / "config.toml").read_text())["run"]["policy"] == "hysteresis"


def test_run_policy_overrides_the_config(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    (tmp_path / "c.toml").write_text('[run]\npolicy = "hysteresis"\n')
    r = CliRunner().invoke(
        run_command, [*_dry(tmp_path, "--policy", "performance"), "--config", str(tmp_path / "c.toml")]
    )
    assert r.exit_code == 0, r.output
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    assert tomlread.loads((run_dir / "config.toml").read_text())["run"]["policy"] == "performance"


def test_run_bad_policy_name_exits_2_naming_the_option(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    r = CliRunner().invoke(run_command, _dry(tmp_path, "--policy", "nope"))
    assert r.exit_code == 2
    (line,) = r.stderr.strip().splitlines()
    assert (
        line.startswith("thermogov: error: --policy: unknown policy 'nope'; choose one of")
        and "stepped" in line
    )
    assert t.snapshot() == before and not (tmp_path / "out").exists()


# -- restore needs root ----------------------------------------------------------------------------
def test_restore_without_root_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fakesys.rpi5(tmp_path / "root")
    monkeypatch.setattr(cli.os, "geteuid", lambda: 1000)
    r = CliRunner().invoke(restore_command, board_paths(tmp_path, "l"))
    assert (
        r.exit_code == 2
        and r.stderr.strip()
        == "thermogov: error: restore: writing cpufreq/devfreq limits back needs root; use sudo"
    )
    assert not (tmp_path / "l").exists()


# -- no board ---------------------------------------------------------------------------------------
def test_doctor_without_a_board_exits_1_naming_what_it_looked_for(tmp_path: Path) -> None:
    r = _cli("doctor", "--sysfs-root", str(tmp_path))
    assert r.returncode == 1, r.stdout + r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("thermogov: no board here:")
    for looked in (
        "sys/class/thermal/thermal_zone*",
        "sys/devices/system/cpu/cpufreq/policy*",
        "thermogov emulate",
    ):
        assert looked in line
    assert r.stdout == ""


def test_doctor_with_sensors_but_no_clocks_is_no_board(tmp_path: Path) -> None:
    t = fakesys.FakeTree(tmp_path)
    t.zone(0, "cpu-thermal", 50000)
    r = CliRunner().invoke(doctor_command, ["--sysfs-root", str(tmp_path), "--json"])
    assert r.exit_code == 1
    data = json.loads(r.stdout)
    assert data["board_found"] is False and "no cpufreq policy" in data["no_board"]
    assert "no thermal zone" not in data["no_board"]


def test_doctor_missing_root_exits_2() -> None:
    r = _cli("doctor", "--sysfs-root", "/nonexistent")
    assert r.returncode == 2 and "/nonexistent" in r.stderr and "Traceback" not in r.stderr


# -- doctor --json ----------------------------------------------------------------------------------
def test_doctor_json_reports_the_mapping(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path)
    r = CliRunner().invoke(doctor_command, ["--sysfs-root", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["board_found"] is True and data["no_board"] is None and data["warnings"] == []
    assert data["profile"]["name"] == "jetson-orin-nano"
    sensors = {s["name"]: s for s in data["mapping"]["sensors"]}
    assert "no power_supply of type Battery" in sensors["battery"]["missing"]
    assert isinstance(sensors["cpu"]["temp_c"], float)
    gpu = next(d for d in data["devfreq"] if d["gpu"])
    assert gpu["opps_mhz"] == [306.0, 408.0, 510.0, 612.0, 625.0]
    assert data["board_power"] == {"rail": "VDD_IN", "hwmon": "hwmon1"}


def test_doctor_json_shows_a_bad_reading_as_an_error(tmp_path: Path) -> None:
    t = fakesys.agx_orin(tmp_path)
    t.write("sys/devices/virtual/thermal/thermal_zone1/temp", "\n")
    data = json.loads(CliRunner().invoke(doctor_command, ["--sysfs-root", str(tmp_path), "--json"]).stdout)
    zone1 = next(z for z in data["thermal_zones"] if z["name"] == "thermal_zone1")
    assert "empty" in zone1["temp_c"]["error"]


# -- the trip cannot be held -----------------------------------------------------------------------
def test_doctor_and_run_warn_when_the_trip_cannot_be_held(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    (tmp_path / "c.toml").write_text(TRIP75)
    doc = _cli("doctor", "--sysfs-root", str(tmp_path / "root"), "--config", str(tmp_path / "c.toml"))
    assert doc.returncode == 0, doc.stderr
    (warning,) = [ln for ln in doc.stderr.splitlines() if ln.startswith("thermogov: warning:")]
    assert "trip 75 °C cannot be held even at the lowest caps (cpu 1500 MHz)" in warning
    assert "rpi5 profile predicts a steady" in warning and "raise trip_c in [policies.stepped]" in warning
    run = CliRunner().invoke(run_command, [*_dry(tmp_path), "--config", str(tmp_path / "c.toml")])
    assert run.exit_code == 0, run.output
    assert warning in run.stderr
    assert t.snapshot() == before


def test_a_bad_policy_table_is_the_only_line_even_when_the_trip_cannot_be_held(tmp_path: Path) -> None:
    """Found by the config fuzz: the hold warning came before the policy table's error line."""
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    (tmp_path / "c.toml").write_text(TRIP75 + "switch_on_c = 50.0\n")
    r = _cli("run", *_dry(tmp_path), "--config", str(tmp_path / "c.toml"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [
        f"thermogov: error: {tmp_path / 'c.toml'}: policies.stepped.switch_on_c: unknown key; remove it (known: "
        + r.stderr.split("(known: ", 1)[1].strip()
    ]
    assert not (tmp_path / "out").exists() and t.snapshot() == before


def test_a_bad_output_folder_is_the_only_line_on_a_board_missing_a_domain(tmp_path: Path) -> None:
    """The "domain not governed" warning waits until the run's own input is known to be good."""
    fakesys.orin_nano(tmp_path / "root")
    shutil.rmtree(tmp_path / "root/sys/class/devfreq")
    args = [a if a != str(tmp_path / "out") else "/dev/null" for a in _dry(tmp_path)]
    r = _cli("run", *args)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith("thermogov: error: --out") or "/dev/null" in r.stderr
    ok = _cli("run", *_dry(tmp_path))
    assert ok.returncode == 0, ok.stderr
    assert "warning: domain gpu" in ok.stderr


def test_the_warning_points_at_the_lever_or_says_it_will_act(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    (tmp_path / "c.toml").write_text(TRIP75)
    (tmp_path / "l.toml").write_text(TRIP75 + "\n[lever]\nenabled = true\n")
    lines = {}
    for name in ("c", "l"):
        r = _cli("doctor", "--sysfs-root", str(tmp_path / "root"), "--config", str(tmp_path / f"{name}.toml"))
        assert r.returncode == 0, r.stderr
        (lines[name],) = [ln for ln in r.stderr.splitlines() if ln.startswith("thermogov: warning:")]
    assert "set [lever] enabled = true" in lines["c"]
    assert "the lever below the lowest clock ([lever]) will step the load down" in lines["l"]


def test_no_warning_when_the_trip_holds(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path)
    r = _cli("doctor", "--sysfs-root", str(tmp_path))
    assert r.returncode == 0 and "warning" not in r.stderr


@pytest.mark.parametrize("board", builtin_board_names())
def test_steady_state_solver_matches_the_linear_algebra(board: str) -> None:
    """No leakage feedback at a fixed point: T = T_amb + G^-1 P, checked against numpy."""
    b = load_board(board)
    clocks = {d.name: d.opp_hz[0] for d in b.domains}
    node_c = holdcheck.steady_state_c(b, clocks, 1.0, 25.0)
    names = b.thermal.node_names()
    idx = {n: i for i, n in enumerate(names)}
    g = np.diag([n.to_ambient_w_per_k for n in b.thermal.nodes])
    for link in b.thermal.links:
        i, j = idx[link.a], idx[link.b]
        g[i, i] += link.conductance_w_per_k
        g[j, j] += link.conductance_w_per_k
        g[i, j] -= link.conductance_w_per_k
        g[j, i] -= link.conductance_w_per_k
    # the power at the solver's own temperatures must reproduce those temperatures
    from thermogov import costmodel

    cores = costmodel.busy_cores(b.model, {d: clocks[d] for d in b.model.cycles}, 1.0)
    p = np.zeros(len(names))
    p[idx[b.thermal.rest_of_board_node]] += b.thermal.rest_of_board_w if b.thermal.rest_of_board_node else 0.0
    total = b.thermal.rest_of_board_w
    for d in b.domains:
        w = costmodel.domain_power_w(d, clocks[d.name], cores.get(d.name, 0.0), node_c[d.node])
        p[idx[d.node]] += w
        total += w
    if b.battery is not None:
        drawn = total / b.battery.converter_efficiency
        p[idx[b.battery.node]] += (drawn / b.battery.voltage_v) ** 2 * b.battery.r0_ohm
        p[idx[b.thermal.rest_of_board_node]] += drawn - total
    expect = np.linalg.solve(g, p) + 25.0
    assert np.allclose([node_c[n] for n in names], expect, atol=1e-4)


@pytest.mark.parametrize("board", [n for n in builtin_board_names() if load_board(n).battery is None])
def test_idle_steady_state_is_the_simulators(board: str) -> None:
    """The simulator starts a run at its idle steady state: the same model must agree.

    (Boards with a battery differ by its Joule heat and converter loss, which the simulator's
    dynamics include but its idle starting point leaves out; the solver includes them.)
    """
    from thermogov.sim.model.world import SimWorld

    cfg = Config(board=board)
    b = cfg.load_board()
    world = SimWorld(b, cfg)
    clocks = world.effective_clocks()
    node_c = holdcheck.steady_state_c(b, clocks, 0.0, cfg.sim.ambient_c)
    sim = dict(zip(world.plant.names, world.idle_steady_state_c(), strict=True))
    for n in sim:
        assert node_c[n] == pytest.approx(sim[n], abs=0.05), n


def test_inferred_ambient_round_trips() -> None:
    b = load_board("rpi5")
    specs = Config().sensor_specs(b)
    top = {d.name: d.opp_hz[-1] for d in b.domains}
    for amb in (5.0, 25.0, 40.0):
        now = holdcheck.fused_c(b, specs, holdcheck.steady_state_c(b, top, 0.0, amb))
        assert holdcheck.infer_ambient_c(b, specs, top, now) == pytest.approx(amb, abs=1e-6)


def test_runaway_is_reported_as_such() -> None:
    b = load_board("jetson-orin-nano")  # sealed fanless: full clocks never settle
    top = {d.name: d.opp_hz[-1] for d in b.domains}
    assert all(math.isinf(v) for v in holdcheck.steady_state_c(b, top, 1.0, 25.0).values())


def test_policy_trip_of_every_policy_kind() -> None:
    cfg = parse_config(
        {
            "policies": {
                "stepped": {"trip_c": 75.0, "release_c": 60.0},
                "step_wise": {"trips": [{"temp_c": 80.0, "hyst_c": 2.0}]},
                "power_allocator": {"control_c": 82.0},
            }
        }
    )
    assert holdcheck.policy_trip_c(cfg, "stepped") == 75.0
    assert holdcheck.policy_trip_c(cfg, "hysteresis") == 85.0
    assert holdcheck.policy_trip_c(cfg, "step_wise") == 80.0
    assert holdcheck.policy_trip_c(cfg, "power_allocator") == 82.0
    assert holdcheck.policy_trip_c(cfg, "performance") is None
    assert holdcheck.policy_trip_c(cfg, "fixed:1500") is None


def test_hold_check_on_a_board_without_its_gpu_domain(tmp_path: Path) -> None:
    """The Orin Nano's model has a GPU stage; a tree without the GPU devfreq still predicts."""
    from thermogov.hw.daemon import RunOptions, prepare

    fakesys.orin_nano(tmp_path)
    shutil.rmtree(tmp_path / "sys/class/devfreq")
    prep = prepare(RunOptions(config=Config(), sysfs_root=tmp_path))
    check = holdcheck.check_hold(prep.tree, prep.board, prep.bmap, prep.config, prep.specs)
    assert check is not None and set(check.lowest_hz) == {"cpu"}
    assert check.now_c < check.predicted_c < math.inf


def test_hold_warning_is_silent_on_a_board_already_at_its_trip(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path, cpu_mc=80000)  # busy now: the idle-ambient inference would not hold
    cfg = parse_config(tomlread.loads(TRIP75))
    assert holdcheck.hold_warning(SysfsTree(tmp_path), cfg, None) is None


def test_hold_warning_is_silent_when_nothing_reads(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path)
    for zone in (tmp_path / "sys/devices/virtual/thermal").glob("thermal_zone*"):
        (zone / "temp").write_text("\n")
    cfg = parse_config(tomlread.loads(TRIP75))
    assert t is not None and holdcheck.hold_warning(SysfsTree(tmp_path), cfg, None) is None


# -- as user nobody, with the unit's 0700 state directory -----------------------------------------
@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A folder user nobody can reach (pytest's tmp_path is under a 0700 folder)."""
    d = Path(tempfile.mkdtemp(prefix="thermogov-nobody-"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d)


def _nobody_tree(d: Path) -> Path:
    fakesys.rpi5(d / "root")
    for p in (d / "root").rglob("*"):
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)
    state = d / "state"
    state.mkdir(mode=0o700)
    (state / "journal.json").write_text("{}")
    (d / "out").mkdir()
    (d / "out").chmod(0o777)
    return state


def test_dry_run_and_doctor_work_as_nobody_with_an_unreadable_state_dir(open_tmp: Path) -> None:
    state = _nobody_tree(open_tmp)
    root = str(open_tmp / "root")
    before = fakesys.FakeTree(open_tmp / "root").snapshot()
    run = run_as_nobody(
        [
            "run",
            "--dry-run",
            "--sysfs-root",
            root,
            "--state-dir",
            str(state),
            "--out",
            str(open_tmp / "out"),
            "--duration",
            "0.3s",
        ]
    )
    assert run.returncode == 0, run.stderr
    assert "not readable" not in run.stdout and "Traceback" not in run.stderr
    assert f"{state} is not readable as this user" in run.stderr
    doc = run_as_nobody(["doctor", "--sysfs-root", root])
    assert doc.returncode == 0, doc.stderr
    assert "profile: rpi5" in doc.stdout
    assert fakesys.FakeTree(open_tmp / "root").snapshot() == before


def test_restore_as_nobody_needs_root(open_tmp: Path) -> None:
    state = _nobody_tree(open_tmp)
    r = run_as_nobody(["restore", "--sysfs-root", str(open_tmp / "root"), "--state-dir", str(state)])
    # (its exit status 2 is tested through CliRunner above: main()'s status contract is the CLI's)
    assert (
        r.stderr.strip()
        == "thermogov: error: restore: writing cpufreq/devfreq limits back needs root; use sudo"
    )
    assert (state / "journal.json").read_text() == "{}"
    assert os.stat(state).st_mode & 0o777 == 0o700
