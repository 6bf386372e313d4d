"""A governed fan on a real-shaped sysfs tree: found, journaled before the first write, restored on
every exit path (duration, SIGTERM/SIGINT, exception, kill -9 then restore or restart),
refused while nvfancontrol runs, and never owned unless the config asks."""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT as THERMOGOV
from tests.hw import fakesys
from tests.hw.cliargs import board_paths, run_options
from tests.hw.fakesys import FakeTree
from tests.hw.test_hw_process import DEADLINE_S, _wait_started
from thermogov.config import parse_config
from thermogov.hw.daemon import Runner, run
from thermogov.hw.fan import HwFan, discover_fan
from thermogov.hw.journal import AttrEntry, Journal, JournalError, new_journal_data, recover
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ConfigError

CDEV_STATE = "sys/devices/virtual/thermal/cooling_device0/cur_state"
RPI5_PWM = "sys/devices/platform/cooling_fan/hwmon/hwmon2/pwm1"
ORIN_PWM = "sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1"
ORIN_ENABLE = "sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1_enable"
GOVERNED = {"run": {"policy": "hysteresis", "fan": "governor"}}


def _pi5(tmp: Path, cpu_mc: int = 82000) -> FakeTree:
    t = fakesys.rpi5(tmp / "root", cpu_mc=cpu_mc)
    fakesys.pwm_fan(t, state=1, pwm=75)
    return t


def _orin(tmp: Path, cpu_mc: int = 90000) -> FakeTree:
    t = fakesys.orin_nano(tmp / "root", cpu_mc=cpu_mc, gpu_mc=cpu_mc)
    fakesys.pwm_fan(t, board="jetson", cdev=None, pwm=0, enable=2)
    return t


def _config_file(tmp: Path, text: str = '[run]\npolicy = "hysteresis"\nfan = "governor"\n') -> Path:
    p = tmp / "fan.toml"
    p.write_text(text)
    return p


def _started(tmp: Path, config: Path) -> subprocess.Popen[bytes]:
    """``thermogov run`` with ``config`` on the fake board at ``tmp``, once it printed that it started."""
    proc = subprocess.Popen(
        [THERMOGOV, "run", *board_paths(tmp), "--out", str(tmp / "out"), "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    _wait_started(proc)
    return proc


def _run(tmp: Path, config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """A short ``thermogov run`` of the installed script on the tree under ``tmp``."""
    return subprocess.run(
        [
            THERMOGOV,
            "run",
            *board_paths(tmp),
            "--out",
            str(tmp / "out"),
            "--duration",
            "0.2s",
            "--config",
            str(config),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )


def test_discovery_prefers_the_cooling_device_and_falls_back_to_pwm1(tmp_path: Path) -> None:
    pi = discover_fan(SysfsTree(_pi5(tmp_path / "a").root))
    assert (
        pi is not None and pi.state_rel == "sys/class/thermal/cooling_device0/cur_state" and pi.max_state == 4
    )
    orin = discover_fan(SysfsTree(_orin(tmp_path / "b").root))
    assert orin is not None and orin.cdev_rel is None and orin.pwm_rel == "sys/class/hwmon/hwmon2/pwm1"
    assert discover_fan(SysfsTree(fakesys.rpi5(tmp_path / "c" / "root").root)) is None


def test_pwm1_fan_writes_enable_then_duty_and_restores_both(tmp_path: Path) -> None:
    t = _orin(tmp_path)
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None
    fan = HwFan(tree, dev)
    assert fan.levels == 5 and fan.level == 0
    assert fan.apply(4) == 4
    assert t.read_int(ORIN_PWM) == 255 and t.read_int(ORIN_ENABLE) == 1
    fan.restore()
    assert t.read_int(ORIN_PWM) == 0 and t.read_int(ORIN_ENABLE) == 2


def test_a_governed_run_journals_the_fan_and_restores_it(tmp_path: Path) -> None:
    t = _pi5(tmp_path)
    before = t.snapshot()
    seen: list[dict] = []

    class Spy(Runner):
        def _loop(self, prep, gov, telemetry, on_tick, dry_ios, run_dir):  # type: ignore[override]
            def tick(rec):  # the journal exists and holds the fan's original before any write
                if not seen:
                    seen.append(json.loads((tmp_path / "state" / "journal.json").read_text()))
                on_tick(rec)

            super()._loop(prep, gov, telemetry, tick, dry_ios, run_dir)

    opts = run_options(tmp_path, 0.5, config=parse_config(GOVERNED))
    summary = Spy(opts).run()
    assert seen[0]["attrs"] == [{"rel": "sys/class/thermal/cooling_device0/cur_state", "value": 1}]
    assert t.snapshot() == before
    assert summary["fan_level_mean"] == 4.0  # 82 °C: the curve (65..80 °C) wants the top level
    assert not Journal(tmp_path / "state").exists()


def test_the_fan_is_restored_when_the_run_fails_with_an_exception(tmp_path: Path) -> None:
    t = _pi5(tmp_path)
    before = t.snapshot()

    class Boom(Runner):
        def _loop(self, prep, gov, telemetry, on_tick, dry_ios, run_dir):  # type: ignore[override]
            gov.sample("cpu", 0.0)
            gov.tick(0.0)
            assert t.read_int(CDEV_STATE) == 4  # written
            raise RuntimeError("injected")

    with pytest.raises(RuntimeError, match="injected"):
        Boom(run_options(tmp_path, 0.5, config=parse_config(GOVERNED))).run()
    assert t.snapshot() == before


def test_without_the_opt_in_the_fan_is_neither_owned_nor_written(tmp_path: Path) -> None:
    t = _pi5(tmp_path)
    before = t.read(CDEV_STATE), t.read(RPI5_PWM)
    summary = run(run_options(tmp_path, 0.3))
    assert (t.read(CDEV_STATE), t.read(RPI5_PWM)) == before
    assert "fan_switches" not in summary


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_restores_the_fan(tmp_path: Path, sig: signal.Signals) -> None:
    t = _orin(tmp_path)
    before = t.snapshot()
    proc = _started(tmp_path, _config_file(tmp_path))
    assert t.read_int(ORIN_PWM) == 255 and t.read_int(ORIN_ENABLE) == 1  # hot: fan at its top
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert t.snapshot() == before


def test_kill_9_then_restore_or_restart_puts_the_fan_back(tmp_path: Path) -> None:
    t = _orin(tmp_path)
    before = t.snapshot()
    cfg = _config_file(tmp_path)
    for follow_up in (
        ["restore", *board_paths(tmp_path)],
        ["run", *board_paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "0.2s"],
    ):
        proc = _started(tmp_path, cfg)
        proc.kill()
        proc.communicate(timeout=DEADLINE_S)
        assert t.read_int(ORIN_PWM) == 255  # left as the dead daemon set it
        r = subprocess.run([THERMOGOV, *follow_up], capture_output=True, text=True, timeout=DEADLINE_S)
        assert r.returncode == 0, r.stderr
        assert "fan setting(s)" in r.stdout + r.stderr
        assert t.snapshot() == before


def test_nvfancontrol_running_is_refused_with_one_line_and_nothing_written(tmp_path: Path) -> None:
    t = _orin(tmp_path)
    fakesys.fan_daemon(t)
    before = t.snapshot()
    r = _run(tmp_path, _config_file(tmp_path))
    assert r.returncode == 2
    assert (
        r.stderr.count("\n") == 1 and "nvfancontrol" in r.stderr and "systemctl stop nvfancontrol" in r.stderr
    )
    assert t.snapshot() == before


@pytest.mark.parametrize(
    "text",
    [
        '[run]\nfan = "governor"\n',  # no fan on this board
        '[run]\nfan = "on"\n',
        '[run]\nfan = "governor"\n[fan]\ndwell_s = nan\n',
        '[run]\nfan = "governor"\n[fan]\nhysteresis_c = -1\n',
        '[run]\nfan = "governor"\n[fan]\nstart_c = 80\nfull_c = 70\n',
        "[fan]\nspeed = 3\n",
    ],
)
def test_bad_fan_config_exits_2_with_one_line_and_writes_nothing(tmp_path: Path, text: str) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)  # no fan
    before = t.snapshot()
    r = _run(tmp_path, _config_file(tmp_path, text))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "fan" in r.stderr
    assert t.snapshot() == before


@pytest.mark.parametrize(
    ("rel", "value"),
    [
        ("sys/class/thermal/cooling_device0/cur_state", 9),  # beyond max_state 4
        ("sys/class/thermal/cooling_device0/cur_state", True),
        ("sys/devices/system/cpu/cpufreq/policy0/scaling_governor", 1),  # not a fan attribute
        ("sys/class/hwmon/hwmon2/pwm1", 300),
    ],
)
def test_a_tampered_fan_journal_is_refused_before_any_write(tmp_path: Path, rel: str, value: object) -> None:
    t = _pi5(tmp_path)
    before = t.snapshot()
    tree = SysfsTree(t.root)
    journal = Journal(tmp_path / "state")
    journal.write(dataclasses.replace(new_journal_data(tree, []), pid=1, attrs=(AttrEntry(rel, value),)))  # type: ignore[arg-type]
    with pytest.raises(JournalError, match="refused"):
        recover(tree, journal)
    assert t.snapshot() == before


def test_require_fan_names_the_fix(tmp_path: Path) -> None:
    from thermogov.hw.fan import require_fan

    with pytest.raises(ConfigError, match='fan = "board"'):
        require_fan(SysfsTree(fakesys.rpi5(tmp_path / "root").root))


def test_a_dry_run_owns_no_fan_attribute_and_logs_the_fan_writes(tmp_path: Path) -> None:
    t = _pi5(tmp_path)
    before = t.snapshot()
    import io

    err = io.StringIO()
    opts = run_options(tmp_path, 0.3, config=parse_config(GOVERNED), dry_run=True)
    summary = run(opts, err=err)
    assert t.snapshot() == before
    assert "would write" in err.getvalue() and "cooling_device0/cur_state=4" in err.getvalue()
    assert summary["fan_level_mean"] == 4.0  # the decisions are made, only not written


def test_doctor_shows_the_fan_and_who_else_drives_it(tmp_path: Path) -> None:
    from thermogov.config import Config
    from thermogov.hw.doctor import doctor_data, doctor_report

    t = _orin(tmp_path)
    fakesys.fan_daemon(t)
    tree = SysfsTree(t.root)
    lines = [ln for ln in doctor_report(tree, Config()) if "fan" in ln]
    assert any("pwmfan pwm1): pwm1 0, 2804 RPM" in ln for ln in lines)
    assert any("nvfancontrol drives it" in ln for ln in lines)
    data = doctor_data(tree, Config())["fan"]
    assert isinstance(data, dict) and data["pwm1_enable"] == 2 and data["rivals"] == ["nvfancontrol"]
    bare = SysfsTree(fakesys.rpi5(tmp_path / "bare" / "root").root)
    assert doctor_data(bare, Config())["fan"] is None


def test_a_reload_cannot_take_the_fan_away_and_the_stop_still_restores_it(tmp_path: Path) -> None:
    """``[run] fan`` decides what is owned: a SIGHUP changing it is refused; SIGTERM restores."""
    t = _orin(tmp_path)
    before = t.snapshot()
    cfg = _config_file(tmp_path)
    proc = _started(tmp_path, cfg)
    cfg.write_text('[run]\npolicy = "hysteresis"\nfan = "board"\n')
    proc.send_signal(signal.SIGHUP)
    (trace,) = (tmp_path / "out").glob("*/trace.csv")
    deadline = time.monotonic() + DEADLINE_S
    while "reload-rejected" not in trace.read_text() and time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        time.sleep(0.05)  # polling a condition with a deadline, not waiting a fixed time
    assert "reload-rejected" in trace.read_text()
    assert t.read_int(ORIN_PWM) == 255  # still governed
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert "reload rejected: fan." in err.decode() or "reload rejected: run.fan" in err.decode()
    assert t.snapshot() == before


def test_the_state_document_and_the_metrics_carry_a_governed_fan_level() -> None:
    from thermogov.governor import TickRecord
    from thermogov.statedoc import StateIdentity, build_state

    ident = StateIdentity(1, 0.0, "rpi5", False, "/tmp/run", "none")
    tick = TickRecord(
        1.0, 70.0, (70.0,), "cpu", "HIGH", (2_400_000_000,), (2_400_000_000,), None, None, "", fan_level=3
    )
    kw = {
        "time_unix": 1.0,
        "uptime_s": 1.0,
        "sensor_names": ("cpu",),
        "domain_names": ("cpu",),
        "policy": "stepped",
    }
    doc = build_state(ident, tick=tick, **kw)
    assert doc["fan"] == {"level": 3}
    assert build_state(ident, tick=tick._replace(fan_level=None), **kw)["fan"] is None
    from thermogov.hw.metrics import series

    by_name = {x.name: x for x in series(doc)}
    assert by_name["thermogov_fan_level"].samples == [((), 3)]
    assert "thermogov_fan_level" not in {x.name for x in series({**doc, "fan": None})}
