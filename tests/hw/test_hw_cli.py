"""doctor / run / restore through click: one line and exit 2 on bad input, nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.hw import fakesys
from tests.hw.cliargs import board_paths
from tests.hw.cliargs import run_args as _run_args
from tests.hw.fakesys import DATA, FakeTree
from thermogov.hw import daemon
from thermogov.hw.cli import doctor_command, restore_command, run_command
from thermogov.hw.journal import InstanceLock, Journal, JournalData, JournalEntry

POLICY0 = "sys/devices/system/cpu/cpufreq/policy0"


def _one_line_error(result, code: int = 2) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == code, result.output
    # a warning (the trip-hold check of a hot tree) may precede the error; the error is one line
    lines = [
        ln for ln in result.stderr.splitlines() if ln.strip() and not ln.startswith("thermogov: warning:")
    ]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("thermogov: error: ")
    return lines[0]


# -- doctor ------------------------------------------------------------------------------------
@pytest.mark.parametrize("board", sorted(fakesys.BOARDS))
def test_doctor_on_every_board_tree(tmp_path: Path, board: str) -> None:
    t = fakesys.BOARDS[board](tmp_path)
    before = t.snapshot()
    r = CliRunner().invoke(doctor_command, ["--sysfs-root", str(tmp_path)])
    assert r.exit_code == 0, r.output
    out = r.output
    assert f"profile: {board} (device-tree model matches" in out
    for section in (
        "thermal zones:",
        "cpufreq policies:",
        "devfreq devices:",
        f"mapping of profile {board}:",
    ):
        assert section in out
    assert "OPPs (scaling_available_frequencies):" in out
    assert "sensor cpu      -> thermal_zone" in out and "domain cpu      -> policy0" in out
    assert "fusion weights:" in out
    assert t.snapshot() == before  # doctor never writes


def test_doctor_shows_missing_sensor_and_renormalised_weights(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path)
    out = CliRunner().invoke(doctor_command, ["--sysfs-root", str(tmp_path)]).output
    assert "sensor battery  MISSING: no power_supply of type Battery" in out
    assert "fusion weights: cpu 0.6, gpu 0.3, battery 0.1 -> without battery: cpu 0.667, gpu 0.333" in out
    assert "17000000.ga10b  of_node ga10b (GPU)" in out and "OPPs: 306 408 510 612 625 MHz" in out
    assert "board power: rail VDD_IN on hwmon1" in out
    assert "rail VDD_IN           4.830 W" in out


def test_doctor_shows_bad_readings_in_place(tmp_path: Path) -> None:
    t = fakesys.agx_orin(tmp_path)
    t.write("sys/devices/virtual/thermal/thermal_zone1/temp", "\n")
    out = CliRunner().invoke(doctor_command, ["--sysfs-root", str(tmp_path)]).output
    assert "CV0-therm          ERROR" in out and "offline" in out
    assert "GPU-therm          ERROR" in out and "empty" in out


def test_doctor_with_laptop_battery(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)
    t.supply("BAT0", (DATA / "procfs_thinkpad_bat0_uevent.txt").read_text())
    out = CliRunner().invoke(doctor_command, ["--sysfs-root", str(tmp_path)]).output
    assert "BAT0            Battery            no temp attribute, capacity 85 %, Discharging" in out
    assert "battery BAT0 reports no temp attribute" in out


def test_doctor_board_override(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path)
    out = CliRunner().invoke(doctor_command, ["--sysfs-root", str(tmp_path), "--board", "rpi4"]).output
    assert "profile: rpi4 (--board rpi4)" in out


# -- run: refusals ---------------------------------------------------------------------------------
def test_non_root_is_refused_without_dry_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    monkeypatch.setattr(daemon.os, "geteuid", lambda: 1000)
    line = _one_line_error(CliRunner().invoke(run_command, _run_args(tmp_path)), 2)
    assert "needs root" in line and "--dry-run" in line
    assert t.snapshot() == before and not (tmp_path / "out").exists() and not (tmp_path / "run.lock").exists()


def test_non_root_dry_run_is_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    monkeypatch.setattr(daemon.os, "geteuid", lambda: 1000)
    r = CliRunner().invoke(run_command, [*_run_args(tmp_path), "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "sustained throughput not measured" in r.stdout
    assert t.snapshot() == before


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--duration", "soon"], "--duration"),
        (["--workload", "gpu-burn"], "--workload"),
        (["--workload", "cmd:"], "--workload"),
        (["--workload", "cmd:/nonexistent/infer"], "cannot start"),
        (["--count-regex", "x"], "--count-regex"),
        (["--workload", "cmd:true", "--count-regex", "("], "--count-regex"),
        (["--board", "pi9"], "--board: unknown board 'pi9'"),  # named as sim, import, emulate name it
        (["--board", "nope.toml"], "--board: no such file nope.toml"),
    ],
)
def test_bad_cli_values_exit_2_and_write_nothing(tmp_path: Path, extra: list[str], needle: str) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    line = _one_line_error(CliRunner().invoke(run_command, [*_run_args(tmp_path), *extra]))
    assert needle in line
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


def test_bad_config_exits_2(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[governor]\ncontrol_period_ms = 0\n")
    line = _one_line_error(CliRunner().invoke(run_command, [*_run_args(tmp_path), "--config", str(cfg)]))
    assert "control_period_ms" in line
    cfg.write_text("[policies.hysteresis]\ntrip_c = 60\nrelease_c = 70\n")
    line = _one_line_error(CliRunner().invoke(run_command, [*_run_args(tmp_path), "--config", str(cfg)]))
    assert "release_c" in line
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


@pytest.mark.parametrize(
    ("rel", "content", "needle"),
    [
        (f"{POLICY0}/scaling_available_frequencies", "fast slow\n", "scaling_available_frequencies"),
        (f"{POLICY0}/scaling_available_frequencies", "\n", "scaling_available_frequencies"),
        (f"{POLICY0}/scaling_max_freq", "lots\n", "scaling_max_freq"),
        ("sys/devices/virtual/thermal/thermal_zone0/type", None, "none of its sensors"),
    ],
)
def test_bad_sysfs_contents_exit_2_and_write_nothing(
    tmp_path: Path, rel: str, content: str | None, needle: str
) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    if content is None:
        (tmp_path / "root" / rel).unlink()
    else:
        t.write(rel, content)
    before = t.snapshot()
    line = _one_line_error(CliRunner().invoke(run_command, _run_args(tmp_path)))
    assert needle in line
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


def test_second_instance_exits_1(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    with InstanceLock(tmp_path / "run.lock"):
        line = _one_line_error(CliRunner().invoke(run_command, _run_args(tmp_path)), 1)
    assert f"pid {os.getpid()}" in line and "is running" in line
    assert t.snapshot() == before


def test_unwritable_state_dir_exits_2_before_any_write(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=90000)
    before = t.snapshot()
    (tmp_path / "afile").write_text("a file, not a directory")
    args = [*_run_args(tmp_path), "--state-dir", str(tmp_path / "afile" / "state")]
    line = _one_line_error(CliRunner().invoke(run_command, args))
    assert "--state-dir" in line
    assert t.snapshot() == before


# -- run / restore success -------------------------------------------------------------------------
def test_run_json_summary(tmp_path: Path) -> None:
    fakesys.rpi4(tmp_path / "root")
    r = CliRunner().invoke(run_command, [*_run_args(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    assert '"backend": "hw"' in r.stdout and '"tick_ms_p99"' in r.stdout


def test_restore_without_journal(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    r = CliRunner().invoke(
        restore_command,
        board_paths(tmp_path, "l"),
    )
    assert r.exit_code == 0 and "nothing to restore" in r.output


def test_restore_command_applies_the_journal(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    t.write(f"{POLICY0}/scaling_max_freq", 1500000)
    e = JournalEntry(
        "cpu", "policy0", f"{POLICY0}/scaling_min_freq", f"{POLICY0}/scaling_max_freq", 1000, 1500000, 2400000
    )
    Journal(tmp_path / "state").write(JournalData(999999, "", str(tmp_path / "root"), 0.0, (e,)))
    r = CliRunner().invoke(
        restore_command,
        board_paths(tmp_path, "l"),
    )
    assert r.exit_code == 0, r.output
    assert "restored 1 limit window(s) left by pid 999999" in r.output
    assert t.read_int(f"{POLICY0}/scaling_max_freq") == 2400000


def test_restore_refuses_while_a_daemon_holds_the_lock(tmp_path: Path) -> None:
    FakeTree(tmp_path / "root")
    with InstanceLock(tmp_path / "l"):
        r = CliRunner().invoke(
            restore_command,
            board_paths(tmp_path, "l"),
        )
    _one_line_error(r, 1)
