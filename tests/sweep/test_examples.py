"""The shipped sweep files load, and the README's sweep section runs as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cliutil import run_cli
from tests.conftest import REPO
from tests.sweep.conftest import read_table
from thermogov.sim.sweep.spec import load_sweep

EXAMPLES = sorted((REPO / "examples").glob("*sweep*.toml"))


def test_the_repository_ships_sweep_files_and_each_one_validates() -> None:
    assert EXAMPLES
    for path in EXAMPLES:
        assert load_sweep(path).points


def _readme_sweep_commands() -> list[list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## What-if sweeps", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None, "the README's sweep section has no bash block"
    return [shlex.split(line, comments=True) for line in block.group(1).splitlines() if line.strip()]


@pytest.mark.slow
def test_the_readme_sweep_section_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.chdir(REPO)
    commands = _readme_sweep_commands()
    assert commands and all(c[:2] == ["thermogov", "sweep"] for c in commands)
    for cmd in commands:
        args = cmd[1:]
        if "--out" in args:  # same command, its output in a temporary folder
            args[args.index("--out") + 1] = str(tmp_path / "out")
        code, out, err = run_cli(args, capsys)
        assert code == 0, err
    sweep = load_sweep(REPO / commands[-1][2])
    rows = read_table(tmp_path / "out" / "results.csv")
    assert len(rows) == len(sweep.points) and all(r["status"] == "ok" for r in rows)
    assert "best (max sustained_ips" in out
