"""Hostile round, session 29 (docs/sweeps.md, "Session 29h"): what round 28h left, and a fresh
sweep, through the installed script.

* A closed stdout (``thermogov boards >&-``): every command that wrote its result there said
  "stdout: 'NoneType' object has no attribute 'flush'" (exit 1).  Now one line saying stdout is
  closed, exit 1, from one rule in the console script's entry (``thermogov/entry.py``).
* ``ab --workload cmd:true`` ran every block at 0 inf/s and reported "no difference resolved",
  exit 0; ``run --workload cmd:true`` reported "0.0 inf/s", exit 0.  A workload that counts no
  inference is now exit 1 at the first block (or at the first cool-down, when it exited), with
  what was seen (its exit, its lines, the regex).
* A forged journal's ``sysfs_root`` was advice ("pass --sysfs-root <the file's value>", a
  newline or an escape included); it is now quoted as the file's claim, never a command.
* A journal's ``caps_record`` that is no record was passed over silently; it is now said (the
  journal file and the field), and everything else is restored.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error, thermogov
from tests.hw import fakesys, procutil
from tests.hw.procutil import DEADLINE_S, paths
from tests.hw.test_hostile_journal_inputs import _edit
from tests.hw.test_hw_last_caps import _killed, _locks, _record


def _closed_stdout(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", 'exec "$0" "$@" >&-', SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S * 2,
        check=False,
        cwd=cwd,
    )


def _stdout_closed_line(p: subprocess.CompletedProcess[str]) -> None:
    assert p.returncode == 1, p.stderr
    assert "NoneType" not in p.stderr and "Traceback" not in p.stderr, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert lines[-1].startswith("thermogov: error: stdout is closed"), p.stderr
    assert sum("stdout" in ln for ln in lines) == 1, p.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("boards",),
        ("boards", "--json"),
        ("--version",),
        ("--help",),
        ("sim", "--help"),
        ("compare", "--help"),
        ("import", "--help"),
        ("calibrate", "--help"),
        ("plot", "--help"),
    ],
    ids=lambda a: "-".join(a),
)
def test_a_command_writing_to_a_closed_stdout_is_one_line_and_exit_1(args: tuple[str, ...]) -> None:
    _stdout_closed_line(_closed_stdout(*args))  # main: "'NoneType' object has no attribute 'flush'"


def test_a_sim_run_with_stdout_closed_writes_its_folder_and_says_its_result_was_lost(tmp_path: Path) -> None:
    p = _closed_stdout("sim", "--board", "rpi5", "--duration", "5", "--out", str(tmp_path / "out"))
    _stdout_closed_line(p)
    assert list(
        (tmp_path / "out").glob("*/summary.json")
    )  # the work was done; only the printed result was lost


def test_doctor_with_stdout_closed_is_one_line_and_exit_1(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    _stdout_closed_line(_closed_stdout("doctor", "--sysfs-root", str(tmp_path / "root")))


def test_a_closed_stdout_is_no_descriptor_a_file_can_take(tmp_path: Path) -> None:
    """Descriptor 1 closed: the first file the command opened got number 1, so anything written
    to "stdout" below Python (a child's output) landed in it.  It is /dev/null now."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os, sys\n"
        "sys.argv = ['thermogov', 'boards']\n"
        "from thermogov import entry\n"
        "entry.keep_writing()\n"
        "fd = os.open(os.devnull, os.O_RDONLY)\n"
        "print(fd, file=sys.stderr)\n"
        "print(os.path.realpath(f'/proc/self/fd/1'), file=sys.stderr)\n"
    )
    p = subprocess.run(
        ["bash", "-c", 'exec "$0" "$1" >&-', sys.executable, str(probe)],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        check=False,
    )
    fd, target = p.stderr.split()
    assert int(fd) > 2 and target == "/dev/null", p.stderr


def _ab(tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    fakesys.rpi5(tmp / "root")
    return thermogov(
        "ab", *paths(tmp), "--lock-dir", str(tmp / "locks"), "--out", str(tmp / "out"),
        "--policy", "stepped", "--policy", "power_allocator", "--block", "1s", "--pairs", "2",
        *extra, timeout=DEADLINE_S * 2,
    )  # fmt: skip


def _runtime_line(p: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("thermogov: error:")]
    assert len(errors) == 1, p.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize(
    ("workload", "regex", "seen"),
    [
        ("cmd:true", None, "exited"),
        ("cmd:sleep 30", None, "wrote no line"),
        (
            f"cmd:{sys.executable} -c \"print('warming up'); import time; time.sleep(30)\"",
            "^done",
            "none matching",
        ),
    ],
    ids=["exits-at-once", "silent", "regex-never-matches"],
)
def test_ab_with_a_workload_that_counts_nothing_stops_at_block_1(
    tmp_path: Path, workload: str, regex: str | None, seen: str
) -> None:
    extra = ["--count-regex", regex] if regex else []
    p = _ab(tmp_path, "--cool-down", "0", "--workload", workload, *extra)
    _runtime_line(p, "block 1 (", seen, "--workload")  # main: 4 blocks at 0 inf/s, exit 0
    assert "block 2" not in p.stderr
    assert [d.name for d in (tmp_path / "out").iterdir()] == ["block-01"]


def test_ab_with_a_workload_that_exits_at_once_stops_at_the_first_cool_down(tmp_path: Path) -> None:
    p = _ab(tmp_path, "--cool-down", "1", "--workload", "cmd:sh -c 'exit 3'")
    _runtime_line(p, "cool-down before block 1", "status 3")
    assert not (tmp_path / "out" / "block-01").exists()


def test_run_with_a_workload_that_counts_nothing_is_exit_1_after_its_restore(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    p = thermogov(
        "run", *paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "1s",
        "--workload", "cmd:true", timeout=DEADLINE_S,
    )  # fmt: skip
    _runtime_line(p, "cmd:true exited", "limits were restored")  # main: exit 0, "0.0 inf/s"
    assert t.snapshot() == before


def test_a_forged_journal_root_is_quoted_as_its_claim_never_as_advice(tmp_path: Path) -> None:
    t, _before = _killed(tmp_path)
    forged = "/tmp/x\n\x1b[2Jthermogov: restored"
    _edit(tmp_path, lambda b: b.update(sysfs_root=forged))
    killed = t.snapshot()
    r = procutil.run_cli("restore", *procutil.paths(tmp_path), *_locks(tmp_path))
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "\x1b" not in lines[0]
    assert "pass --sysfs-root /tmp" not in lines[0]  # main: advice built from the file's value
    assert "journal says" in lines[0] and "nothing was changed" in lines[0], lines[0]
    assert t.snapshot() == killed


@pytest.mark.parametrize("kind", ["relative", "other-name", "folder", "not-a-record"])
def test_a_caps_record_that_is_no_record_is_said_and_the_rest_restored(tmp_path: Path, kind: str) -> None:
    t, before = _killed(tmp_path)
    own = _record(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    named = {
        "relative": own.name,
        "other-name": str(elsewhere / "passwd"),
        "folder": str(elsewhere / own.name),
        "not-a-record": str(elsewhere / own.name),
    }[kind]
    if kind == "folder":
        (elsewhere / own.name).mkdir()
    elif kind == "not-a-record":
        (elsewhere / own.name).write_text("not a record\n")
    _edit(tmp_path, lambda b: b.update(caps_record=named))
    r = procutil.run_cli("restore", *procutil.paths(tmp_path), *_locks(tmp_path))
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert "Traceback" not in out
    said = [ln for ln in out.splitlines() if "caps_record" in ln]
    assert len(said) == 1, out  # main: nothing said
    assert str(tmp_path / "state" / "journal.json") in said[0] and "passed over" in said[0]
    assert t.snapshot() == before  # everything else restored


def _sim_run(tmp: Path) -> Path:
    p = thermogov("sim", "--board", "rpi5", "--duration", "5", "--out", str(tmp / "runs"))
    assert p.returncode == 0, p.stderr
    (run,) = (d for d in (tmp / "runs").iterdir() if d.is_dir())
    return run


def test_plot_passes_over_a_summary_nested_past_the_parser_s_depth(tmp_path: Path) -> None:
    run = _sim_run(tmp_path)
    (run / "summary.json").write_text("[" * 100_000 + "]" * 100_000)
    p = thermogov("plot", str(run), "--out", str(tmp_path / "fig"))
    assert p.returncode == 0 and "internal error" not in p.stderr, p.stderr  # main: RecursionError, exit 1
    assert (tmp_path / "fig" / "plot.png").is_file()


def test_plot_draws_a_title_and_labels_holding_control_characters_as_text(tmp_path: Path) -> None:
    run = _sim_run(tmp_path)
    p = thermogov("plot", str(run), "--title", "\x1b[2J", "--label", "a\x07b", "--out", str(tmp_path / "fig"))
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == "", p.stderr  # main: matplotlib's "Glyph ... missing" warnings


def test_a_lock_dir_variable_holding_a_control_character_is_bad_input() -> None:
    p = subprocess.run(
        [SCRIPT, "status"],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        env={**os.environ, "THERMOGOV_LOCK_DIR": "/tmp/a\nb"},
        check=False,
    )
    line = one_line_error(p, "THERMOGOV_LOCK_DIR")  # main: exit 1, "a\nb/state.json: no thermogov state"
    assert "control character" in line


@pytest.mark.parametrize("mark", ["\u202e", "\u2067", "\u200f"], ids=["RLO", "RLI", "RLM"])
def test_a_bidi_control_in_a_config_name_is_shown_escaped_in_the_error_line(
    tmp_path: Path, mark: str
) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text(f'[policies."{mark}stepped"]\n', encoding="utf-8")
    p = thermogov("sim", "--config", str(conf), "--duration", "5", "--out", str(tmp_path / "out"))
    line = one_line_error(p, "policies.")
    assert mark not in line, line  # main: the mark itself, and the terminal showed the line reordered
    assert f"\\u{ord(mark):04x}stepped" in line
