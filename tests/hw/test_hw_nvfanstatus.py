"""Session 24c: nvfancontrol's status file (``/var/lib/nvfancontrol/status``, hw/nvfanstatus.py).

The profile chosen at run time (``nvfancontrol -p``) is kept there and overrides the conf's
``FAN_DEFAULT_PROFILE``; doctor and the refusal name it.  A status file that does not read as
``FAN<N>:<KEY>:<value>`` lines is named and the conf's default is used (never an error).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_fan import _config_file, _run
from tests.hw.test_hw_nvfancontrol import CONF, _jetpack6
from thermogov.hw.nvfanstatus import STATUS_REL, parse_status
from thermogov.hw.nvpmodelconf import ConfError

STATUS = "FAN1:FAN_PROFILE:cool\nFAN1:FAN_GOVERNOR:pid\nFAN1:FAN_CONTROL:close_loop\n"


def _doctor(tmp: Path) -> str:
    d = procutil.run_cli("doctor", "--sysfs-root", str(tmp / "root"))
    assert d.returncode == 0 and "Traceback" not in d.stderr, d.stderr
    return d.stdout


def test_the_status_lines_are_read_as_nvfancontrol_q_prints_them() -> None:
    assert parse_status(STATUS + "\n") == {
        1: {"FAN_PROFILE": "cool", "FAN_GOVERNOR": "pid", "FAN_CONTROL": "close_loop"}
    }
    with pytest.raises(ConfError, match="line 2: 'profile=cool' is no FAN<N>:<KEY>:<value> line"):
        parse_status("FAN1:FAN_GOVERNOR:pid\nprofile=cool\n")


def test_doctor_names_the_profile_chosen_at_run_time(tmp_path: Path) -> None:
    """Main said ``plays profile quiet`` (the conf's default) while the service played cool."""
    t = _jetpack6(tmp_path, CONF)
    t.write(STATUS_REL, STATUS)
    out = _doctor(tmp_path)
    assert (
        "nvfancontrol plays profile cool (pwm 77..255, kickstart pwm 40) (also quiet), chosen at run time"
        in out
    )
    assert "var/lib/nvfancontrol/status over FAN_DEFAULT_PROFILE quiet" in out


def test_a_running_nvfancontrol_is_refused_naming_the_profile_it_really_plays(tmp_path: Path) -> None:
    t = _jetpack6(tmp_path, CONF)
    t.write(STATUS_REL, STATUS)
    fakesys.fan_daemon(t)
    before = t.snapshot()
    r = _run(tmp_path, _config_file(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "nvfancontrol plays profile cool" in r.stderr and "systemctl stop nvfancontrol" in r.stderr
    assert t.snapshot() == before


CORRUPT = {
    "garbage": (b"\x00\x00\x00\x00", "holds NUL bytes"),
    "another shape": (b"profile=cool\n", "line 1: 'profile=cool' is no FAN<N>:<KEY>:<value> line"),
    "no profile line": (b"FAN1:FAN_GOVERNOR:pid\n", "no FAN1:FAN_PROFILE line"),
    "unknown profile": (b"FAN1:FAN_PROFILE:turbo\n", "FAN1:FAN_PROFILE 'turbo' names no FAN_PROFILE"),
    "not utf-8": (b"FAN1:FAN_PROFILE:\xff\n", "not UTF-8 text"),
    # hostile round 25h: "internal error" (int() of 5 000 digits) in doctor and run before
    "a fan number of 5000 digits": (
        b"FAN" + b"9" * 5000 + b":FAN_PROFILE:cool\n",
        "is no FAN<N>:<KEY>:<value> line",
    ),
    # and a 500 000-character profile name was echoed whole in doctor's line
    "a huge profile name": (b"FAN1:FAN_PROFILE:" + b"c" * 500_000 + b"\n", "(+499960 characters) names no"),
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_a_corrupt_status_file_is_named_and_the_conf_is_used(tmp_path: Path, name: str) -> None:
    """Main never read the file (it said quiet, unaware); now it says why it was not used."""
    raw, said = CORRUPT[name]
    t = _jetpack6(tmp_path, CONF)
    (t.root / STATUS_REL).parent.mkdir(parents=True, exist_ok=True)
    (t.root / STATUS_REL).write_bytes(raw)
    out = _doctor(tmp_path)
    assert "nvfancontrol plays profile quiet" in out and "var/lib/nvfancontrol/status: " in out
    assert said in out and "the conf's default is taken" in out
    assert max(len(line) for line in out.splitlines()) < 1000


def test_a_status_file_as_a_folder_never_crashes_the_governed_start(tmp_path: Path) -> None:
    """The status path a directory (not a regular file) with the service enabled: the run still
    starts, the line names it, exit 0 on SIGTERM."""
    t = _jetpack6(tmp_path, CONF)
    (t.root / STATUS_REL).mkdir(parents=True)
    t.link("etc/systemd/system/multi-user.target.wants/nvfancontrol.service", "lib/systemd/system/x")
    proc = procutil.start_run(tmp_path, run_lines='fan = "governor"\n')
    line = procutil.wait_line(proc, "nvfancontrol.service is enabled", "stderr")
    assert "status: not a regular file" in line and "profile quiet" in line
    assert "limits restored" in procutil.stopped(proc)
