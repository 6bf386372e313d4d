"""Hand-edited files of every kind a user writes, driven through the installed script.

Each rule holds for every file kind at once (board TOML, config, sweep file, scenario file): bad
bytes, a byte-order mark or a too-deep document is one line naming the file, exit 2, nothing
written.  The review that found these cases: docs/sweeps.md, "Reviewed, session 14".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

ROOT = Path(__file__).resolve().parents[2]
RPI5 = (ROOT / "thermogov" / "boards" / "rpi5.toml").read_text(encoding="utf-8")
SCENARIO = (ROOT / "sim" / "scenarios" / "rpi5-hot-40.toml").read_text(encoding="utf-8")
SWEEP_HEAD = '[sweep]\nscenario = "rpi5-steady-25"\nduration = "5"\n'

# (what the user wrote, the defect appended to it as bytes)
DEFECTS = {
    "non-utf8": lambda body: body.encode() + b"# caf\xe9\n",
    "bom": lambda body: b"\xef\xbb\xbf" + body.encode(),
    "too-deep": lambda body: body.encode() + b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n",
}
DEFECT_WORDS = {"non-utf8": "not UTF-8", "bom": "byte-order mark", "too-deep": "nested too deeply"}


def _drive(kind: str, tmp: Path, raw: bytes) -> tuple[list[str], Path]:
    """Write ``raw`` as the file of ``kind`` and the command that reads it."""
    f = tmp / "in.toml"
    f.write_bytes(raw)
    out = tmp / "out"
    if kind == "board":
        return ["sim", "--board", str(f), "--duration", "5", "--out", str(out)], f
    if kind == "config":
        return ["sim", "--config", str(f), "--duration", "5", "--out", str(out)], f
    if kind == "sweep":
        return ["sweep", str(f), "--dry-run", "--out", str(out)], f
    sweep = tmp / "sweep.toml"
    sweep.write_text('[sweep]\nscenario = "in.toml"\nduration = "5"\n[grid]\nseed = [1]\n')
    return ["sweep", str(sweep), "--dry-run", "--out", str(out)], f


BODIES = {
    "board": RPI5,
    "config": "[run]\nseed = 1\n",
    "sweep": SWEEP_HEAD + "[grid]\nambient = [25.0]\n",
    "scenario": SCENARIO,
}


@pytest.mark.parametrize("defect", sorted(DEFECTS))
@pytest.mark.parametrize("kind", sorted(BODIES))
def test_undecodable_files_are_one_line_naming_the_file(tmp_path: Path, kind: str, defect: str) -> None:
    args, f = _drive(kind, tmp_path, DEFECTS[defect](BODIES[kind]))
    line = one_line_error(thermogov(*args), str(f))
    assert DEFECT_WORDS[defect] in line
    assert not (tmp_path / "out").exists()


def test_a_grid_too_big_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    axis = ", ".join(str(20 + i / 100) for i in range(1000))
    seeds = ", ".join(str(i) for i in range(1000))
    f = tmp_path / "big.toml"
    f.write_text(SWEEP_HEAD + f"[grid]\nambient = [{axis}]\nseed = [{seeds}]\n")
    # without the count a dry run validates each of the 10^6 points (minutes), so the timeout
    # here is what fails first when the rule breaks
    line = one_line_error(thermogov("sweep", str(f), "--dry-run", timeout=60), "grid: 1000 x 1000")
    assert "split the sweep" in line


def _board(tmp: Path, old: str, new: str) -> list[str]:
    assert old in RPI5
    f = tmp / "board.toml"
    f.write_text(RPI5.replace(old, new, 1))
    return ["sim", "--board", str(f), "--duration", "5", "--out", str(tmp / "out")]


LINK = '["cpu", "package", 3.3]'
POLICY = 'sysfs_names = ["policy0"]'
# one row per rule: (the user's edit of rpi5.toml, what the one line must say)
BOARD_EDITS = [
    # the thermal network: every node reaches ambient, one link per pair of nodes
    (LINK + ",\n", "", "thermal.links: node 'cpu' has no path to ambient"),
    (LINK, '["cpu", "cpu", 3.3]', "thermal.links[0]: joins 'cpu' to itself"),
    (
        LINK + ",",
        LINK + ', ["package", "cpu", 1.0],',
        "thermal.links[1]: 'package' and 'cpu' are already linked",
    ),
    # names become run folders, CSV columns and calibrate's file name
    ('name = "rpi5"', 'name = "../../elsewhere"', "board.name: '../../elsewhere' is not a usable name"),
    ('name = "rpi5"', 'name = ""', "board.name: '' is not a usable name"),
    ("[sensors.cpu]", '[sensors."cpu,temp"]', "sensors.cpu,temp: 'cpu,temp' is not a usable name"),
    # the emulator builds its tree from sysfs names: a '/' would write outside --sysfs-root
    (
        POLICY,
        'sysfs_names = ["../../../../tmp/owned"]',
        "sysfs_names[0]: '../../../../tmp/owned' is not a sysfs",
    ),
    (POLICY, 'sysfs_names = [""]', "sysfs_names[0]: '' is not a sysfs name"),
    (POLICY, 'sysfs_names = [".."]', "sysfs_names[0]: '..' is not a sysfs name"),
    # a required key spelt wrong is named as the typo it is
    ("hard_limit_c = 90.0", "hard_limt_c = 90.0", "hard_limit_c: missing; found 'hard_limt_c': a typo?"),
    # an inference that costs nothing is an infinite rate
    (
        "fixed_ms = 10.0\ncycles = { cpu = 1.16e8 }",
        "fixed_ms = 0.0\ncycles = { cpu = 0.0 }",
        "model: fixed_ms is 0 and",
    ),
]


@pytest.mark.parametrize(("old", "new", "needle"), BOARD_EDITS)
def test_a_bad_board_edit_is_one_line_naming_the_field(
    tmp_path: Path, old: str, new: str, needle: str
) -> None:
    one_line_error(thermogov(*_board(tmp_path, old, new)), needle)
    assert not (tmp_path / "out").exists()


def test_a_scenario_files_mistake_names_that_file(tmp_path: Path) -> None:
    args, f = _drive("scenario", tmp_path, SCENARIO.replace("ambient_c = 40.0", "ambient_c = inf").encode())
    line = one_line_error(thermogov(*args), f"{f}: sim.ambient_c")
    assert "scenarios/in.toml" not in line
