"""``sim/compare/tracegap.py`` and ``bench/trace_gap.py``: where one run loses to another, by tick.

Session 23a traced rpi5-steady-25's −0.14 % (``stepped`` under the Pi's firmware alone) with it:
every lost inference was booked to ticks where ``stepped``'s own cap sat under the clock the
firmware ran.  The split must be exact and book each tick's completions to the clocks they ran at.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from thermogov.sim.compare.tracegap import (
    FASTER,
    SAME,
    SLOWER,
    UNDER,
    gap_lines,
    kinds,
    load_trace,
    trace_gap,
)

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "trace_gap.py"
GHZ = 1_000_000_000


def _write(folder: Path, rows: list[tuple[float, int, int, int]]) -> Path:
    """A trace with one domain: (t_s, cap, clock, inferences_total) per row."""
    folder.mkdir()
    with (folder / "trace.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["t_s", "fused_c", "policy_state", "cpu_cap_hz", "cpu_freq_hz", "inferences_total"])
        for t, cap, clock, n in rows:
            w.writerow([f"{t:.1f}", "80.0", "L1" if cap < 2 * GHZ else "HIGH", cap, clock, n])
    return folder


def test_each_ticks_completions_are_booked_to_the_clocks_they_ran_at(tmp_path: Path) -> None:
    # B runs 2 GHz throughout and completes 10 a tick.  A: same for two ticks, then its own cap
    # under B's clock (5 a tick), then a board slowing it with its cap high (7), then faster (12).
    b = _write(tmp_path / "b", [(0.1 * i, 2 * GHZ, 2 * GHZ, 10 * i) for i in range(8)])
    a_rows = [
        (0.0, 2 * GHZ, 2 * GHZ, 0),
        (0.1, 2 * GHZ, 2 * GHZ, 10),
        (0.2, GHZ, GHZ, 20),
        (0.3, GHZ, GHZ, 25),
    ]
    a_rows += [
        (0.4, 2 * GHZ, GHZ, 30),
        (0.5, 3 * GHZ, 3 * GHZ, 37),
        (0.6, 2 * GHZ, 2 * GHZ, 49),
        (0.7, 2 * GHZ, 2 * GHZ, 59),
    ]
    a = _write(tmp_path / "a", a_rows)
    ta, tb = load_trace(a), load_trace(b)
    assert kinds(ta, tb) == [SAME, SAME, UNDER, UNDER, SLOWER, FASTER, SAME, SAME]
    g = trace_gap(ta, tb, (0.35, 0.7))
    assert g.gap == {SAME: 0.0, UNDER: -10.0, SLOWER: -3.0, FASTER: 2.0}
    assert g.total == ta.inferences[-1] - tb.inferences[-1] == -11
    # the window (0.35, 0.7] holds the increments of rows 4-7: booked to rows 3-6
    assert g.gap_window == {SAME: 0.0, UNDER: -5.0, SLOWER: -3.0, FASTER: 2.0}
    assert g.window_b == 30.0
    assert (g.first_diff_s, g.last_diff_s, g.stretches) == (pytest.approx(0.2), pytest.approx(0.5), 1)
    assert g.states_under == {"L1": 2}
    text = "\n".join(gap_lines(g, "A", "B"))
    assert "clocks identical until 0.2 s" in text and "cap under B's clock: 2 ticks, -10 inferences" in text


def test_traces_of_two_worlds_are_refused(tmp_path: Path) -> None:
    a = _write(tmp_path / "a", [(0.1 * i, GHZ, GHZ, i) for i in range(4)])
    b = _write(tmp_path / "b", [(0.1 * i, GHZ, GHZ, i) for i in range(5)])
    with pytest.raises(ValueError, match="do not share their ticks"):
        trace_gap(load_trace(a), load_trace(b), (0.0, 1.0))


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    ("policy", "says"), [("stepped", "exactly two arms"), ("stepped+stand_back=2,step_wise", "stand_back")]
)
def test_bad_arms_are_one_line_and_exit_2(policy: str, says: str) -> None:
    res = _bench("--scenario", "rpi5-steady-25", "--policy", policy, "--duration", "10")
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in res.stderr


def test_the_bench_prints_where_the_clocks_part() -> None:
    res = _bench("--scenario", "orin-steady-25", "--policy", "fixed:50%,performance", "--duration", "20")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "orin-steady-25 seed 1: fixed:50% (A) against performance (B)" in out
    assert "clocks identical until 0.0 s" in out and "cap under B's clock: " in out
    assert "expected >trip s: fixed:50% " in out
