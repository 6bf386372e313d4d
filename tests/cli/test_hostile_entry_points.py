"""Session 16's review of every subcommand as a hostile user, through the installed script.

Each rule is one validation layer, and each test failed before it: a trace's cells (every number
finite, time forwards) for every reader of a run folder; `doctor --config` runs `run`'s checks of
the config against the board; a list option given empty; an option that only shapes another
option's work; the daemon's state file; and a failed write names its file.  The review and its
counts: docs/sweeps.md, "Session 16".
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.cliargs import board_paths


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    p = thermogov("sim", "--board", "rpi5", "--duration", "20", "--out", str(out))
    assert p.returncode == 0, p.stderr
    (run,) = [d for d in out.iterdir() if d.is_dir()]
    return run


def _edited_run(run_dir: Path, tmp: Path, edit: Callable[[list[str]], list[str]]) -> Path:
    """A copy of ``run_dir`` whose trace lines went through ``edit``."""
    dst = tmp / "run"
    dst.mkdir()
    for f in run_dir.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    lines = (run_dir / "trace.csv").read_text().splitlines(keepends=True)
    (dst / "trace.csv").write_text("".join(edit(lines)))
    return dst


def _cell(lines: list[str], row: int, col: str, value: str) -> list[str]:
    header = lines[0].rstrip("\n").split(",")
    cells = lines[row].rstrip("\n").split(",")
    cells[header.index(col)] = value
    return [*lines[:row], ",".join(cells) + "\n", *lines[row + 1 :]]


TRACE_DEFECTS = {
    # a hand-edited or corrupt cell: drawn as a gap or fitted as a temperature before
    "nan": (lambda ls: _cell(ls, 20, "fused_c", "nan"), "fused_c is 'nan'"),
    "inf": (lambda ls: _cell(ls, 20, "cpu_c", "inf"), "cpu_c is 'inf'"),
    "word": (lambda ls: _cell(ls, 20, "power_w", "1e30970.5"), "power_w is '1e30970.5'"),
    # an internal error (TypeError) in plot before
    "t-nan": (lambda ls: _cell(ls, 20, "t_s", "nan"), "t_s is 'nan'"),
    # two runs pasted into one file, or rows sorted wrongly: an IndexError in plot before
    "t-back": (lambda ls: [ls[0], *ls[1:50], *ls[1:50]], "goes back"),
    "t-empty": (lambda ls: _cell(ls, 20, "t_s", ""), "t_s is empty"),
}


@pytest.mark.parametrize("defect", sorted(TRACE_DEFECTS))
def test_plot_refuses_a_corrupt_trace_naming_line_and_column(
    run_dir: Path, tmp_path: Path, defect: str
) -> None:
    edit, needle = TRACE_DEFECTS[defect]
    run = _edited_run(run_dir, tmp_path, edit)
    line = one_line_error(thermogov("plot", str(run), "--out", str(tmp_path / "fig")), needle)
    assert "trace.csv:" in line
    assert not (tmp_path / "fig").exists()


def test_calibrate_refuses_a_nan_trace_instead_of_fitting_it(run_dir: Path, tmp_path: Path) -> None:
    run = _edited_run(run_dir, tmp_path, TRACE_DEFECTS["nan"][0])
    one_line_error(thermogov("calibrate", str(run), "--out", str(tmp_path / "cal")), "fused_c is 'nan'")
    assert not list(tmp_path.glob("cal/*.toml"))


def test_a_trace_saved_again_with_a_byte_order_mark_still_plots(run_dir: Path, tmp_path: Path) -> None:
    run = _edited_run(run_dir, tmp_path, lambda ls: ["\ufeff" + ls[0], *ls[1:]])
    p = thermogov("plot", str(run), "--out", str(tmp_path / "fig"))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "fig" / "plot.png").is_file()


@pytest.mark.parametrize(
    ("config", "needle"),
    [
        ("[sensors.nosuch]\nweight = 1.0\n", "sensors.nosuch"),
        ('[run]\npolicy = "fixed:nan"\n', "fixed:nan"),
        ("[policies.stepped]\ntrip_c = nan\n", "policies.stepped.trip_c"),
    ],
)
def test_doctor_refuses_a_config_run_would_refuse(tmp_path: Path, config: str, needle: str) -> None:
    """The example config says to check a change with `doctor --config`: it passed (exit 0)
    configs that `run` then refused on the same board."""
    fakesys.rpi5(tmp_path / "root")
    conf = tmp_path / "c.toml"
    conf.write_text(config)
    p = thermogov("doctor", "--config", str(conf), "--sysfs-root", str(tmp_path / "root"))
    line = one_line_error(p, needle)
    assert str(conf) in line
    assert "mapping of profile rpi5" in p.stdout  # the report is still printed
    ok = thermogov("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert ok.returncode == 0, ok.stderr
    run = thermogov("run", "--config", str(conf), *board_paths(tmp_path), "--dry-run", "--duration", "0.3s")
    one_line_error(run, needle)


COMPARE = ["compare", "--scenario", "rpi5-steady-25", "--policy", "stepped", "--duration", "5", "--no-oracle"]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--seed", ""], "--seed: empty"),  # an unset "$SEEDS": ran seed 1 silently
        (["--seed", " , "], "--seed: empty"),
        (["--scenario", ""], "--scenario: empty"),  # ran every scenario, then blamed an event
        (["--batch-size", "4"], "--batch-size: applies only with --batching"),  # was ignored
        (["--max-wait-ms", "5"], "--max-wait-ms: applies only with --batching"),
    ],
)
def test_compare_refuses_an_empty_list_and_an_option_that_would_be_ignored(
    tmp_path: Path, extra: list[str], needle: str
) -> None:
    base = COMPARE[:1] + COMPARE[3:] if extra[0] == "--scenario" else COMPARE
    p = thermogov(*base, "--out", str(tmp_path / "o"), *extra)
    one_line_error(p, needle)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", ["too-deep", "fifo"])
def test_status_refuses_a_state_file_that_is_not_the_daemons(tmp_path: Path, kind: str) -> None:
    """A 100 000-deep JSON array was an internal error (RecursionError); a FIFO hung."""
    f = tmp_path / "state.json"
    if kind == "fifo":
        os.mkfifo(f)
        needle = "not a regular file"
    else:
        f.write_text("[" * 100_000 + "]" * 100_000)
        needle = "nested too deeply"
    one_line_error(thermogov("status", "--state", str(f), timeout=30), needle)


def _limited(*args: str, max_bytes: int) -> subprocess.CompletedProcess[str]:
    """The script with files capped at ``max_bytes`` (RLIMIT_FSIZE: a write past it fails with
    EFBIG, as a full disk fails with ENOSPC; Python ignores SIGXFSZ)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return subprocess.run(
        [SCRIPT, *args], capture_output=True, text=True, preexec_fn=cap, timeout=300, check=False
    )


def test_a_failed_write_names_the_file_that_failed(tmp_path: Path) -> None:
    """ "File too large; check the disk and the path" named no file: a write error carries none,
    and SimPy re-raises a process's exception without it."""
    p = _limited("sim", "--board", "rpi5", "--duration", "10m", "--out", str(tmp_path), max_bytes=30_000)
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert "trace.csv: File too large" in lines[0] or "samples.csv: File too large" in lines[0], lines[0]
    (run,) = [d for d in tmp_path.iterdir() if d.is_dir()]
    assert not (run / "summary.json").exists()  # nothing claims the run completed


@pytest.mark.parametrize(
    ("config", "needle"),
    [
        ('[run]\nboard = "nosuch"\n', "run.board: unknown board 'nosuch'"),  # said "board:", no file
        ('[run]\nboard = "rpi5"\n[sensors.nosuch]\nweight = 1.0\n', "sensors.nosuch"),  # no file
    ],
)
def test_a_config_error_found_against_the_board_names_the_file(
    tmp_path: Path, config: str, needle: str
) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text(config)
    p = thermogov("sim", "--config", str(conf), "--duration", "5", "--out", str(tmp_path / "o"))
    assert str(conf) in one_line_error(p, needle)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", ["loop", "through-a-file"])
def test_status_refuses_a_state_path_that_cannot_name_a_file(tmp_path: Path, kind: str) -> None:
    """A symlink loop exited 1 ("cannot read the thermogov state"), as if the daemon were down;
    the path given is wrong whatever the daemon does (session 17)."""
    if kind == "loop":
        (tmp_path / "state.json").symlink_to("state.json")
        path = tmp_path / "state.json"
    else:
        (tmp_path / "file").write_text("{}")
        path = tmp_path / "file" / "state.json"
    line = one_line_error(thermogov("status", "--state", str(path)), str(path))
    assert "--state" in line


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (("seed = 1", "seed = nan"), "run.seed"),
        (("control_period_ms = 100", 'control_period_ms = "fast"'), "governor.control_period_ms"),
        (("ambient_c = 25.0", "ambient_c = inf"), "sim.ambient_c"),
        (("[run]", "[run"), "config.toml"),
    ],
    ids=["nan-seed", "string-period", "inf-ambient", "not-toml"],
)
def test_a_run_folder_config_run_would_refuse_is_refused_before_the_fit(
    run_dir: Path, tmp_path: Path, edit: tuple[str, str], needle: str
) -> None:
    """Session 16 left it: the folder's config.toml was never read, so a NaN seed was fitted."""
    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    conf = run / "config.toml"
    conf.write_text(conf.read_text(encoding="utf-8").replace(*edit), encoding="utf-8")
    line = one_line_error(thermogov("calibrate", str(run), "--out", str(tmp_path / "out")), needle)
    assert str(conf) in line
    assert not (tmp_path / "out").exists()
