"""Every command's --help shows an example, and the shared options read the same everywhere."""

from __future__ import annotations

import functools
import subprocess

import pytest

from tests.cli.script import thermogov


@functools.cache
def _help(*args: str) -> subprocess.CompletedProcess[str]:
    """``thermogov ARGS --help`` through the installed script, run once per command in a test
    process: the help text is fixed by the code, and five tests each read a part of ``sim``'s."""
    return thermogov(*args, "--help")


EPILOG_COMMANDS = ["sim", "boards", "compare", "sweep", "plot", "import", "calibrate"]
DOCSTRING_COMMANDS = ["doctor", "run", "restore", "emulate"]


@pytest.mark.parametrize("command", EPILOG_COMMANDS)
def test_help_ends_with_an_example(command: str) -> None:
    p = _help(command)
    assert p.returncode == 0, p.stderr
    lines = [ln.strip() for ln in p.stdout.splitlines() if ln.strip()]
    example_at = max(i for i, ln in enumerate(lines) if ln == "Example:")
    body = lines[example_at + 1 :]
    assert body and all(ln.startswith("thermogov ") for ln in body), body
    assert any(ln.startswith(f"thermogov {command}") for ln in body)


@pytest.mark.parametrize("command", DOCSTRING_COMMANDS)
def test_board_commands_show_an_example(command: str) -> None:
    p = _help(command)
    assert p.returncode == 0, p.stderr
    assert "Example:" in p.stdout and f"thermogov {command}" in p.stdout


def test_top_level_help_has_an_example() -> None:
    p = _help()
    assert p.stdout.rstrip().splitlines()[-1].strip().startswith("thermogov ")


@pytest.mark.parametrize("command", ["sim", "import", "calibrate", "doctor", "run"])
def test_board_takes_a_name_or_a_toml_file(command: str) -> None:
    text = " ".join(_help(command).stdout.split())
    assert "--board" in text and "TOML" in text
    assert "--board-file" not in text


@pytest.mark.parametrize("command", ["sim", "compare", "sweep", "plot", "import", "calibrate"])
def test_out_is_a_folder(command: str) -> None:
    text = " ".join(_help(command).stdout.split())
    assert "--out DIRECTORY" in text


@pytest.mark.parametrize("command", ["sim", "boards", "compare", "sweep", "import", "calibrate"])
def test_json_everywhere_results_are_printed(command: str) -> None:
    assert "--json" in _help(command).stdout
