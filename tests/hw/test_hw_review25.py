"""Session 25r: an outside safety review of session 24's root-daemon merges (docs/hardware.md).

Each test shows one thing the review found, on a fake tree through the installed script; each
failed on the code of before its fix (said per test).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import procutil
from tests.hw.test_hw_fan import _config_file, _run
from tests.hw.test_hw_nvfancontrol import CONF, _jetpack6
from thermogov.hw.nvfanstatus import STATUS_REL

HUGE_FAN = "FAN" + "1" * 5000 + ":FAN_PROFILE:cool\n"  # over int()'s 4300-digit limit


@pytest.mark.parametrize(
    "text",
    [HUGE_FAN, "FAN\u0661:FAN_PROFILE:cool\n"],  # 5 000 digits; an Arabic-Indic one read as FAN1
    ids=["5000-digit-fan", "unicode-digit-fan"],
)
def test_doctor_names_a_status_file_with_a_fan_number_nvfancontrol_never_writes(
    tmp_path: Path, text: str
) -> None:
    """nvfancontrol's status file (hw/nvfanstatus.py) is the service's, never an error: before,
    ``\\d+`` let a 5 000-digit fan number reach int() (ValueError: "internal error", exit 1) and read
    an Arabic-Indic digit as fan 1 (its profile taken over the conf's)."""
    t = _jetpack6(tmp_path, CONF)
    t.write(STATUS_REL, text)
    d = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert d.returncode == 0 and "Traceback" not in d.stderr, d.stderr[-800:]
    assert "nvfancontrol plays profile quiet" in d.stdout, d.stdout
    assert "is no FAN<N>:<KEY>:<value> line" in d.stdout and "the conf's default is taken" in d.stdout


def test_a_governed_start_names_a_status_file_with_a_5000_digit_fan(tmp_path: Path) -> None:
    """The same file with the service running: the refusal is one line, exit 2, nothing written
    (before: "internal error", exit 1)."""
    from tests.hw import fakesys

    t = _jetpack6(tmp_path, CONF)
    t.write(STATUS_REL, HUGE_FAN)
    fakesys.fan_daemon(t)
    before = t.snapshot()
    r = _run(tmp_path, _config_file(tmp_path))
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr[-800:]
    assert "nvfancontrol plays profile quiet" in r.stderr
    assert t.snapshot() == before


@pytest.mark.parametrize("since", [1e20, -1e20, 1e300])
def test_status_and_doctor_show_a_waiting_entry_whose_start_no_clock_can_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, since: float
) -> None:
    """``since_unix`` of a ``temperature_c.waiting`` entry (hw/waitedsince.py) is a finite number
    no ``time.gmtime`` takes: before, ``status`` and ``doctor --state`` ended in "internal error:
    OverflowError", exit 1; now the line shows without its wall-clock start."""
    import json

    from tests.hw.test_hw_waited_since import _fresh
    from tests.hw.test_hw_waiting_sensors import kept_state_without_gpu

    root, kept = kept_state_without_gpu(tmp_path, monkeypatch, 3.0)
    doc = json.loads(kept.read_text())
    doc["temperature_c"]["waiting"]["gpu"]["since_unix"] = since
    kept.write_text(json.dumps(doc))
    p = procutil.status_cli("--state", str(kept), refresh=lambda: _fresh(kept))
    assert p.returncode == 0 and "error" not in p.stderr, p.stderr
    assert "waiting for gpu (" in p.stdout and " s, since" not in p.stdout, p.stdout
    _fresh(kept)
    p = procutil.run_cli("doctor", "--sysfs-root", str(root), "--state", str(kept))
    assert p.returncode == 0 and "error" not in p.stderr, p.stderr
    assert "the running daemon (pid " in p.stdout and " s, since" not in p.stdout, p.stdout


@pytest.mark.parametrize("pid", [10**30, 2**31, 0, -1, True])
def test_a_state_file_whose_pid_no_process_can_have_is_malformed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pid: int
) -> None:
    """``pid`` of a state document outside 1..PID_MAX_LIMIT: before, ``status`` and ``doctor
    --state`` (session 24a) ended in "internal error: OverflowError" for one past a C int, and
    0 or -1 (``kill(0, 0)``/``kill(-1, 0)`` signal a group: "alive") showed "the running daemon
    (pid -1) waits for it".  Now ``status`` names the field (exit 2) and ``doctor`` reads no
    running daemon there (session 28h: and, the --state being given, exits 2 after its report,
    naming the field, as ``status`` does)."""
    import json

    from tests.hw.test_hw_waited_since import _fresh
    from tests.hw.test_hw_waiting_sensors import kept_state_without_gpu

    root, kept = kept_state_without_gpu(tmp_path, monkeypatch, 3.0)
    doc = json.loads(kept.read_text())
    doc["pid"] = pid
    kept.write_text(json.dumps(doc))
    _fresh(kept)
    p = procutil.run_cli("status", "--state", str(kept))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "internal" not in p.stderr, p.stderr
    assert "pid" in p.stderr and str(kept) in p.stderr, p.stderr
    p = procutil.run_cli("doctor", "--sysfs-root", str(root), "--state", str(kept))
    assert p.returncode == 2 and "internal" not in p.stderr, p.stderr
    assert p.stderr.splitlines()[-1].startswith("thermogov: error: --state: ") and "pid" in p.stderr, p.stderr
    assert "the running daemon" not in p.stdout and "gpu" in p.stdout, p.stdout


@pytest.mark.parametrize("kernel", ["global", "per-policy"])
def test_boost_switched_off_and_on_on_a_cool_board_never_leaves_the_cap(tmp_path: Path, kernel: str) -> None:
    """Boost on at start, a cool board: thermogov's cap is the listed top (its table has no boost
    OPP), so switching boost off leaves ``scaling_max_freq`` as it reads (the kernel's reset is
    to the listed top) and only the switch back on raises it.  hw/boostrule.py's BoostStates
    learnt a switch only from a raise: the off went unseen, each on read as a rival's raise, and
    the fourth left policy0 to "another writer" -- uncapped for the rest of the run, hot or not.
    Each switch is now seen at the watch's next look, and said."""
    import signal

    from tests.hw import fakesys
    from tests.hw.test_hw_boost24 import P0, _boosted_pi5, _switch

    bs, tops, top, boost = _boosted_pi5(tmp_path / "root", kernel, on=True, cpu_mc=55000)
    t = fakesys.FakeTree(tmp_path / "root")
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(f"{P0}/scaling_max_freq") == top
    for k in range(5):
        _switch(bs, t.root, tops, kernel, False)
        assert t.read_int(f"{P0}/scaling_max_freq") == top  # nothing for a limit watch to see
        procutil.wait_line(proc, "boost switched off", stream="stderr")
        _switch(bs, t.root, tops, kernel, True)
        line = procutil.wait_line(proc, "policy0 to ", stream="stderr")
        assert line.startswith("thermogov: boost switched") and "left to it" not in line, (
            f"cycle {k + 1}: {line}"
        )
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0 and "Traceback" not in err.decode(), err.decode()
    assert "left to it" not in (out + err).decode()
    assert "another writer" not in err.decode(), err.decode()
    assert t.read_int(f"{P0}/scaling_max_freq") == boost  # boost left on: its top, as found


OWN_RECORDS = {  # option -> the daemon's own record it names (tests/hw/procutil.paths' layout)
    "journal": ("--state-file", "state/journal.json"),
    "journal-tmp": ("--state-file", "state/journal.json.tmp"),
    "lock-file": ("--state-file", "thermogov.lock"),
    "textfile-journal": ("--metrics-textfile", "state/journal.json"),
}


@pytest.mark.parametrize("case", sorted(OWN_RECORDS))
def test_a_published_file_naming_the_daemon_s_own_record_is_refused(tmp_path: Path, case: str) -> None:
    """``--state-file`` (or ``--metrics-textfile``) naming the crash journal or the lock file: the
    start found no file there (the journal and the lock are made later), so the state document
    replaced the journal every second -- a ``kill -9`` left the caps and ``thermogov restore``
    refused the "corrupt journal" (exit 2, the board capped) -- or the flocked lock file.  Now
    refused up front: one line naming the option and the record, exit 2, nothing written."""
    from tests.hw import fakesys

    option, rel = OWN_RECORDS[case]
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    before = t.snapshot()
    (tmp_path / "state").mkdir(mode=0o700)
    cfg = tmp_path / "hysteresis.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--config", str(cfg)]
    r = procutil.run_cli("run", *args, "--duration", "3s", option, str(tmp_path / rel))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert option in r.stderr and "thermogov's own" in r.stderr, r.stderr
    assert t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()


def test_a_restore_clamped_by_the_boost_switch_says_so(tmp_path: Path) -> None:
    """Boost on at start (the limit found is the boost OPP), switched off mid-run: the exit
    restore writes the listed top (session 24's rule) and said "another agent changed its
    table" -- a wrong lead for an operator who only switched boost.  It now names the switch."""
    import signal

    from tests.hw import fakesys
    from tests.hw.test_hw_boost24 import P0, _boosted_pi5, _switch

    bs, tops, top, _boost = _boosted_pi5(tmp_path / "root", "global", on=True, cpu_mc=92000)
    t = fakesys.FakeTree(tmp_path / "root")
    proc = procutil.start_run(tmp_path, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    _switch(bs, t.root, tops, "global", False)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert t.read_int(f"{P0}/scaling_max_freq") == top
    said = r.stdout + r.stderr
    assert "the kernel's boost switch is off" in said and "another agent" not in said, said
