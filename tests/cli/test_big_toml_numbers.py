"""Session 25l (docs/hardware.md): a TOML number of 5000 digits.

Python's int() refuses more than 4300 digits with its own text, "use sys.set_int_max_str_digits()
to increase the limit": a hint for a programmer, quoted as the error of a config, a board file, a
sweep or scenario file (and an internal error for a ``--policy NAME+key=`` value).  Each is now
one line naming the file, the line and the field, exit 2, nothing written (thermogov/client.py
does the same for the state file since session 25h).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.cli.test_hostile_files import BODIES, _drive

BIG = "9" * 5000


@pytest.mark.parametrize("kind", sorted(BODIES))
def test_a_5000_digit_number_names_the_file_line_and_field(tmp_path: Path, kind: str) -> None:
    body = BODIES[kind] if isinstance(BODIES[kind], str) else BODIES[kind].decode()
    text = body.rstrip("\n") + f"\n\n[extra]\nbig_field = {BIG}\n"
    line_no = text.count("\n", 0, text.index(BIG)) + 1
    args, f = _drive(kind, tmp_path, text.encode())
    line = one_line_error(thermogov(*args), str(f))
    assert f"line {line_no}: extra.big_field is a number of more than 4300 digits" in line, line
    assert "set_int_max_str_digits" not in line, line
    assert not (tmp_path / "out").exists()


def test_run_config_with_a_5000_digit_number(tmp_path: Path) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text(f"[governor]\ncontrol_period_ms = 1_{BIG}\n")
    root = tmp_path / "root"
    root.mkdir()
    p = thermogov("run", "--config", str(conf), "--dry-run", "--sysfs-root", str(root), "--duration", "1")
    line = one_line_error(p, f"{conf}: line 2: governor.control_period_ms is a number of more than 4300")
    assert "set_int_max_str_digits" not in line


def test_a_policy_variant_value_of_5000_digits(tmp_path: Path) -> None:
    p = thermogov(
        "sim", "--policy", f"stepped+release_frontier={BIG}", "--duration", "5", "--out", str(tmp_path)
    )
    one_line_error(p, "--policy: release_frontier= is a number of more than 4300 digits")
