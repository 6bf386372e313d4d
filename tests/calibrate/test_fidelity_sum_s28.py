"""bench/fidelity.py's totals carry the summed held-out RMSE and the logs it covers (Session 28f).

Issue 10's briefs keep a change to the fit only when the counts do not drop and the summed
held-out RMSE does not rise; the bench printed the counts only, so every session summed its rows
by hand.  A refused log (no RMSE) leaves the sum, so the sum is reported beside the number of
logs it covers.  Fails on main, whose totals have neither key and whose text has no sum line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import fidelity  # noqa: E402


def test_the_sum_covers_the_fitted_logs_only() -> None:
    rows = [
        fidelity.Row("a.txt", "rpi4", rmse_c=0.75, persistence_c=2.0, skill=0.625),
        fidelity.Row("b.txt", "rpi4", rmse_c=1.5, persistence_c=3.0, skill=0.5),
        fidelity.Row("c.csv", "rpi4", cause="c.csv: refused"),
    ]
    tot = fidelity.totals(rows)
    assert tot["rmse_sum_c"] == rows[0].rmse_c + rows[1].rmse_c
    assert tot["fitted"] == 2 and tot["logs"] == 3
    empty = fidelity.totals([])
    assert empty["rmse_sum_c"] == 0.0 and empty["fitted"] == 0


def test_the_text_and_json_print_the_sum() -> None:
    ext = REPO / "tests" / "data" / "logs" / "external"
    cmd = [sys.executable, str(REPO / "bench" / "fidelity.py"), "--data", str(ext), "--only", "3Lpf"]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO).stdout
    got = subprocess.run([*cmd, "--json"], capture_output=True, text=True, check=True, cwd=REPO).stdout
    data = json.loads(got)
    (row,) = data["rows"]
    assert data["totals"]["fitted"] == 1
    assert data["totals"]["rmse_sum_c"] == row["rmse_c"]
    assert f"sum of held-out RMSE: {row['rmse_c']:.3f} °C over 1 fitted logs of 1" in text
