"""``thermogov import`` of what session 33w reads anew, through the installed script: a stressberry
file cut inside its ``time`` list imports (exit 0, the cut said in the ``--json`` summary), and one cut
before its first whole item is refused in one line (exit 2, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.script import one_line_error, thermogov
from tests.importers.test_wild_s31 import SAMPLES


def _cut(tmp: Path, tail: str) -> Path:
    lines = SAMPLES["stressberry.dat"][0]()
    path = tmp / "cut.dat"
    path.write_text("\n".join(ln for ln in lines if not ln.startswith("time: [")) + "\n" + tail)
    return path


def test_a_cut_stressberry_list_imports_through_the_script(tmp_path: Path) -> None:
    cut = _cut(tmp_path, "time: [0.0, 10.0, 20.0, 30.0, 4")
    p = thermogov("import", str(cut), "--out", str(tmp_path / "o"), "--json")
    assert p.returncode == 0, p.stderr  # exit 2 before: the file was refused
    said = json.dumps(json.loads(p.stdout))
    assert "'time' list is cut" in said and "(4 items), its last item '4' dropped" in said


def test_a_stressberry_list_cut_before_a_whole_item_is_refused_in_one_line(tmp_path: Path) -> None:
    p = thermogov("import", str(_cut(tmp_path, "time: [0.0")), "--out", str(tmp_path / "o"))
    one_line_error(p, "the stressberry 'time' list is cut")
    assert "no whole item" in p.stderr and not (tmp_path / "o").exists()
