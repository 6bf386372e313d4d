"""tools/sim_identity.py: a recorded reference passes its own check, and a change is caught
with the first row that differs."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "sim_identity.py"


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=300)


def test_a_reference_checks_clean_and_a_changed_row_is_shown(tmp_path: Path) -> None:
    ref = tmp_path / "ref"
    rec = _tool("record", str(ref), "--duration", "4", "--only", "default.")
    assert rec.returncode == 0, rec.stderr
    assert "3 cases" in rec.stdout  # two seeds recorded, one unrecorded
    ok = _tool("check", str(ref))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "all 3 cases bit-identical" in ok.stdout

    # Tamper with the stored trace of one case as a changed simulator would have written it.
    stored = ref / "default.stepped.s1.trace.csv.gz"
    lines = gzip.decompress(stored.read_bytes()).decode().splitlines(keepends=True)
    lines[5] = lines[5].replace(",", ";", 1)
    stored.write_bytes(gzip.compress("".join(lines).encode()))
    index = ref / "identity.json"
    index.write_text(index.read_text().replace('"trace.csv": "', '"trace.csv": "0', 1))
    bad = _tool("check", str(ref))
    assert bad.returncode == 1
    assert "DIFF  default.stepped.s1: trace.csv" in bad.stdout
    assert "line 6:" in bad.stdout and lines[5].strip() in bad.stdout


def test_check_without_a_reference_says_how_to_make_one(tmp_path: Path) -> None:
    out = _tool("check", str(tmp_path / "none"))
    assert out.returncode == 2
    assert "record" in out.stderr and out.stderr.count("\n") == 1
