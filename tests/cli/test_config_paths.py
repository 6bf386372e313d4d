"""Paths in a config file are relative to that file; a policy parameter's error names the file.

Driven through the installed script from a working folder that is not the config's: the rule is
the one git, systemd and nginx apply to paths in their files (see ``thermogov.config.PATH_KEYS``).
Session 15's review (docs/sweeps.md, "Session 15").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.cliargs import board_paths
from thermogov.config import load_config
from thermogov.tomlread import loads

ROOT = Path(__file__).resolve().parents[2]
RPI5 = (ROOT / "thermogov" / "boards" / "rpi5.toml").read_text(encoding="utf-8")


def _layout(tmp: Path, run_table: str) -> tuple[Path, Path]:
    """``tmp/exp/c.toml`` (with ``run_table`` under ``[run]``) and an empty working folder."""
    (tmp / "exp").mkdir()
    (tmp / "exp" / "myboard.toml").write_text(RPI5.replace('name = "rpi5"', 'name = "myboard"', 1))
    conf = tmp / "exp" / "c.toml"
    conf.write_text(f"[run]\n{run_table}\n")
    work = tmp / "work"
    work.mkdir()
    return conf, work


def test_a_relative_board_file_and_out_are_read_from_the_configs_folder(tmp_path: Path) -> None:
    conf, work = _layout(tmp_path, 'board_file = "myboard.toml"\nout = "runs"')
    p = thermogov("sim", "--config", str(conf), "--duration", "5", cwd=work)
    assert p.returncode == 0, p.stderr
    runs = [d for d in (tmp_path / "exp" / "runs").iterdir() if d.is_dir()]
    assert len(runs) == 1 and not any(work.iterdir())
    # The run folder's config.toml names the same files from wherever it is read back.
    saved = loads((runs[0] / "config.toml").read_text())["run"]
    assert saved["board_file"] == str(tmp_path / "exp" / "myboard.toml")
    assert saved["out"] == str(tmp_path / "exp" / "runs")
    again = thermogov("sim", "--config", str(runs[0] / "config.toml"), "--duration", "5", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len([d for d in (tmp_path / "exp" / "runs").iterdir() if d.is_dir()]) == 2


def test_absolute_paths_are_kept_and_an_unset_out_stays_in_the_working_folder(tmp_path: Path) -> None:
    board = tmp_path / "exp" / "myboard.toml"
    conf, work = _layout(tmp_path, f'board_file = "{board}"')
    p = thermogov("sim", "--config", str(conf), "--duration", "5", cwd=work)
    assert p.returncode == 0, p.stderr
    assert (work / "traces").is_dir() and not (tmp_path / "exp" / "traces").exists()


def test_a_missing_relative_board_file_is_named_where_it_was_looked_for(tmp_path: Path) -> None:
    conf, work = _layout(tmp_path, 'board_file = "nosuch.toml"')
    p = thermogov("sim", "--config", str(conf), "--duration", "5", "--out", str(tmp_path / "o"), cwd=work)
    one_line_error(p, str(tmp_path / "exp" / "nosuch.toml"))
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ("[policies.stepped]\ntrip_cc = 70", "policies.stepped.trip_cc"),  # unknown key
        ("[policies.stepped]\ntrip_c = nan", "policies.stepped.trip_c"),
        ("[policies.stepped]\ntrip_c = inf", "policies.stepped.trip_c"),
        ("[policies.hysteresis]\nrelease_c = 1000.0", "policies.hysteresis.release_c"),  # not selected
    ],
)
def test_run_names_the_config_file_of_a_bad_policy_parameter(
    tmp_path: Path, section: str, field: str
) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    before = t.snapshot()
    conf = tmp_path / "c.toml"
    conf.write_text(f'[run]\npolicy = "stepped"\n{section}\n')
    args = [*board_paths(tmp_path), "--out", str(tmp_path / "o"), "--duration", "0.3s", "--dry-run"]
    p = thermogov("run", "--config", str(conf), *args)
    line = one_line_error(p, field)
    assert str(conf) in line
    assert t.snapshot() == before and not (tmp_path / "o").exists()


def test_sim_names_the_config_file_of_a_bad_policy_parameter(tmp_path: Path) -> None:
    """``thermogov sim`` checks the policy's parameters when it builds the simulated governor:
    the error names the file to edit, as ``run``'s does."""
    conf = tmp_path / "c.toml"
    conf.write_text('[run]\npolicy = "stepped"\n[policies.stepped]\ntrip_c = nan\n')
    p = thermogov("sim", "--config", str(conf), "--duration", "5", "--out", str(tmp_path / "o"))
    line = one_line_error(p, "policies.stepped.trip_c")
    assert str(conf) in line
    assert not (tmp_path / "o").exists()


def test_a_board_file_with_a_nul_is_bad_input(tmp_path: Path) -> None:
    """It was an internal error (ValueError: embedded null byte), exit 1."""
    conf = tmp_path / "c.toml"
    conf.write_text('[run]\nboard_file = "my\\u0000board.toml"\n')
    p = thermogov("sim", "--config", str(conf), "--duration", "5", "--out", str(tmp_path / "o"))
    line = one_line_error(p, "run.board_file")
    assert str(conf) in line and "control character" in line
    assert not (tmp_path / "o").exists()


def test_a_tilde_names_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    conf = tmp_path / "c.toml"
    conf.write_text('[run]\nboard_file = "~/b.toml"\nout = "~/runs"\n')
    cfg = load_config(conf)
    assert (cfg.board_file, cfg.out) == (str(tmp_path / "home" / "b.toml"), str(tmp_path / "home" / "runs"))
