"""Session 29i (docs/sweeps.md): what hostile round 29h left, through the installed script.

* ``sim --duration "10 m"`` was 10 minutes and ``"5\n"`` 5 s, and ``٥`` was refused where every
  numeric option reads it: every number and time option now reads its text by one rule (one
  word, any decimal digit), bad input exit 2 naming the option and the forms.
* ``THERMOGOV_LOCK_DIR`` set to /dev/null, /proc/self or a FIFO was taken by ``run --dry-run``:
  a runtime folder that is no folder (or cannot be made one) is exit 2 naming the variable.
* ``run --workload`` governed on after its workload exited mid-run and judged at the end: the run
  now ends at the exit (limits restored, trace and summary written, one line saying when and with
  what status), exit 0 when the workload exited 0 having counted inferences, 1 otherwise; ``ab``
  stops at the block (any block, not only the first) or cool-down in which its workload exited.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths

# A workload that prints a line per "inference" for a while, then exits with the given status.
_BRIEF = (
    "import sys, time\n"
    "end = time.monotonic() + float(sys.argv[1])\n"
    "while time.monotonic() < end:\n"
    "    print('done', flush=True)\n"
    "    time.sleep(0.02)\n"
    "sys.exit(int(sys.argv[2]))\n"
)


def _brief(tmp: Path, seconds: float, status: int) -> str:
    script = tmp / "brief.py"
    script.write_text(_BRIEF)
    return f"cmd:{sys.executable} {script} {seconds:g} {status}"


def _run(tmp: Path, workload: str, *extra: str) -> tuple[int, str, str, dict[str, object]]:
    t = fakesys.rpi5(tmp / "root")
    before = t.snapshot()
    p = thermogov(
        "run", *paths(tmp), "--out", str(tmp / "out"), "--duration", "30s", "--workload", workload,
        *extra, timeout=DEADLINE_S,
    )  # fmt: skip
    assert "Traceback" not in p.stderr, p.stderr
    assert t.snapshot() == before  # every limit restored
    (run_dir,) = (f.parent for f in (tmp / "out").glob("*/summary.json"))
    assert (run_dir / "trace.csv").stat().st_size > 0
    return p.returncode, p.stdout, p.stderr, json.loads((run_dir / "summary.json").read_text())


def test_run_ends_when_its_workload_exits_0_and_says_so(tmp_path: Path) -> None:
    rc, _out, err, summary = _run(tmp_path, _brief(tmp_path, 1.5, 0))
    assert rc == 0, err
    assert summary["stopped_by"] == "workload"  # main: "duration", the whole 30 s governed
    assert summary["workload_exit_status"] == 0
    assert float(summary["duration_s"]) < 30  # type: ignore[arg-type]
    assert summary["inferences_total"]
    (line,) = [ln for ln in err.splitlines() if "exited after" in ln]
    assert "(status 0)" in line and "run ended there" in line and "restored" in line


def test_run_ended_by_its_workload_counts_every_line_it_wrote(tmp_path: Path) -> None:
    """A workload that prints 40 lines at once and exits: the run's last tick, after the exit was
    seen, holds all 40 (every line is read before the exit is), whenever the exit came."""
    rc, _out, err, summary = _run(tmp_path, f'cmd:{sys.executable} -c "for i in range(40): print(i)"')
    assert rc == 0, err
    assert summary["stopped_by"] == "workload"  # main: "duration", 30 s of an idle board
    assert summary["inferences_total"] == 40 == summary["workload_lines"]


def test_run_whose_workload_fails_mid_run_ends_there_with_exit_1(tmp_path: Path) -> None:
    rc, _out, err, summary = _run(tmp_path, _brief(tmp_path, 1.5, 4))
    assert rc == 1, err  # main: exit 0 after 30 s, the lines it counted taken as the result
    assert summary["stopped_by"] == "workload"
    errors = [ln for ln in err.splitlines() if ln.startswith("thermogov: error:")]
    assert len(errors) == 1, err
    assert "(status 4)" in errors[0] and "run ended there" in errors[0] and "restored" in errors[0]


def test_run_json_keeps_the_exit_line_off_stdout(tmp_path: Path) -> None:
    rc, out, err, summary = _run(tmp_path, _brief(tmp_path, 1.5, 0), "--json")
    assert rc == 0, err
    document = out[out.index("\n{") + 1 :]  # after the start line, the summary as JSON
    assert json.loads(document)["stopped_by"] == "workload" == summary["stopped_by"]
    assert "exited after" in err


_LATER = (
    "import pathlib, sys, time\n"
    "n = pathlib.Path(sys.argv[1])\n"
    "k = int(n.read_text()) + 1 if n.exists() else 1\n"
    "n.write_text(str(k))\n"
    "end = time.monotonic() + (0.4 if k == int(sys.argv[2]) else 600)\n"
    "while time.monotonic() < end:\n"
    "    print('done', flush=True)\n"
    "    time.sleep(0.02)\n"
)


def test_ab_stops_at_a_later_block_whose_workload_exits_mid_block(tmp_path: Path) -> None:
    """The workload's third start (block 3, no cool-downs) exits 0 after 0.4 s of a 2 s block."""
    fakesys.rpi5(tmp_path / "root")
    script = tmp_path / "later.py"
    script.write_text(_LATER)
    workload = f"cmd:{sys.executable} {script} {tmp_path / 'starts'} 3"
    p = thermogov(
        "ab", *paths(tmp_path), "--lock-dir", str(tmp_path / "locks"), "--out", str(tmp_path / "out"),
        "--policy", "stepped", "--policy", "power_allocator", "--block", "2s", "--pairs", "2",
        "--cool-down", "0", "--workload", workload, timeout=DEADLINE_S * 2,
    )  # fmt: skip
    assert p.returncode == 1, (p.stdout, p.stderr)  # main: a verdict from 4 blocks, exit 0
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("thermogov: error:")]
    assert len(errors) == 1, p.stderr
    assert "block 3 (" in errors[0] and "exited after" in errors[0] and "(status 0)" in errors[0]
    assert "nothing was compared" in errors[0]
    assert sorted(d.name for d in (tmp_path / "out").iterdir()) == ["block-01", "block-02", "block-03"]


# Every number and time option reads its text by one rule (thermogov/units.py): one word, any
# Unicode decimal digit read as its value (27h), the unit attached.
@pytest.mark.parametrize(
    "text", ["10 m", "5\n", " 5", "5s\t", "1\u00a0h"], ids=["space", "newline", "lead", "tab", "nbsp"]
)
def test_a_duration_split_by_a_space_or_a_break_is_bad_input(tmp_path: Path, text: str) -> None:
    p = thermogov("sim", "--duration", text, "--out", str(tmp_path / "out"))
    line = one_line_error(p, "--duration")  # main: 10 minutes, 5 s, ... simulated, exit 0
    assert "one word" in line and "10m" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text", ["\u0665", "\u0661\u0660ms", "\uff15s"], ids=["arabic-indic", "with-unit", "fullwidth"]
)
def test_a_duration_in_other_decimal_digits_is_read_as_the_numbers_are(tmp_path: Path, text: str) -> None:
    p = thermogov("sim", "--duration", text, "--out", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr  # main: "cannot read '٥' as a duration", exit 2
    (summary,) = (tmp_path / "out").glob("*/summary.json")
    assert summary.exists()


@pytest.mark.parametrize("text", [" 25", "25\n", "2 5"], ids=["lead", "newline", "inner"])
def test_a_number_option_split_by_a_space_or_a_break_is_bad_input(tmp_path: Path, text: str) -> None:
    p = thermogov("sim", "--duration", "1s", "--ambient", text, "--out", str(tmp_path / "out"))
    line = one_line_error(p, "--ambient")  # main: " 25" and "25\n" were 25 °C
    assert "one word" in line
    assert not (tmp_path / "out").exists()


def _dry_run_with_lock_dir(tmp: Path, value: str) -> subprocess.CompletedProcess[str]:
    fakesys.rpi5(tmp / "root")
    return subprocess.run(
        [SCRIPT, "run", "--dry-run", *paths(tmp), "--out", str(tmp / "out"), "--duration", "1s"],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        env={**os.environ, "THERMOGOV_LOCK_DIR": value},
        check=False,
    )


@pytest.mark.parametrize("kind", ["dev-null", "proc-self", "fifo", "file", "through-file"])
def test_a_runtime_dir_variable_that_is_no_folder_is_bad_input_before_anything_is_written(
    tmp_path: Path, kind: str
) -> None:
    (tmp_path / "afile").write_text("x\n")
    os.mkfifo(tmp_path / "fifo")
    value = {
        "dev-null": "/dev/null",
        "proc-self": "/proc/self",
        "fifo": str(tmp_path / "fifo"),
        "file": str(tmp_path / "afile"),
        "through-file": str(tmp_path / "afile" / "sub"),
    }[kind]
    p = _dry_run_with_lock_dir(tmp_path, value)
    one_line_error(p, "THERMOGOV_LOCK_DIR")  # main: exit 0, a warning per runtime file
    assert not (tmp_path / "out").exists()


def test_a_runtime_dir_variable_naming_a_folder_to_make_is_taken(tmp_path: Path) -> None:
    p = _dry_run_with_lock_dir(tmp_path, str(tmp_path / "new" / "runtime"))
    assert p.returncode == 0, p.stderr
