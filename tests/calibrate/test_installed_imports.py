"""The installed package imports only itself: ``sim/`` and ``hw/`` are installed as
``thermogov.sim`` and ``thermogov.hw`` (pyproject's ``package-dir``), so a module that imports
``sim.…`` or ``hw.…`` works where the checkout is on ``sys.path`` (pytest, ``bench/``) and fails
for a user's ``thermogov`` script.  ``calibrate`` on any log file (not a run folder) did: the
tinymembench split that every file load passes through imported ``sim.calibration.membench``
(``No module named 'sim'``, an internal error), while the bench read the same logs fine."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.cli.script import thermogov

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "logs"
CASES = [  # (log file, board): an sbc-bench report with tinymembench, and a tegrastats CSV
    (LOGS / "external" / "sbcbench_rpi4_3OBF.txt", "rpi4"),
    (LOGS / "tegrastats_agxorin_powergui-style_excerpt.csv", "jetson-agx-orin"),
]


def _top_level_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_installed_module_imports_the_checkout_layout() -> None:
    bad = [
        str(p.relative_to(ROOT))
        for pkg in ("thermogov", "sim", "hw")
        for p in sorted((ROOT / pkg).rglob("*.py"))
        if _top_level_imports(p) & {"sim", "hw"}
    ]
    assert bad == []


@pytest.mark.parametrize(("log", "board"), CASES, ids=lambda v: getattr(v, "name", v))
def test_installed_calibrate_reads_a_log_file(tmp_path: Path, log: Path, board: str) -> None:
    # cwd outside the checkout: only the installed package is importable, as for a user
    out = str(tmp_path / "o")
    args = ["calibrate", str(log), "--board", board, "--holdout", "0.6", "--json", "--out", out]
    p = thermogov(*args, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "internal error" not in p.stderr
    assert json.loads(p.stdout)["rmse_holdout_c"] > 0
