"""Session 17's hostile sysfs contents, through the installed script on a fake board tree.

Each class failed before: a frequency limit no kernel shows (negative, zero, past its type)
was governed and "restored" at exit; a limit ending in CR or starting with a blank was refused
with the value shown as a plain number, hiding the cause; a FIFO read as "empty" without
saying what it was.  The review and its counts: docs/hardware.md, "Session 17".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.cliargs import board_paths

POLICY0 = "sys/devices/system/cpu/cpufreq/policy0"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"
ZONE0 = "sys/devices/virtual/thermal/thermal_zone0"


def _run(tmp: Path, *extra: str) -> list[str]:
    """A short hysteresis run on ``tmp/root`` whose every file stays under ``tmp``."""
    return [
        "run",
        "--policy",
        "hysteresis",
        "--duration",
        "0.5s",
        *board_paths(tmp),
        "--out",
        str(tmp / "out"),
        "--state-file",
        str(tmp / "state.json"),
        "--inferences-file",
        str(tmp / "inferences"),
        *extra,
    ]


@pytest.mark.parametrize(
    ("board", "rel", "value", "needle"),
    [
        ("rpi5", f"{POLICY0}/scaling_max_freq", "-1500000", "-1500000 kHz"),
        ("rpi5", f"{POLICY0}/scaling_max_freq", "0", "0 kHz"),
        ("rpi5", f"{POLICY0}/scaling_min_freq", "-1", "-1 kHz"),
        ("rpi5", f"{POLICY0}/scaling_max_freq", "4294967296", "4294967296 kHz"),  # past "%u"
        ("orin", f"{GPU}/max_freq", "0", "0 Hz"),
        ("orin", f"{GPU}/min_freq", "-624750000", "-624750000 Hz"),
    ],
)
@pytest.mark.parametrize("dry", [False, True], ids=["run", "dry-run"])
def test_a_limit_no_kernel_shows_is_refused_before_anything_is_written(
    tmp_path: Path, board: str, rel: str, value: str, needle: str, dry: bool
) -> None:
    """Governed at a 92 °C die before, and the value "restored" at exit."""
    if board == "rpi5":
        tree = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    else:
        tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    tree.write(rel, f"{value}\n")
    before = tree.snapshot()
    p = thermogov(*_run(tmp_path, *(["--dry-run"] if dry else [])))
    line = one_line_error(p, needle)
    assert f"/{rel.rsplit('/', 1)[1]}: " in line and "not a frequency limit" in line
    assert tree.snapshot() == before


def test_a_limit_the_kernel_shows_at_its_ends_is_still_governed(tmp_path: Path) -> None:
    tree = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    tree.write(f"{POLICY0}/scaling_max_freq", "4294967295\n")  # the largest "%u"
    # ... inside the policy's hardware range, as a kernel shows it (its max never exceeds
    # cpuinfo_max_freq); one above that range is refused at start since session 19, its
    # journal being one no restore takes (tests/hw/test_hw_unrestorable_window.py)
    tree.write(f"{POLICY0}/cpuinfo_max_freq", "4294967295\n")
    before = tree.snapshot()
    p = thermogov(*_run(tmp_path))
    assert p.returncode == 0, p.stderr
    assert tree.snapshot() == before  # restored at exit


@pytest.mark.parametrize(
    ("content", "shown"),
    [(b"2400000\r\n", "'2400000\\r'"), (b" 2400000\n", "' 2400000'")],
    ids=["crlf", "leading-blank"],
)
def test_a_limit_in_a_format_no_driver_writes_is_refused_showing_what_is_wrong(
    tmp_path: Path, content: bytes, shown: str
) -> None:
    """The line said "'2400000' is not a whole number": the CR and the blank were stripped."""
    tree = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    tree.write(f"{POLICY0}/scaling_max_freq", content)
    line = one_line_error(thermogov(*_run(tmp_path, "--dry-run")), shown)
    assert "scaling_max_freq" in line


def test_a_fifo_for_a_zone_says_it_is_a_fifo(tmp_path: Path) -> None:
    tree = fakesys.rpi5(tmp_path / "root")
    temp = tree.root / ZONE0 / "temp"
    temp.unlink()
    os.mkfifo(temp)
    p = thermogov("doctor", "--sysfs-root", str(tree.root), timeout=60)
    assert p.returncode == 0, p.stderr
    assert "temp: empty (a FIFO, not a sysfs attribute)" in p.stdout


@pytest.mark.parametrize("kind", ["outside-link", "negative"])
def test_doctor_warns_with_runs_line_when_run_would_refuse_the_limits(tmp_path: Path, kind: str) -> None:
    """A max linked outside the root showed as "limits 1500..? MHz" and nothing else."""
    tree = fakesys.rpi5(tmp_path / "root")
    rel = f"{POLICY0}/scaling_max_freq"
    if kind == "outside-link":
        outside = tmp_path / "outside"
        outside.write_text("2400000\n")
        (tree.root / rel).unlink()
        (tree.root / rel).symlink_to(outside)
    else:
        tree.write(rel, "-2400000\n")
    p = thermogov("doctor", "--sysfs-root", str(tree.root))
    assert p.returncode == 0, p.stderr
    (warning,) = [ln for ln in p.stderr.splitlines() if "refuses this board" in ln]
    assert "scaling_max_freq" in warning
    run = thermogov(*_run(tmp_path, "--dry-run"))
    assert one_line_error(run, "scaling_max_freq").split("error: ", 1)[1] in warning


@pytest.mark.parametrize(("value", "shown"), [("nan", "'nan'"), ("0", "0 kHz is no clock")])
def test_an_unreadable_clock_is_said_at_doctor_and_at_run_start(
    tmp_path: Path, value: str, shown: str
) -> None:
    """A ``scaling_cur_freq`` reading ``nan`` or 0 left the trace's clock column empty or 0, unsaid."""
    tree = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    tree.write(f"{POLICY0}/scaling_cur_freq", f"{value}\n")
    for line in warned_at_doctor_and_run(tmp_path, tree, "clock is unreadable"):
        assert f"scaling_cur_freq: {shown}" in line and "cpu_freq_hz is not the clock" in line


def warned_at_doctor_and_run(tmp: Path, tree: fakesys.FakeTree, needle: str) -> list[str]:
    """The one line with ``needle`` that ``doctor`` and then a short ``run`` (both exit 0) print."""
    lines = []
    for args in (("doctor", "--sysfs-root", str(tree.root)), _run(tmp)):
        p = thermogov(*args)
        assert p.returncode == 0, p.stderr
        (line,) = [ln for ln in p.stderr.splitlines() if needle in ln]
        lines.append(line)
    return lines


@pytest.mark.parametrize(
    ("board", "min_rel", "max_rel", "lo", "hi"),
    [
        ("rpi5", f"{POLICY0}/scaling_min_freq", f"{POLICY0}/scaling_max_freq", 2400000, 1500000),
        ("orin", f"{GPU}/min_freq", f"{GPU}/max_freq", 625000000, 306000000),
    ],
)
def test_a_min_above_its_max_is_refused_at_start_naming_both_files(
    tmp_path: Path, board: str, min_rel: str, max_rel: str, lo: int, hi: int
) -> None:
    """Session 19: governed before, and the window "restored" at exit.  Every kernel shows the
    min clamped to the max (or refused the write), so such a tree is not a kernel's."""
    if board == "rpi5":
        tree = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    else:
        tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    tree.write(max_rel, hi)
    tree.write(min_rel, lo)
    before = tree.snapshot()
    line = one_line_error(thermogov(*_run(tmp_path)), "is above the max")
    leaf = min_rel.rsplit("/", 1)[1]
    assert f"/{leaf}: min {lo}" in line and f"/{max_rel.rsplit('/', 1)[1]}, a window" in line
    assert tree.snapshot() == before


def test_a_min_equal_to_its_max_is_governed(tmp_path: Path) -> None:
    """What jetson_clocks leaves (min = max): a window a kernel shows, governed as before."""
    tree = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    tree.write(f"{POLICY0}/scaling_min_freq", 2400000)
    before = tree.snapshot()
    p = thermogov(*_run(tmp_path))
    assert p.returncode == 0, p.stderr
    assert tree.snapshot() == before
