"""The emulator is a faithful stand-in: it dies loudly, and its tree is shaped like the board's."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from tests.hw.fakesys import RPI5_TRIPS, real_file
from thermogov.board import builtin_board_names, load_board
from thermogov.config import Config
from thermogov.hw.discovery import PoweredOffError, discover
from thermogov.hw.mapping import map_board
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.telemetry import HwTelemetry
from thermogov.sim.emulator.emulate import Emulator
from thermogov.sim.emulator.fakeboard import build_fake_board
from thermogov.sim.emulator.trees import tree_shape

THERMOGOV = [sys.executable, "-m", "thermogov.cli"]


def tg(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*THERMOGOV, *args], capture_output=True, text=True, timeout=timeout)


def test_a_simulated_shutdown_is_reported_exits_1_and_powers_the_tree_off(tmp_path: Path) -> None:
    root = tmp_path / "board"
    # Full clocks from 104 °C: the 104.5 °C critical trip fires within a few simulated seconds.
    emu = tg("emulate", "--sysfs-root", str(root), "--speed", "20", "--initial-temp", "104")
    assert emu.returncode == 1, emu.stderr
    (line,) = emu.stderr.strip().splitlines()
    assert "powered off" in line and "board shutdown" in line and "104.5" in line
    assert (root / "POWERED_OFF").read_text().startswith("board shutdown")
    for rel in ("sys/class/thermal", "sys/class/hwmon", "sys/class/power_supply"):
        assert not (root / rel).exists(), rel
    with pytest.raises(PoweredOffError, match="POWERED_OFF"):
        discover(SysfsTree(root))
    for cmd in (
        ["doctor", "--sysfs-root", str(root)],
        ["run", "--dry-run", "--sysfs-root", str(root), "--duration", "1s", "--out", str(tmp_path / "o")],
    ):
        r = tg(*cmd)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        (err,) = r.stderr.strip().splitlines()
        assert "POWERED_OFF" in err and "powered off" in err and "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_a_new_emulator_revives_a_powered_off_tree(tmp_path: Path) -> None:
    board = load_board("jetson-orin-nano")
    root = tmp_path / "board"
    emu = Emulator(board, root, Config(), speed=1.0)
    emu.power_off("emulator stopped")
    assert (root / "POWERED_OFF").exists() and not (root / "sys/class/thermal").exists()
    Emulator(board, root, Config(), speed=1.0)
    assert not (root / "POWERED_OFF").exists()
    assert len(discover(SysfsTree(root)).zones) == 2


@pytest.mark.parametrize("speed", ["nan", "inf", "0", "-1", "100.5"])
def test_speed_must_be_finite_and_in_range(tmp_path: Path, speed: str) -> None:
    r = tg("emulate", "--sysfs-root", str(tmp_path / "b"), "--speed", speed, "--wall-duration", "1s")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    # nan/inf are refused by the CLI's finite guard (thermogov/clinumbers.py), naming the range
    assert "--speed" in line and "0.01 <= speed <= 100" in line
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    ("opt", "value"), [("--ambient", "nan"), ("--ambient", "90"), ("--initial-temp", "inf")]
)
def test_temperatures_must_be_finite_and_plausible(tmp_path: Path, opt: str, value: str) -> None:
    r = tg("emulate", "--sysfs-root", str(tmp_path / "b"), opt, value, "--wall-duration", "1s")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert opt in line and "out of range" in line
    assert not (tmp_path / "b").exists()


def test_help_documents_real_time_default_and_the_wall_duration() -> None:
    r = tg("emulate", "--help")
    text = " ".join(r.stdout.split())
    assert r.returncode == 0
    assert "--wall-duration" in text and "--speed" in text and "default: 1.0" in text
    assert "POWERED_OFF" in text and "Example:" in text
    options = text.split("Options:")[1].split("Example:")[0]
    assert "--duration " not in options  # the deprecated alias is hidden


def test_the_deprecated_duration_alias_still_works(tmp_path: Path) -> None:
    r = tg("emulate", "--sysfs-root", str(tmp_path / "b"), "--speed", "50", "--duration", "0.2s")
    assert r.returncode == 0, r.stderr
    assert "deprecated" in r.stderr and "stopped" in r.stdout
    assert (tmp_path / "b" / "POWERED_OFF").read_text().startswith("emulator stopped")


def test_board_takes_a_name_or_a_toml_file_like_every_command(tmp_path: Path) -> None:
    """``--board`` is a built-in name or a board TOML everywhere (README); emulate took names only."""
    profile = tmp_path / "my-pi.toml"
    profile.write_text(resources.files("thermogov").joinpath("boards/rpi5.toml").read_text(encoding="utf-8"))
    root = str(tmp_path / "b")
    r = tg(
        "emulate", "--board", str(profile), "--sysfs-root", root, "--speed", "50", "--wall-duration", "0.2s"
    )
    assert r.returncode == 0, r.stderr
    assert "emulating rpi5" in r.stdout
    bad = tg("emulate", "--board", "pi9", "--sysfs-root", str(tmp_path / "c"), "--wall-duration", "1s")
    assert bad.returncode == 2
    (line,) = bad.stderr.strip().splitlines()
    assert "--board: unknown board 'pi9'" in line and "board TOML" in line
    assert not (tmp_path / "c").exists()


def test_refuses_to_build_over_a_live_sysfs() -> None:
    from thermogov.interfaces import ConfigError

    with pytest.raises(ConfigError, match="live sysfs"):
        build_fake_board(load_board("rpi5"), Path("/"), {"cpu": 50.0})


# -- trees as rich as real ones ------------------------------------------------------------------
def test_orin_nano_zones_carry_the_tegra234_trips_and_the_ina3221_rails(tmp_path: Path) -> None:
    board = load_board("jetson-orin-nano")
    build_fake_board(board, tmp_path, {s.name: 50.0 for s in board.sensors})
    inv = discover(SysfsTree(tmp_path))
    for z in inv.zones:
        assert [(t.type, t.temp_c, t.hyst_c) for t in z.trips] == [
            ("passive", 99.0, 0.0),
            ("critical", 104.5, 0.0),
        ]
    (chip,) = inv.hwmons
    assert chip.chip == "ina3221"
    assert [r.label for r in chip.rails] == ["VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"]
    assert map_board(inv, board).power is not None


def test_emulated_rails_carry_the_model_power_and_the_daemon_reads_it(tmp_path: Path) -> None:
    board = load_board("jetson-orin-nano")
    emu = Emulator(board, tmp_path, Config(), speed=1.0)
    for k in range(1, 6):
        emu.step(k * 0.5)
    tree = SysfsTree(tmp_path)
    bmap = map_board(discover(tree), board)
    assert bmap.power is not None and bmap.power.label == "VDD_IN"
    watts = HwTelemetry(tree, bmap.power).power_w()
    model = emu.world.last_power_w
    assert watts is not None and model is not None and model > 3.0
    assert watts == pytest.approx(model, rel=0.01)  # mA rounding only
    cpu_gpu = next(r for h in discover(tree).hwmons for r in h.rails if r.label == "VDD_CPU_GPU_CV")
    doms = emu.world.domain_power_w()
    assert tree.read_int(cpu_gpu.curr_rel) == round((doms["cpu"] + doms["gpu"]) / 4.99 * 1000)


def test_rpi5_lists_the_kernel_table_from_1ghz_and_governs_from_the_firmware_floor(tmp_path: Path) -> None:
    board = load_board("rpi5")
    build_fake_board(board, tmp_path, {"cpu": 50.0})
    tree = SysfsTree(tmp_path)
    inv = discover(tree)
    (pol,) = inv.policies
    assert pol.table_hz == tuple(f * 100_000_000 for f in range(10, 25))
    assert [(t.type, round(t.temp_c * 1000), round(t.hyst_c * 1000)) for t in inv.zones[0].trips] == sorted(
        RPI5_TRIPS, key=lambda t: t[0] != "critical"
    )
    assert {h.chip for h in inv.hwmons} == {"rp1_adc", "cpu_thermal", "pwmfan"}
    assert tree.read_text(f"{pol.rel}/scaling_governor") == "ondemand"
    assert map_board(inv, board).power is None  # a Pi 5 has no power rail in sysfs
    from thermogov.hw.devices import CapActuator

    (dom,) = map_board(inv, board).domains
    assert CapActuator.open(tree, dom).table_hz[0] == 1_500_000_000  # the firmware's arm_freq_min


def test_rpi5_listing_matches_a_real_pi5(tmp_path: Path) -> None:
    real = real_file("sysfs_rpi5_cpufreq_available_vs_actual.txt").read_text().splitlines()[1]
    board = load_board("rpi5")
    build_fake_board(board, tmp_path, {"cpu": 50.0})
    ours = (tmp_path / "sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies").read_text()
    assert ours.split() == real.split()


def test_emulated_board_follows_the_pi5_firmware_below_its_floor(tmp_path: Path) -> None:
    board = load_board("rpi5")
    emu = Emulator(board, tmp_path, Config(board="rpi5"), speed=1.0)
    pol = tmp_path / "sys/devices/system/cpu/cpufreq/policy0"
    (pol / "scaling_max_freq").write_text("1000000\n")
    emu.step(0.5)
    assert (pol / "scaling_cur_freq").read_text().strip() == "1500000"  # as issue 5876 measured


def test_warm_up_starts_the_tree_hot_with_each_node_where_its_history_puts_it(tmp_path: Path) -> None:
    board = load_board("jetson-orin-nano")
    Emulator(board, tmp_path / "cold", Config(), speed=1.0)
    warm = Emulator(board, tmp_path / "warm", Config(), speed=1.0, warm_up_s=100.0)
    read = lambda root, rel: int((root / rel).read_text()) / 1000  # noqa: E731
    zone = "sys/class/thermal/thermal_zone0/temp"
    assert read(tmp_path / "warm", zone) > read(tmp_path / "cold", zone) + 25.0
    # the slow battery has barely moved: not one temperature for every node
    assert warm.world.sensors["battery"]._node_temp() < read(tmp_path / "warm", zone) - 20.0
    assert warm.t0 == 100.0


def test_a_warm_up_into_shutdown_is_refused(tmp_path: Path) -> None:
    r = tg("emulate", "--sysfs-root", str(tmp_path / "b"), "--warm-up", "1h", "--wall-duration", "1s")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert "--warm-up" in line and "shorter" in line


@pytest.mark.parametrize("name", builtin_board_names())
def test_every_board_tree_has_its_shape_and_the_daemon_maps_it(tmp_path: Path, name: str) -> None:
    board = load_board(name)
    shape = tree_shape(board)
    emu = Emulator(board, tmp_path, Config(board=name), speed=1.0)
    emu.step(1.0)
    inv = discover(SysfsTree(tmp_path))
    bmap = map_board(inv, board)
    assert not bmap.missing_domains
    by_type = {z.type: z for z in inv.zones}
    for s in board.sensors:
        if s.kind == "thermal_zone":
            z = by_type[s.sysfs_names[0]]
            want = [(t.type, t.temp_c, t.hyst_c) for t in shape.trips.get(s.name, ())]
            assert [(t.type, t.temp_c, t.hyst_c) for t in z.trips] == want
    labels = [r.label for h in inv.hwmons for r in h.rails] + [r.label for r in inv.iio_rails]
    ordered = [c for c in shape.chips if not c.i2c_device] + [c for c in shape.chips if c.i2c_device]
    assert labels == [r.label for c in ordered for r in c.rails if r.label != "NC"]
    if any(r.input for c in shape.chips for r in c.rails):
        assert bmap.power is not None and HwTelemetry(SysfsTree(tmp_path), bmap.power).power_w() > 0


def test_a_tree_shape_naming_an_unknown_sensor_or_domain_is_refused() -> None:
    from thermogov.interfaces import ConfigError
    from thermogov.sim.emulator.trees import parse_tree_shape

    board = load_board("jetson-orin-nano")
    with pytest.raises(ConfigError, match=r"zones\.fan"):
        parse_tree_shape({"zones": {"fan": {"trips": []}}}, "t.toml", board)
    with pytest.raises(ConfigError, match="unknown domain 'npu'"):
        parse_tree_shape(
            {"hwmon": [{"name": "x", "rails": [{"label": "A", "volt_v": 5, "domains": ["npu"]}]}]},
            "t.toml",
            board,
        )
    with pytest.raises(ConfigError, match="trips"):
        parse_tree_shape({"zones": {"cpu": {"trips": [{"type": "warm", "temp_c": 50}]}}}, "t.toml", board)


def test_a_daemon_governing_a_tree_that_powers_off_goes_to_failsafe(tmp_path: Path) -> None:
    board = load_board("jetson-orin-nano")
    root = tmp_path / "board"
    emu = Emulator(board, root, Config(), speed=1.0)
    emu.step(0.1)
    cmd = [*THERMOGOV, "run", "--dry-run", "--sysfs-root", str(root), "--board", board.name]
    cmd += ["--duration", "3s", "--out", str(tmp_path / "out")]
    daemon = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert daemon.stdout is not None
        for line in daemon.stdout:  # bounded by the daemon's own --duration
            if "started" in line:
                break
        emu.power_off("board shutdown: test")
        _, err = daemon.communicate(timeout=60)
    finally:
        daemon.kill()
    assert daemon.returncode == 0, err
    assert "ENOENT" in err
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    rows = (run_dir / "trace.csv").read_text().splitlines()
    header = rows[0].split(",")
    events = [dict(zip(header, r.split(","), strict=False)) for r in rows[1:]]
    assert any("temp_unknown" in e["event"] for e in events)
    assert events[-1]["policy_state"] == "FAILSAFE"
