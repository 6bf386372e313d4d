"""Session 23c: NVIDIA's nvfancontrol (JetPack 5/6) and ``/etc/nvfancontrol.conf`` (hw/nvfanconf.py).

The conf is built in the test's tree (``<root>/etc/nvfancontrol.conf``); the real /etc is never
read.  Its shape follows NVIDIA's BSP file (Jetson Linux Developer Guide, "Fan Profile Control").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_fan import _config_file, _orin, _run
from thermogov.hw.nvfanconf import CONF_REL, WANTS, parse_fan_conf
from thermogov.hw.nvpmodelconf import ConfError

CONF = """POLLING_INTERVAL 2

<FAN 1>
\tTMARGIN ENABLED
\tFAN_GOVERNOR pid {
\t\tSTEP_SIZE 10
\t}
\tFAN_CONTROL close_loop {
\t\tRPM_TOLERANCE 100
\t}
\tFAN_PROFILE quiet {
\t\t#TEMP \tHYST\tPWM\tRPM
\t\t0\t0\t0\t0
\t\t50\t8\t77\t1000
\t\t105\t0\t255\t3300
\t}
\tFAN_PROFILE cool {
\t\t0\t0\t77\t1000
\t\t105\t0\t255\t3300
\t}
\tTHERMAL_GROUP 0 {
\t\tGROUP_MAX_TEMP 105
\t\tCPU-therm 20,2,1 0
\t}
\tFAN_DEFAULT_CONTROL open_loop
\tFAN_DEFAULT_PROFILE quiet
\tFAN_DEFAULT_GOVERNOR pid
\tKICKSTART_PWM 40
"""

BAD = {
    "no profile of that name": (CONF.replace("PROFILE quiet\n", "PROFILE silent\n"), "names no FAN_PROFILE"),
    "pwm over 255": (
        CONF.replace(
            "105\t0\t255\t3300\n\t}\n\tFAN_PROFILE cool", "105\t0\t300\t3300\n\t}\n\tFAN_PROFILE cool"
        ),
        "line 15: PWM 300",
    ),
    "unclosed": (CONF.replace("\t\tRPM_TOLERANCE 100\n\t}\n", "\t\tRPM_TOLERANCE 100\n"), "line 10:"),
    "garbage row": (CONF.replace("50\t8\t77\t1000", "50\teight\t77\t1000"), "line 14: a profile row"),
    "kickstart": (CONF.replace("KICKSTART_PWM 40", "KICKSTART_PWM -3"), "KICKSTART_PWM -3"),
    "no fan": ("POLLING_INTERVAL 2\n", "no <FAN N>"),
    # session 24's hostile round: main ended these in int()'s ValueError (the 4300-digit limit)
    # or read a fullwidth digit as a number nvfancontrol's parser does not
    "a 5000-digit temp": (
        CONF.replace("50\t8\t77\t1000", "5" * 5000 + "\t8\t77\t1000"),
        "line 14: a profile row",
    ),
    "a 5000-digit fan": (CONF.replace("<FAN 1>", "<FAN " + "1" * 5000 + ">"), "line 3: '<FAN 1111"),
    "a 5000-digit kickstart": (
        CONF.replace("KICKSTART_PWM 40", "KICKSTART_PWM " + "4" * 5000),
        "4444... is no duty",
    ),
    "a fullwidth digit": (CONF.replace("50\t8\t77\t1000", "\uff150\t8\t77\t1000"), "line 14: a profile row"),
}


def test_the_conf_is_read_as_nvfancontrol_reads_it() -> None:
    fan = parse_fan_conf(CONF)[1]
    assert fan.default == "quiet" and fan.kickstart == 40 and fan.control == "open_loop"
    assert fan.profiles == {
        "quiet": [(0, 0, 0), (50, 8, 77), (105, 0, 255)],
        "cool": [(0, 0, 77), (105, 0, 255)],
    }
    assert fan.describe() == "profile quiet (pwm 0..255, kickstart pwm 40) (also cool)"


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_conf_says_which_line(name: str) -> None:
    text, said = BAD[name]
    with pytest.raises(ConfError, match=None) as e:
        parse_fan_conf(text)
    assert said in str(e.value), str(e.value)


def _jetpack6(tmp: Path, conf: str) -> fakesys.FakeTree:
    t = _orin(tmp)
    t.write(CONF_REL, conf)
    return t


@pytest.mark.parametrize("name", ["no profile of that name", "unclosed", "a 5000-digit temp"])
def test_governor_with_a_bad_conf_exits_2_naming_the_file_and_writes_nothing(
    tmp_path: Path, name: str
) -> None:
    """On main the file was never read: the run governed the fan nvfancontrol's conf says it owns."""
    t = _jetpack6(tmp_path, BAD[name][0])
    before = t.snapshot()
    r = _run(tmp_path, _config_file(tmp_path))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "etc/nvfancontrol.conf: " in r.stderr and BAD[name][1] in r.stderr and 'fan = "board"' in r.stderr
    assert t.snapshot() == before


def test_nvfancontrol_running_is_refused_naming_the_profile_it_plays(tmp_path: Path) -> None:
    t = _jetpack6(tmp_path, CONF)
    fakesys.fan_daemon(t)
    before = t.snapshot()
    r = _run(tmp_path, _config_file(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "nvfancontrol plays profile quiet (pwm 0..255, kickstart pwm 40)" in r.stderr
    assert "systemctl stop nvfancontrol" in r.stderr
    assert t.snapshot() == before


def test_enabled_but_stopped_the_start_and_doctor_say_it_takes_the_fan_back(tmp_path: Path) -> None:
    """The operator stopped it for thermogov but it stays enabled: it will drive pwm1 again at the
    next boot; said at start and by doctor (main said nothing)."""
    t = _jetpack6(tmp_path, CONF)
    t.link(WANTS, "lib/systemd/system/nvfancontrol.service")
    proc = procutil.start_run(tmp_path, run_lines='fan = "governor"\n')
    line = procutil.wait_line(proc, "nvfancontrol.service is enabled", "stderr")
    assert "profile quiet" in line and "systemctl disable --now nvfancontrol" in line
    procutil.stopped(proc)
    d = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert (
        d.returncode == 0 and "nvfancontrol.service is enabled (nvfancontrol plays profile quiet" in d.stdout
    )
