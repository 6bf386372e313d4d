"""Session 21b: the L4T fan's hwmon twin, and jtop as another writer of the fan.

L4T 32.4+ registers the pwm-fan's attribute group a second time as the hwmon ``tegra_pwmfan``
(hw/fantwin.py): one fan, two folders, one ``fan_data`` (hard links in these trees).  thermogov
governs the platform device's files only and ``doctor`` names the twin.  jtop's service writes
``target_pwm``/``temp_control`` through that twin when a user sets a speed or profile
(hw/jtopfan.py): read back other than thermogov wrote, the fan is left to that writer (said
once, dropped from the journal, not restored), never fought.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.fakesys import FakeTree
from thermogov.hw.fan import HwFan, discover_fan
from thermogov.hw.sysfs import SysfsTree

FAN = fakesys.L4T_FAN
TARGET = f"{FAN}/target_pwm"
CONTROL = f"{FAN}/temp_control"
TWIN = f"{FAN}/hwmon/hwmon9"
GOVERNED = 'fan = "governor"\n'
LEFT = "another writer drives the fan"


def _nano_jp46(root: Path, *, target: int = 37, pwm1: int | None = None) -> FakeTree:
    """A hot Nano on L4T 32.4+: the platform fan files and their hwmon twin."""
    t = fakesys.jetson_nano(root, cpu_mc=92000)
    for name, value in (("target_pwm", target), ("cur_pwm", 0), ("temp_control", 1), ("pwm_cap", 255)):
        t.write(f"{FAN}/{name}", value)
    fakesys.l4t_fan_twin(t, hwmon=9, pwm1=pwm1)
    return t


def _start(tmp: Path, *extra: str) -> subprocess.Popen[bytes]:
    """``thermogov run`` with the fan given to the governor, through the installed script."""
    proc = procutil.start_run(tmp, *extra, run_lines=GOVERNED)
    if not extra:
        procutil.wait_line(proc, "thermogov: started")
    return proc


def _journal_fan(tmp: Path) -> dict[str, int]:
    body = json.loads((tmp / "state/journal.json").read_text())
    return {a["rel"]: a["value"] for a in body.get("attrs") or []}


@pytest.mark.parametrize("pwm1", [None, 80])
def test_the_twin_is_never_journaled_written_or_restored(tmp_path: Path, pwm1: int | None) -> None:
    """One interface of one fan: the platform device's, journaled once, restored once."""
    t = _nano_jp46(tmp_path / "root", pwm1=pwm1)
    before = t.snapshot()
    proc = _start(tmp_path)
    assert _journal_fan(tmp_path) == {CONTROL: 1, TARGET: 37}
    assert t.read_int(TARGET) == 255 and t.read_int(f"{TWIN}/target_pwm") == 255  # one variable
    if pwm1 is not None:
        assert t.read_int(f"{TWIN}/pwm1") == pwm1
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert "restored" in err.decode() and LEFT not in err.decode()
    assert t.snapshot() == before


def test_doctor_names_the_twin_as_left_alone(tmp_path: Path) -> None:
    _nano_jp46(tmp_path / "root", pwm1=0)
    root = str(tmp_path / "root")
    done = procutil.run_cli("doctor", "--sysfs-root", root)
    assert done.returncode == 0, done.stderr
    assert "pwm-fan (L4T pwm-fan target_pwm 0..255)" in done.stdout
    assert "also " in done.stdout and "hwmon9 (tegra_pwmfan): the same fan" in done.stdout
    data = json.loads(procutil.run_cli("doctor", "--json", "--sysfs-root", root).stdout)
    assert [w.rsplit("/", 1)[-1] for w in data["fan"]["twins"]] == ["hwmon9 (tegra_pwmfan)"]


def test_a_speed_set_through_the_twin_leaves_the_fan_to_that_writer(tmp_path: Path) -> None:
    """jtop's "manual" speed (50 %: 127) written to the twin mid-run: said once, never written
    over, and at exit left as jtop set it (its speed holds only with temp_control 0)."""
    t = _nano_jp46(tmp_path / "root")
    proc = _start(tmp_path)
    assert t.read_int(TARGET) == 255
    t.write(f"{TWIN}/target_pwm", 127)
    procutil.wait_line(proc, LEFT, "stderr")
    assert _journal_fan(tmp_path) == {}  # a restore after a crash leaves it too
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert LEFT not in err.decode()  # said once (the line above was read already)
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (127, 0)
    assert not (tmp_path / "state/journal.json").exists()
    summaries = list((tmp_path / "out").rglob("summary.json"))
    assert [json.loads(p.read_text())["fan_owner"] for p in summaries] == ["another writer"]


def test_a_profile_set_through_the_twin_leaves_the_fan(tmp_path: Path) -> None:
    """jtop's "temp_control" profile hands the fan back to the kernel's curve (1)."""
    t = _nano_jp46(tmp_path / "root")
    proc = _start(tmp_path)
    assert t.read_int(CONTROL) == 0
    t.write(f"{TWIN}/temp_control", 1)
    line = procutil.wait_line(proc, LEFT, "stderr")
    assert "temp_control reads 1, not 0" in line
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert t.read_int(CONTROL) == 1


def test_kill_9_after_the_fan_was_left_then_restore_does_not_write_it(tmp_path: Path) -> None:
    t = _nano_jp46(tmp_path / "root")
    proc = _start(tmp_path)
    t.write(f"{TWIN}/target_pwm", 127)
    procutil.wait_line(proc, LEFT, "stderr")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    done = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "fan setting" not in done.stdout + done.stderr
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (127, 0)


def test_the_drivers_own_clamp_of_our_write_is_not_a_rival(tmp_path: Path) -> None:
    """pwm_cap read as 255 but the driver keeping 200 (a cap lowered since): what it kept is ours."""
    t = _nano_jp46(tmp_path / "root")
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None and dev.twins == (("sys/class/hwmon/hwmon9", "tegra_pwmfan"),)
    fan = HwFan(tree, dev)
    clamp = fan.io.write_int

    def driver(rel: str, value: int) -> None:
        clamp(rel, min(value, 200) if rel == TARGET else value)

    fan.io.write_int = driver  # type: ignore[method-assign]
    fan.apply(fan.levels - 1)
    assert fan.level == fan.levels - 2 and not fan.left  # 200 is nearest 191
    fan.restore()
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (37, 1)


def test_the_kernels_curve_before_the_first_write_is_not_a_rival(tmp_path: Path) -> None:
    """temp_control 1 as found: the driver's cooling device moves target_pwm until thermogov
    first writes; once temp_control is 0 (ours), a move of it is another writer."""
    t = _nano_jp46(tmp_path / "root")
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None
    now = [0.0]
    fan = HwFan(tree, dev, clock=lambda: now[0])
    t.write(TARGET, 128)  # the kernel's step_wise, between two ticks
    now[0] = 0.1
    assert fan.level == 2 and not fan.left
    fan.apply(fan.levels - 1)
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (255, 0)
    t.write(f"{TWIN}/target_pwm", 64)
    now[0] = 0.2
    assert fan.level == 1 and "reads 64, not 255 as thermogov last wrote" in fan.left
    assert fan.apply(fan.levels - 1) == 1 and t.read_int(TARGET) == 64  # never written over
    fan.restore()
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (64, 0)


def test_doctor_warns_when_jtop_may_drive_the_fan(tmp_path: Path) -> None:
    t = _nano_jp46(tmp_path / "root")
    t.link("etc/systemd/system/multi-user.target.wants/jtop.service", "etc/systemd/system/jtop.service")
    t.write("proc/931/comm", "jtop\n")
    t.write(
        "usr/local/jetson_stats/config.json",
        json.dumps({"fan": {"tegra_pwmfan": {"profile": "manual", "speed": [50, 0]}}}),
    )
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert done.returncode == 0, done.stderr
    assert "jtop.service is enabled and running: it writes target_pwm/temp_control" in done.stdout
    assert "config.json (tegra_pwmfan profile 'manual' speed [50, 0])" in done.stdout


def test_a_family_governed_board_without_a_fan_is_refused_with_one_line(tmp_path: Path) -> None:
    """A Pi 3 B+ (governed by its SoC family's profile) with fan = "governor": on main the
    family warning came before the fan's refusal, two lines for one bad input."""
    t = FakeTree(tmp_path / "root")
    t.model("Raspberry Pi 3 Model B Plus Rev 1.3", ("raspberrypi,3-model-b-plus", "brcm,bcm2837"))
    t.zone(0, "cpu-thermal", 90000, fakesys.RPI4_TRIPS)
    t.policy(0, [0, 1, 2, 3], fakesys.khz_grid(600000, 100000, 1400000), governor="ondemand")
    before = t.snapshot()
    proc = _start(tmp_path, "--duration", "1s")
    _, raw = proc.communicate(timeout=procutil.DEADLINE_S)
    err = raw.decode()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and "no controllable fan" in err, err
    assert t.snapshot() == before
