"""Session 32h: the leftovers of 31h's hostile round, each a contract through the installed
script once and its other cases in-process through the same entry point (docs/sweeps.md,
Session 32h):

* ``plot summary.json`` said "2 cells for 1 columns; file is corrupt" and ``plot config.toml``
  "7: 0 cells for 1 columns": true of them as CSV, but the user gave the wrong file;
* ``plot --window 1e-300`` (shorter than one sample) drew an empty throughput panel and
  ``--window 1e6`` (longer than the run) the mean since the start, both exit 0; ``1e10`` said
  "use a value in -1e+09..1e+09", offering negative windows;
* ``--count-regex ''`` (and any pattern matching an empty line, ``.*``) counted every line as no
  regex does: taken as a filter that filters nothing;
* ``emulate --warm-up 0`` was "must be a positive duration" where ``ab --cool-down 0`` is none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.cliutil import run_cli_completed
from tests.hw import fakesys
from tests.hw.procutil import paths

PERIOD_S = 0.5
ROWS = 41  # 20 s of samples


def _run_folder(tmp: Path) -> Path:
    """A small trace (t_s, fused_c and a counter) at a 0.5 s period, as ``plot`` reads one."""
    run = tmp / "run"
    run.mkdir()
    rows = "".join(f"{i * PERIOD_S:.3f},{50 + i * 0.1:.3f},{i * 7}\n" for i in range(ROWS))
    (run / "trace.csv").write_text("t_s,fused_c,inferences_total\n" + rows)
    return run


def _files(tmp: Path) -> list[str]:
    return sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*"))


def test_plot_of_a_summary_json_says_it_is_no_trace_through_the_script(tmp_path: Path) -> None:
    run = _run_folder(tmp_path)
    (run / "summary.json").write_text('{"policy": "stepped",\n "board": "rpi5"}\n')
    before = _files(tmp_path)
    p = thermogov("plot", str(run / "summary.json"), cwd=tmp_path)
    one_line_error(
        p, "summary.json: a JSON file (a run's summary.json or a daemon's state.json), not a trace"
    )
    assert _files(tmp_path) == before


def test_plot_of_a_window_shorter_than_a_sample_is_refused_through_the_script(tmp_path: Path) -> None:
    run = _run_folder(tmp_path)
    p = thermogov("plot", str(run), "--window", "1e-300", "--out", str(tmp_path / "fig"), cwd=tmp_path)
    one_line_error(p, "--window: 1e-300 s is shorter than one sample of")
    assert "give at least 0.5" in p.stderr and not (tmp_path / "fig").exists()


WRONG_FILES = {
    "a state.json": ("state.json", '{"schema": 1, "temps": {}}', "a JSON file"),
    "a JSON array after a BOM": ("a.json", "\ufeff  [1, 2]", "a JSON file"),
    "a nested JSON array": ("b.json", "[[1,2]]", "a JSON file"),
    "a run's config.toml": (
        "config.toml",
        '[governor]\npolicy = "stepped"\n\n[policies.stepped]\n',
        "no t_s",
    ),
    "a TOML array of tables": ("t.toml", "[[points]]\nseed = 1\n", "no t_s"),
}


@pytest.mark.parametrize("name,text,needle", WRONG_FILES.values(), ids=list(WRONG_FILES))
def test_plot_of_a_file_that_is_no_trace_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, needle: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    one_line_error(run_cli_completed(["plot", str(path)], capsys), f"{name}: ")
    one_line_error(run_cli_completed(["plot", str(path)], capsys), needle)
    assert _files(tmp_path) == [name]


WINDOWS = {
    "a tenth of a sample": ("0.05", "shorter than one sample", "give at least 0.5"),
    "longer than the run": ("20.5", "longer than the longest run (20 s)", "give at most 20"),
    "a million seconds": ("1e6", "longer than the longest run", "give at most 20"),
    "past the generic bound": ("1e10", "give 0 < window, at most 1e+09", "--window"),
}


@pytest.mark.parametrize("window,needle,fix", WINDOWS.values(), ids=list(WINDOWS))
def test_plot_refuses_a_window_no_run_can_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], window: str, needle: str, fix: str
) -> None:
    run = _run_folder(tmp_path)
    p = run_cli_completed(["plot", str(run), "--window", window, "--out", str(tmp_path / "fig")], capsys)
    line = one_line_error(p, needle)
    assert fix in line and not (tmp_path / "fig").exists()


def test_the_default_window_still_draws_a_run_shorter_than_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a given window is judged: the default 10 s over a 5 s run draws as it always did."""
    run = tmp_path / "run"
    run.mkdir()
    rows = "".join(f"{i * PERIOD_S:.3f},50,{i * 7}\n" for i in range(11))
    (run / "trace.csv").write_text("t_s,fused_c,inferences_total\n" + rows)
    p = run_cli_completed(["plot", str(run), "--out", str(tmp_path / "fig")], capsys)
    assert p.returncode == 0 and (tmp_path / "fig" / "plot.png").is_file(), p.stderr


def test_a_window_of_one_sample_draws_every_point(tmp_path: Path) -> None:
    """The shortest window taken draws a rate at every sample after the first: times read back
    from decimals missed the sample one period back at random (a third of them on a 0.1 s trace)."""
    import numpy as np

    from thermogov.plotting.figures import rolling_rate

    t = np.array([float(f"{i * 0.1:.3f}") for i in range(601)])
    rate = rolling_rate(t, np.arange(601.0) * 3, 0.1)
    assert np.isnan(rate).sum() == 1 and np.allclose(rate[1:], 30.0)


def _rpi5(tmp: Path) -> list[str]:
    fakesys.rpi5(tmp / "root")
    return [*paths(tmp), "--out", str(tmp / "out"), "--duration", "1s", "--dry-run"]


def test_an_empty_count_regex_is_refused_through_the_script(tmp_path: Path) -> None:
    tree = fakesys.rpi5(tmp_path / "root")
    before = tree.snapshot()
    args = [*paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "1s", "--dry-run"]
    p = thermogov("run", *args, "--workload", "cmd:true", "--count-regex", "", cwd=tmp_path)
    one_line_error(p, "--count-regex: '' matches an empty line, so it counts every line")
    assert tree.snapshot() == before and not (tmp_path / "out").exists()


@pytest.mark.parametrize("regex", [".*", "x?", "^", "(?:)|done"])
def test_a_count_regex_matching_an_empty_line_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], regex: str
) -> None:
    args = ["run", *_rpi5(tmp_path), "--workload", "cmd:true", "--count-regex", regex]
    one_line_error(run_cli_completed(args, capsys), f"--count-regex: {regex!r} matches an empty line")
    assert not (tmp_path / "out").exists()


def test_an_empty_count_regex_beside_no_command_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was falsy, so ``--workload builtin --count-regex ''`` passed the "drop it" check."""
    args = ["run", *_rpi5(tmp_path), "--workload", "builtin", "--count-regex", ""]
    one_line_error(run_cli_completed(args, capsys), "--count-regex: the builtin workload counts itself")


def test_emulate_warm_up_0_is_none_through_the_script(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    p = thermogov("emulate", "--board", "rpi5", "--sysfs-root", str(root), "--warm-up", "0",
                  "--wall-duration", "1ms", cwd=tmp_path)  # fmt: skip
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert "POWERED_OFF" in p.stdout and (root / "sys").is_dir()


@pytest.mark.parametrize("zero", ["0ms", "0.0m", "٠"])
def test_emulate_warm_up_of_zero_in_any_unit_is_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], zero: str
) -> None:
    args = ["emulate", "--board", "rpi5", "--sysfs-root", str(tmp_path / "t"), "--wall-duration", "1ms"]
    p = run_cli_completed([*args, "--warm-up", zero], capsys)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize(
    "bad,needle", [("-1s", "--warm-up"), ("0.5ms", "shorter than 1 ms"), ("", "--warm-up")]
)
def test_emulate_warm_up_still_refuses_what_is_not_a_duration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str, needle: str
) -> None:
    args = ["emulate", "--board", "rpi5", "--sysfs-root", str(tmp_path / "t"), "--wall-duration", "1ms"]
    one_line_error(run_cli_completed([*args, "--warm-up", bad], capsys), needle)
    assert not (tmp_path / "t").exists()
