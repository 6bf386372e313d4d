"""`--out` names a folder in every command; a file path or an unwritable place is refused with
one line and exit 2 before any work (installed script)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
BOARDS = Path(__file__).resolve().parents[2] / "thermogov" / "boards"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    p = thermogov("sim", "--board", "rpi5", "--duration", "10", "--json", "--out", str(out))
    assert p.returncode == 0, p.stderr
    (run,) = [d for d in out.iterdir() if d.is_dir()]
    return run


def test_plot_out_is_a_folder(run_dir: Path, tmp_path: Path) -> None:
    p = thermogov("plot", str(run_dir), "--out", str(tmp_path / "figs"))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "figs" / "plot.png").is_file()
    one_line_error(thermogov("plot", str(run_dir), "--out", str(tmp_path / "f.png")), "--out names a folder")
    assert not (tmp_path / "f.png").exists()


def test_calibrate_refuses_a_file_out_and_a_bad_board(run_dir: Path, tmp_path: Path) -> None:
    one_line_error(
        thermogov("calibrate", str(run_dir), "--out", str(tmp_path / "x.toml")), "--out names a folder"
    )
    one_line_error(thermogov("calibrate", str(run_dir), "--board", str(run_dir / "trace.csv")), "--board")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line_error(
        thermogov("calibrate", str(run_dir), "--out", str(blocker / "sub")), "--out: cannot create"
    )


def test_import_out_under_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    p = thermogov("import", str(LOGS / "sbcbench_rpi5_8-NK_excerpt.txt"), "--out", str(blocker / "runs"))
    one_line_error(p, "--out")


def test_sim_records_a_board_file_as_an_absolute_path(tmp_path: Path) -> None:
    local = tmp_path / "mine.toml"
    local.write_text((BOARDS / "rpi5.toml").read_text())
    p = thermogov("sim", "--board", "mine.toml", "--duration", "5", "--json", "--out", "runs", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (run,) = [d for d in (tmp_path / "runs").iterdir() if d.is_dir()]
    assert f'board_file = "{local}"' in (run / "config.toml").read_text()
    assert json.loads(p.stdout)["board"] == "rpi5"
