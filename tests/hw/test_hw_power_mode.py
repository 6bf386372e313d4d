"""An operator's nvpmodel mode change during a run (hw/powermode.py), through the installed script.

The mode nvpmodel records is read at start and at exit, never written.  Changed: the limits the
new mode lowered are the operator's, so restore leaves them and says so in one line.  A status
file missing, unreadable, garbled or unchanged: restore writes the values of before over the
lowered limit, as before, and says that.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.journal import Journal
from thermogov.hw.powermode import STATUS_REL, PowerModeWatch, read_power_mode
from thermogov.hw.sysfs import SysfsTree

P0 = "sys/devices/system/cpu/cpufreq/policy0"
MODE_MAX = 652800  # the new mode's CPU max: below thermogov's lowest cap on the hot board (729600)


@pytest.mark.parametrize(
    ("content", "mode"),
    [
        ("pmode:0002 fmode:quiet\n", 2),
        ("pmode:0000\n", 0),
        ("pmode:0001", 1),
        ("pmode:zz\n", None),
        ("mode:0002\n", None),
        ("pmode:-1\n", None),
        ("pmode:0002fmode\n", None),
        ("", None),
        (b"\xff\xfe pmode:0002", None),
    ],
)
def test_the_status_file_gives_a_mode_only_in_nvpmodels_form(
    tmp_path: Path, content: str | bytes, mode: int | None
) -> None:
    t = fakesys.FakeTree(tmp_path / "root")
    t.write(STATUS_REL, content)
    assert read_power_mode(SysfsTree(t.root)) == mode


def test_a_missing_a_directory_or_an_outside_link_gives_no_mode(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    assert read_power_mode(SysfsTree(root)) is None
    (root / STATUS_REL).mkdir(parents=True)
    assert read_power_mode(SysfsTree(root)) is None
    (root / STATUS_REL).rmdir()
    outside = tmp_path / "outside"
    outside.write_text("pmode:0002\n")
    os.symlink(outside, root / STATUS_REL)
    assert read_power_mode(SysfsTree(root)) is None


@pytest.mark.parametrize("kind", ["fifo", "link to a fifo"])
def test_a_status_path_that_is_no_regular_file_is_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """The daemon is root: opening a FIFO releases its writer, opening a device node can act."""
    root = tmp_path / "root"
    (root / STATUS_REL).parent.mkdir(parents=True)
    fifo = root / ("fifo" if kind != "fifo" else STATUS_REL)
    os.mkfifo(fifo)
    if kind != "fifo":
        os.symlink(fifo, root / STATUS_REL)
    tree = SysfsTree(root)
    opened: list[str] = []
    monkeypatch.setattr(tree, "_read_bytes", lambda real: opened.append(real) or b"pmode:0002\n")
    assert read_power_mode(tree) is None and opened == []
    (root / STATUS_REL).unlink()
    (root / STATUS_REL).write_text("pmode:0002\n")
    tree = SysfsTree(root)  # a tree resolves each path once
    monkeypatch.setattr(tree, "_read_bytes", lambda real: opened.append(real) or b"pmode:0002\n")
    assert read_power_mode(tree) == 2 and len(opened) == 1  # the hook is what reads


def test_a_change_needs_two_readable_different_modes(tmp_path: Path) -> None:
    t = fakesys.FakeTree(tmp_path / "root")
    tree = SysfsTree(t.root)
    assert PowerModeWatch(tree).changed() is None  # no file at start
    t.write(STATUS_REL, "pmode:0000\n")
    w = PowerModeWatch(tree)
    assert w.changed() is None
    t.write(STATUS_REL, "garbage\n")
    assert w.changed() is None
    t.write(STATUS_REL, "pmode:0003 fmode:cool\n")
    assert w.changed() == (0, 3)


def _run_through_a_mode_change(tmp: Path, at_start: str | None, at_exit: str | None) -> tuple:
    """A hot Orin Nano capped, then an operator's mode lowers policy0's max, then SIGTERM."""
    t = fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)
    if at_start is not None:
        t.write(STATUS_REL, at_start)
    before = t.snapshot()
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--duration", "60s"]
    proc = subprocess.Popen(
        [*procutil.script(), "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(f"{P0}/scaling_max_freq") == 729600  # capped
    if at_exit is not None:
        t.write(STATUS_REL, at_exit)  # nvpmodel -m 2: it records the mode ...
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)  # ... and writes its caps
    status = t.snapshot().get(STATUS_REL)
    proc.send_signal(signal.SIGTERM)
    _out, errb = proc.communicate(timeout=procutil.DEADLINE_S)
    err = errb.decode()
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert t.snapshot().get(STATUS_REL) == status  # read, never written
    assert not Journal(tmp / "state").exists()
    return t, before, err


def test_a_mode_changed_during_the_run_leaves_what_the_new_mode_lowered_and_says_so(tmp_path: Path) -> None:
    t, before, err = _run_through_a_mode_change(
        tmp_path, "pmode:0000 fmode:quiet\n", "pmode:0002 fmode:quiet\n"
    )
    said = [ln for ln in err.splitlines() if "nvpmodel mode changed" in ln]
    assert len(said) == 1, err
    # The min of before is above the mode's max: the min is adopted at that max (a window
    # whose min is above its max would be refused by a journal restore).
    assert int(before[f"{P0}/scaling_min_freq"]) > MODE_MAX
    assert "from 0 to 2" in said[0] and f"leaves policy0 {MODE_MAX}..{MODE_MAX} kHz" in said[0]
    assert "restoring the value of before" not in err
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX  # the operator's
    want = dict(before)
    want[f"{P0}/scaling_max_freq"] = f"{MODE_MAX}\n".encode()
    want[f"{P0}/scaling_min_freq"] = f"{MODE_MAX}\n".encode()
    want[STATUS_REL] = b"pmode:0002 fmode:quiet\n"
    assert t.snapshot() == want  # every other limit back as before


@pytest.mark.parametrize(
    ("at_start", "at_exit"),
    [
        (None, None),  # no nvpmodel (a Raspberry Pi, a custom image)
        ("pmode:0000\n", "pmode:0000\n"),  # the same mode: a kernel clamp or another writer
        ("pmode:0000\n", "pm"),  # torn or garbled at exit
        ("garbage\n", "pmode:0002\n"),  # garbled at start
    ],
)
def test_without_a_readable_mode_change_the_values_of_before_are_restored_as_before(
    tmp_path: Path, at_start: str | None, at_exit: str | None
) -> None:
    t, before, err = _run_through_a_mode_change(tmp_path, at_start, at_exit)
    assert "nvpmodel mode changed" not in err
    assert f"{P0}/scaling_max_freq was lowered to {MODE_MAX}" in err
    assert "restoring the value of before over it" in err
    assert t.read_int(f"{P0}/scaling_max_freq") == 1510400
    want = dict(before)
    if at_exit is not None:
        want[STATUS_REL] = at_exit.encode()
    assert t.snapshot() == want
