"""The nvpmodel mode in the journal: ``kill -9`` around an operator's mode change, through the
installed script.

Before, the journal had no mode, so the next start's (or ``thermogov restore``'s) journal
restore wrote the limits of before over the new mode's lower windows.  Now the journal records
the mode its windows belong to (``power_mode``); a restore under another mode leaves each window
the mode wrote as it reads, says so, and restores the rest (since session 16 also a window still
at thermogov's last recorded cap, tests/hw/test_hw_last_caps.py).  A journal without a mode
(older, or no nvpmodel record) restores as before.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.journal import Journal, checksum
from thermogov.hw.powermode import STATUS_REL

CPU = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPU}/policy0"
P4 = f"{CPU}/policy4"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"  # the JetPack 5 Orin Nano's
CPU_TOP = 1510400
MODE_MAX = 652800  # the new mode's CPU max: below thermogov's lowest cap on the hot board (729600)


def _nvpmodel(t: fakesys.FakeTree, mode: int, cpu_max: int, gpu_max: int | None = None) -> None:
    """``nvpmodel -m``: it records the mode and writes its CPU maxes (and the GPU's, if given)."""
    t.write(STATUS_REL, f"pmode:{mode:04d} fmode:quiet\n")
    t.write(f"{P0}/scaling_max_freq", cpu_max)
    t.write(f"{P4}/scaling_max_freq", cpu_max)
    if gpu_max is not None:
        t.write(f"{GPU}/max_freq", gpu_max)


def _killed(tmp: Path, start_mode: str | None = "pmode:0000 fmode:quiet\n") -> tuple[fakesys.FakeTree, dict]:
    """A hot Orin Nano governed to its lowest caps, then ``kill -9``: the journal is left."""
    t = fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)
    if start_mode is not None:
        t.write(STATUS_REL, start_mode)
    before = t.snapshot()
    proc = procutil.start_run(tmp, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert Journal(tmp / "state").exists()
    assert t.read_int(f"{P0}/scaling_max_freq") < CPU_TOP  # the caps a restore must lift
    return t, before


def _restore(tmp: Path, command: str) -> subprocess.CompletedProcess[str]:
    extra = ["--out", str(tmp / "out"), "--duration", "0.3s"] if command == "run" else []
    return procutil.run_cli(command, *procutil.paths(tmp), *extra)


def _journal_body(tmp: Path) -> dict:
    return json.loads((tmp / "state" / "journal.json").read_text())


def test_the_journal_records_the_mode_found_at_start_and_keeps_format_3(tmp_path: Path) -> None:
    _killed(tmp_path, "pmode:0003 fmode:cool\n")
    body = _journal_body(tmp_path)
    assert body["power_mode"] == 3 and body["format"] == 3
    _killed(tmp_path / "none", start_mode=None)  # no nvpmodel record (a Pi, a custom image)
    assert _journal_body(tmp_path / "none")["power_mode"] is None


@pytest.mark.parametrize("command", ["restore", "run"])
def test_a_mode_lowered_after_kill_9_keeps_its_windows_and_restores_the_rest(
    tmp_path: Path, command: str
) -> None:
    t, before = _killed(tmp_path)
    gpu_mode_max = fakesys.ORIN_NANO_GPU_HZ[-2]
    _nvpmodel(t, 2, MODE_MAX, gpu_mode_max)
    r = _restore(tmp_path, command)
    assert r.returncode == 0, r.stderr
    said = [ln for ln in (r.stdout + r.stderr).splitlines() if "nvpmodel mode changed" in ln]
    assert len(said) == 1 and "from 0 to 2 since the journal was written" in said[0], r.stdout + r.stderr
    assert f"policy0 {MODE_MAX}..{MODE_MAX} kHz" in said[0]
    want = dict(before)
    for p in (P0, P4):  # the mode's max; the min of before (above it) lowered to it
        want[f"{p}/scaling_max_freq"] = f"{MODE_MAX}\n".encode()
        want[f"{p}/scaling_min_freq"] = f"{MODE_MAX}\n".encode()
    want[f"{GPU}/max_freq"] = f"{gpu_mode_max}\n".encode()
    want[STATUS_REL] = b"pmode:0002 fmode:quiet\n"
    assert t.snapshot() == want  # every other limit restored (the GPU min, the idle state)
    assert not Journal(tmp_path / "state").exists()


def test_a_window_the_new_mode_did_not_write_gets_its_value_of_before_back(tmp_path: Path) -> None:
    """Session 16: the GPU still holds thermogov's last cap (its runtime record says so, see
    tests/hw/test_hw_last_caps.py), so the restore lifts it to the journaled value and says so;
    the CPU windows the mode wrote stay the mode's."""
    t, before = _killed(tmp_path)
    capped = t.read_int(f"{GPU}/max_freq")
    assert capped < int(before[f"{GPU}/max_freq"])
    _nvpmodel(t, 2, MODE_MAX)  # the CPU only
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert f"17000000.ga10b {capped} Hz -> {int(before[f'{GPU}/max_freq'])}: thermogov's last cap" in out
    assert t.read_int(f"{GPU}/max_freq") == int(before[f"{GPU}/max_freq"])
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX


def test_a_mode_raised_after_kill_9_keeps_the_raise(tmp_path: Path) -> None:
    """A raise above the journaled max is not thermogov's (it never writes above it): the mode's."""
    t, _before = _killed(tmp_path, "pmode:0002 fmode:quiet\n")
    _nvpmodel(t, 0, CPU_TOP)
    body = _journal_body(tmp_path)
    body["entries"] = [  # journaled under mode 2, whose CPU max was lower
        {**e, "max": 1113600} if e["label"] in ("policy0", "policy4") else e for e in body["entries"]
    ]
    body["sha256"] = checksum(body)
    (tmp_path / "state" / "journal.json").write_text(json.dumps(body))
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    assert t.read_int(f"{P0}/scaling_max_freq") == CPU_TOP
    assert t.read_int(f"{P4}/scaling_max_freq") == CPU_TOP


@pytest.mark.parametrize(
    "start_mode",
    [None, "pmode:0002 fmode:quiet\n"],  # no mode journaled; the same mode as now
)
def test_without_a_recorded_mode_change_the_values_of_before_are_restored(
    tmp_path: Path, start_mode: str | None
) -> None:
    t, before = _killed(tmp_path, start_mode)
    if start_mode is None:
        t.write(STATUS_REL, "pmode:0002 fmode:quiet\n")
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)  # a lowered limit: a clamp, or a mode unrecorded
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    assert "nvpmodel mode changed" not in r.stdout + r.stderr

    def sysfs(snap: dict) -> dict:  # the status file is nvpmodel's, not ours
        return {k: v for k, v in snap.items() if not k.startswith("var")}

    assert sysfs(t.snapshot()) == sysfs(before)


def test_an_older_journal_without_the_field_restores_as_before(tmp_path: Path) -> None:
    t, _before = _killed(tmp_path)
    body = _journal_body(tmp_path)
    del body["power_mode"]  # what thermogov of session 14 wrote
    body["sha256"] = checksum(body)
    (tmp_path / "state" / "journal.json").write_text(json.dumps(body))
    _nvpmodel(t, 2, MODE_MAX)
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    assert t.read_int(f"{P0}/scaling_max_freq") == CPU_TOP  # no mode to compare: as before


@pytest.mark.parametrize("bad", ["2", -1, True, 1.5])
def test_a_journal_with_a_bad_mode_is_refused_naming_the_field(tmp_path: Path, bad: object) -> None:
    t, _before = _killed(tmp_path)
    body = _journal_body(tmp_path)
    body["power_mode"] = bad
    body["sha256"] = checksum(body)  # re-signed: only the field itself is wrong
    (tmp_path / "state" / "journal.json").write_text(json.dumps(body))
    killed = t.snapshot()
    r = _restore(tmp_path, "restore")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "power_mode" in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert t.snapshot() == killed  # nothing written


def test_a_mode_change_adopted_mid_run_is_journaled_with_its_mode(tmp_path: Path) -> None:
    """Seen by the limit watch, the mode's windows and the mode go into the journal together, so
    a ``kill -9`` then restores them, the mode unchanged since."""
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    t.write(STATUS_REL, "pmode:0000 fmode:quiet\n")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    _nvpmodel(t, 2, MODE_MAX)
    procutil.wait_line(proc, "nvpmodel mode changed", stream="stderr")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    body = _journal_body(tmp_path)
    assert body["power_mode"] == 2
    assert {e["label"]: e["max"] for e in body["entries"]}["policy0"] == MODE_MAX
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0 and "nvpmodel mode changed" not in r.stdout + r.stderr, r.stderr
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX
    assert t.read_int(f"{GPU}/max_freq") == int(before[f"{GPU}/max_freq"])


def test_a_mode_above_thermogovs_cap_is_journaled_with_its_mode(tmp_path: Path) -> None:
    """A lower mode whose max is above the hot board's cap reads as a raise: adopted (restore puts
    it back) and the cap written again.  The journal must say the mode too, or a restore after
    ``kill -9`` would take the file (thermogov's cap) for the mode's window and leave it."""
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    t.write(STATUS_REL, "pmode:0000 fmode:quiet\n")
    proc = procutil.start_run(tmp_path, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    capped = t.read_int(f"{P0}/scaling_max_freq")
    mode_max = 1113600
    assert capped < mode_max < CPU_TOP
    _nvpmodel(t, 2, mode_max)
    procutil.wait_line(proc, "the limits it raised are what restore puts back", stream="stderr")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert _journal_body(tmp_path)["power_mode"] == 2
    assert t.read_int(f"{P0}/scaling_max_freq") == capped  # the cap written again over the mode's
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    assert t.read_int(f"{P0}/scaling_max_freq") == mode_max
    assert t.read_int(f"{P4}/scaling_max_freq") == mode_max


def test_a_table_shrunk_with_the_mode_is_said_once_as_left_not_as_clamped(tmp_path: Path) -> None:
    """The new mode shrank the GPU's OPP list and set its max: the window is left as it reads, so
    the line must not also say it was written clamped into the new table."""
    t, _before = _killed(tmp_path)
    shrunk = fakesys.ORIN_NANO_GPU_HZ[:3]
    t.write(f"{GPU}/available_frequencies", " ".join(map(str, shrunk)) + "\n")
    _nvpmodel(t, 2, MODE_MAX, shrunk[1])
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert "another agent changed its table" not in out
    assert f"17000000.ga10b {shrunk[0]}..{shrunk[1]} Hz (journaled" in out
    assert t.read_int(f"{GPU}/max_freq") == shrunk[1]
