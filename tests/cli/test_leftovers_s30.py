"""Session 30l (docs/sweeps.md): two CLI leftovers, through the installed script.

* A policy variant's value (``--policy stepped+trip_c=85``) was read as TOML after a strip, so
  ``trip_c=85 `` and ``trip_c=0x55`` were 85 while ``trip_c=٨٥`` was refused: a value meant as
  a number now follows the numeric options' one-word rule (session 29i) in ``sim``,
  ``compare``, ``ab`` and ``run`` alike (exit 2, one line naming the key).
* ``doctor`` had no ``--lock-dir`` and its default ``--state`` followed only
  ``THERMOGOV_LOCK_DIR``: it now takes the one runtime-folder rule of ``run``, ``ab``,
  ``restore`` and ``status`` (session 30i), and refuses a runtime folder that is no folder.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error
from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths
from tests.runtimedir import child_env


def _cli(*args: str, lock_env: str | None = None) -> subprocess.CompletedProcess[str]:
    env = child_env()
    if lock_env is not None:
        env["THERMOGOV_LOCK_DIR"] = lock_env
    return subprocess.run(
        [SCRIPT, *args], capture_output=True, text=True, env=env, timeout=DEADLINE_S, check=False
    )


def _command(name: str, tmp: Path, policy: str) -> list[str]:
    """``name`` given the arm ``policy`` (``ab``: against plain ``stepped``), short and offline."""
    out = str(tmp / "out")
    if name == "sim":
        return ["sim", "--board", "rpi5", "--duration", "5", "--policy", policy, "--out", out]
    if name == "compare":
        return ["compare", "--scenario", "rpi5-steady-25", "--duration", "5", "--no-oracle",
                "--policy", f"hysteresis,{policy}", "--out", out]  # fmt: skip
    fakesys.rpi5(tmp / "root")
    if name == "run":
        return ["run", "--dry-run", *paths(tmp), "--duration", "1s", "--policy", policy, "--out", out]
    return ["ab", *paths(tmp), "--policy", "stepped", "--policy", policy, "--pairs", "2",
            "--block", "1s", "--cool-down", "0", "--out", out]  # fmt: skip


COMMANDS = ["sim", "compare", "run", "ab"]
REFUSED = {
    "a trailing space": ("stepped+trip_c=85 ", "holds a space or a control character"),
    "a leading space": ("stepped+trip_c= 85", "holds a space or a control character"),
    "a newline": ("stepped+trip_c=85\n", "holds a space or a control character"),
    "hex": ("stepped+trip_c=0x55", "is not a decimal number"),
    "octal": ("stepped+trip_c=0o125", "is not a decimal number"),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_variant_number_that_is_not_one_decimal_word_is_bad_input(
    tmp_path: Path, command: str, kind: str
) -> None:
    policy, why = REFUSED[kind]
    line = one_line_error(_cli(*_command(command, tmp_path, policy)), why)  # main: 85, exit 0
    assert "trip_c" in line and "--policy" in line, line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["sim", "compare", "run"])
def test_a_variant_number_in_arabic_indic_digits_is_read_as_its_value(tmp_path: Path, command: str) -> None:
    """``--ambient ٢٥`` is 25 (27h); ``trip_c=٨٥`` was refused as a string for a number."""
    p = _cli(*_command(command, tmp_path, "stepped+trip_c=٨٥"))
    assert p.returncode == 0, p.stderr
    configs = list((tmp_path / "out").rglob("config.toml"))
    assert any("trip_c = 85" in c.read_text() for c in configs), configs  # the arm's recorded table


def test_a_variant_that_is_no_number_keeps_its_reading(tmp_path: Path) -> None:
    """A boolean (spaces and all, as before: the rule is a number's) and a plain number stay
    as they were read; a guard, passes on main too."""
    p = _cli(*_command("sim", tmp_path, "stepped+release_frontier=true+trip_c=85"))
    assert p.returncode == 0, p.stderr


def _rpi5(tmp: Path) -> list[str]:
    fakesys.rpi5(tmp / "root")
    return ["doctor", "--sysfs-root", str(tmp / "root"), "--json"]


def _not_folders(tmp: Path) -> dict[str, str]:
    plain = tmp / "plain-file"
    plain.write_text("x")
    return {
        "a regular file": str(plain),
        "/dev/null": "/dev/null",
        "a path through a file": str(plain / "sub"),
    }


@pytest.mark.parametrize("kind", ["a regular file", "/dev/null", "a path through a file"])
def test_doctor_with_a_runtime_variable_that_is_no_folder_is_bad_input(tmp_path: Path, kind: str) -> None:
    value = _not_folders(tmp_path)[kind]
    p = _cli(*_rpi5(tmp_path), lock_env=value)
    line = one_line_error(p, "THERMOGOV_LOCK_DIR")  # main: the report, exit 0
    assert repr(value) in line and "set it to a folder or unset it" in line, line
    assert p.stdout == ""


@pytest.mark.parametrize("kind", ["a regular file", "/dev/null"])
def test_doctor_with_a_lock_dir_that_is_no_folder_is_bad_input(tmp_path: Path, kind: str) -> None:
    value = _not_folders(tmp_path)[kind]
    p = _cli(*_rpi5(tmp_path), "--lock-dir", value, lock_env=str(tmp_path / "fine"))
    line = one_line_error(p, "--lock-dir")  # main: "No such option: --lock-dir" (click's usage)
    assert "not a folder" in line and "THERMOGOV_LOCK_DIR" not in line, line


def test_doctor_reads_the_state_in_lock_dir_not_the_variables_folder(tmp_path: Path) -> None:
    """The state ``doctor`` reads is ``<--lock-dir>/state.json``: a state file there that cannot
    be read is said ("state file not read"), one in the variable's folder is not looked at."""
    moved, variable = tmp_path / "moved", tmp_path / "variable"
    for folder in (moved, variable):
        folder.mkdir()
    (moved / "state.json").write_text("[" * 10)  # not a thermogov state: said in the report
    p = _cli(*_rpi5(tmp_path), "--lock-dir", str(moved), lock_env=str(variable))
    assert p.returncode == 0, p.stderr
    said = json.loads(p.stdout).get("state_file", "")
    assert said.startswith("state file not read") and str(moved) in said, said


def test_doctor_state_option_is_read_whatever_the_runtime_variable_says(tmp_path: Path) -> None:
    """``--state`` names the file: the runtime folder is not used, so not judged (a guard)."""
    p = _cli(*_rpi5(tmp_path), "--state", str(tmp_path / "state.json"), lock_env="/dev/null")
    assert p.returncode == 0, p.stderr


def test_doctor_help_names_lock_dir() -> None:
    p = _cli("doctor", "--help")
    text = " ".join(p.stdout.split())  # click wraps the help
    assert p.returncode == 0 and "--lock-dir" in text and "state.json in --lock-dir" in text, text
