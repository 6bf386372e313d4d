"""Session 32h's hostile round (docs/sweeps.md, Session 32h): the faults it found, each by a
rule, the exit-status contract once through the installed script and the rest in-process.

* ``sim --scenario ''`` (an unset variable) ran with no scenario, as if the option were left out;
* ``sim --policy " hysteresis"`` ran as policy ``" hysteresis"``, in a run folder named with the
  space, where a variant's name has been read without its blanks since 31h;
* a config key of 100 000 characters was quoted whole: a 100 kB error line;
* ``--ambient=-0`` and ``ambient_c = -0`` were recorded as ``-0.0`` in the run's config.toml and
  summary;
* ``import ''`` said "": cannot read", and ``import --board ''``, ``--columns ''`` and
  ``calibrate --board ''`` ran as if the option were left out, where every other command says
  "empty";
* a config's ``[run] board = ""`` was "no board" to ``run`` (it detected one, exit 0) and
  "unknown board ''" to ``sim``: now "empty" to both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, sim_refuses_config, thermogov
from tests.cliutil import run_cli, run_cli_completed
from tests.hw import fakesys
from tests.hw.procutil import paths


def test_an_empty_scenario_is_refused_through_the_script(tmp_path: Path) -> None:
    p = thermogov("sim", "--scenario", "", "--duration", "5", "--out", str(tmp_path / "out"), cwd=tmp_path)
    one_line_error(p, "--scenario: empty; give a scenario name")
    assert not (tmp_path / "out").exists()


def _one_run(tmp: Path, capsys: pytest.CaptureFixture[str], *args: str) -> Path:
    code, _out, err = run_cli(["sim", "--duration", "5", "--out", str(tmp / "out"), *args], capsys)
    assert code == 0, err
    (run,) = (tmp / "out").glob("*-s*")
    return run


@pytest.mark.parametrize("given", [" hysteresis", "hysteresis\t", "fixed: 50%"])
def test_a_padded_policy_name_is_read_as_the_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    run = _one_run(tmp_path, capsys, "--policy", given)
    name = "".join(given.split())
    assert " " not in run.name and "\t" not in run.name, run.name
    assert f'policy = "{name}"' in (run / "config.toml").read_text()


def test_a_huge_unknown_key_is_named_by_its_start_and_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim_refuses_config(
        tmp_path, "k" * 100_000 + " = 1\n", "k" * 40 + "... (100000 characters): unknown key", capsys
    )
    assert len(capsys.readouterr().err) < 1000


def test_minus_zero_is_recorded_as_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _one_run(tmp_path, capsys, "--ambient=-0")
    assert "ambient_c = 0.0" in (run / "config.toml").read_text()
    assert json.loads((run / "summary.json").read_text())["ambient_c"] == 0.0
    assert '"ambient_c": 0.0' in (run / "summary.json").read_text()
    conf = tmp_path / "c.toml"
    conf.write_text("[sim]\nambient_c = -0.0\n")
    run = _one_run(tmp_path / "b", capsys, "--config", str(conf))
    assert "ambient_c = 0.0" in (run / "config.toml").read_text()


def _log(tmp: Path) -> Path:
    log = tmp / "log.csv"
    log.write_text("time,temp\n" + "".join(f"{i},{40 + i * 0.1:.1f}\n" for i in range(30)))
    return log


def test_import_of_an_empty_path_is_said_to_be_empty_through_the_script(tmp_path: Path) -> None:
    p = thermogov("import", "", "--out", str(tmp_path / "out"), cwd=tmp_path)
    one_line_error(p, "import: the log path is empty; give the log file")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "option,needle",
    [("--board", "--board: empty; give a board name"), ("--columns", "--columns: empty; write e.g.")],
)
def test_import_refuses_an_empty_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, needle: str
) -> None:
    args = ["import", str(_log(tmp_path)), option, "", "--out", str(tmp_path / "out")]
    one_line_error(run_cli_completed(args, capsys), needle)
    assert not (tmp_path / "out").exists()


def test_calibrate_refuses_an_empty_board_before_the_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "trace.csv").write_text("t_s,fused_c\n0,40\n1,41\n")
    args = ["calibrate", str(run), "--board", "", "--out", str(tmp_path / "out")]
    one_line_error(run_cli_completed(args, capsys), "--board: empty; give a board name")
    assert not (tmp_path / "out").exists()


def test_an_empty_board_in_a_config_is_refused_by_run_through_the_script(tmp_path: Path) -> None:
    tree = fakesys.rpi5(tmp_path / "root")
    before = tree.snapshot()
    conf = tmp_path / "c.toml"
    conf.write_text('[run]\nboard = ""\n')
    args = [*paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "1s", "--dry-run"]
    p = thermogov("run", *args, "--config", str(conf), cwd=tmp_path)
    one_line_error(p, "c.toml: run.board: empty; give a board name")
    assert tree.snapshot() == before and not (tmp_path / "out").exists()


def test_an_empty_board_in_a_config_is_said_empty_by_sim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim_refuses_config(tmp_path, '[run]\nboard = ""\n', "run.board: empty", capsys)
