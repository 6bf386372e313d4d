"""A logger's line rewritten with backspaces reads as a terminal showed it (session 26).

``textclean._overwrite`` removed ``[^\\b]\\b`` with ``re``, where ``\\b`` outside a character
class is a word boundary, not a backspace: every line holding a backspace came out empty, so its
reading was dropped (these tests fail on the code before that fix).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from thermogov.importers import parse_log
from thermogov.importers.textclean import clean_text

SCRIPT = Path(sys.executable).with_name("thermogov")  # the installed console script


def test_backspaces_overwrite_the_columns_they_step_back_over() -> None:
    text = "t,temp\n0,45.0\n1,46.5\b\b\b\b47.0\n2,4\b48.5\n3,abc\b\bX\n"
    plain, notes = clean_text(text, "log.csv")
    assert plain.splitlines() == ["t,temp", "0,45.0", "1,47.0", "2,48.5", "3,aXc"]
    assert any("overwritten in place" in n and n.startswith("3 line") for n in notes)


def test_a_rewritten_reading_is_imported_not_dropped(tmp_path: Path) -> None:
    log = tmp_path / "temps.csv"
    rows = ["time_s,cpu_temp_c"] + [f"{i},{50.0 + i / 10:.1f}" for i in range(6)]
    rows[3] = "2,51.9\b\b\b\b50.2"  # the logger first printed 51.9, then stepped back over it
    log.write_text("\n".join(rows) + "\n", encoding="utf-8")
    got = parse_log(log)
    temps = np.asarray(got.samples.column("temps_c", "cpu"))
    np.testing.assert_allclose(temps, [50.0, 50.1, 50.2, 50.3, 50.4, 50.5])
    done = subprocess.run(
        [str(SCRIPT), "import", str(log), "--out", str(tmp_path / "run"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
