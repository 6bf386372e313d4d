"""``bench/stepped_seeds.py``: candidates are refused before any run, and a run reads the seeds.

Session 12 judged ``near_trip_k`` with it; a bad ``--candidate`` found only inside a worker would
have cost a traceback after minutes of runs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "stepped_seeds.py"


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    ("candidate", "says"),
    [
        ("near_trip_k=nan", "policies.stepped.near_trip_k"),
        ("near_trip_k=-1", "policies.stepped.near_trip_k"),
        ("near_trip=3", "unknown key"),
        ("near_trip_k", "KEY=VALUE"),
    ],
)
def test_a_bad_candidate_is_one_line_and_exit_2(candidate: str, says: str) -> None:
    res = _bench("--scenario", "rpi5-steady-25", "--candidate", candidate, "--seeds", "1")
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in res.stderr


def test_the_default_and_hysteresis_run_on_every_seed() -> None:
    """Two seeds, no open-ended view: a line for hysteresis's bound and one per variant."""
    res = _bench(
        "--scenario",
        "rpi5-steady-25",
        "--seeds",
        "1-2",
        "--extend",
        "1",
        "--jobs",
        "1",
        "--candidate",
        "near_trip_k=3.5",
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "rpi5-steady-25, run's end, seeds 1-2:" in out
    # no open-ended view ran (the causal block's legend names that view, so look for its header)
    assert "rpi5-steady-25, open-ended, seeds" not in out
    bound = next(ln for ln in out.splitlines() if "hysteresis >trip s per seed: " in ln)
    assert len(bound.split(": ")[1].split("/")) == 2  # one figure per seed
    assert out.count("    default: worst ") == 1 and out.count("    near_trip_k=3.5: worst ") == 1


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--world", "fan-failure-nope"), "not a family world; choose one of"),
        (("--world", "fan-failure-jetson-xavier-nx", "--family-scale", "0"), "--family-scale"),
        ((), "no world to run"),
    ],
)
def test_a_bad_world_is_one_line_and_exit_2(args: tuple[str, ...], says: str) -> None:
    res = _bench(*args, "--seeds", "1")
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in res.stderr


def test_a_family_world_runs_by_name() -> None:
    """A generated world, shortened, one seed: its own header and a line per variant."""
    res = _bench(
        "--world", "fan-failure-jetson-xavier-nx", "--family-scale", "0.05", "--seeds", "1",
        "--extend", "1", "--jobs", "1",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "fan-failure-jetson-xavier-nx, run's end, seeds 1:" in res.stdout
    assert res.stdout.count("    default: worst ") == 1


def test_a_bank_without_the_known_length_is_refused_in_one_line() -> None:
    """``bank_c`` needs the run's length: without ``--known-length`` the bench names the key."""
    res = _bench("--scenario", "rpi5-steady-25", "--candidate", "bank_c=3", "--seeds", "1")
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "bank_c" in lines[0] and "run_s" in lines[0]


def test_the_known_length_is_the_original_worlds_on_the_open_ended_view_too() -> None:
    """A candidate is told the world's own length and steady window; the longer world of the
    open-ended view would state another length, so the bench keeps the original's there."""
    sys.path.insert(0, str(REPO / "bench"))
    from stepped_seeds import stated

    from thermogov.sim.compare.anywindow import extended
    from thermogov.sim.scenarios import load_scenario

    base = load_scenario("rpi5-steady-25")
    told = stated(base, {"bank_c": 3.0}, True)
    assert told == {"run_s": base.sim.duration_s, "bank_window_s": base.sim.duration_s / 2, "bank_c": 3.0}
    assert stated(base, {"bank_c": 3.0}, False) == {"bank_c": 3.0}
    assert stated(extended(base), {}, True)["run_s"] > told["run_s"]  # why the bench passes ``base``


@pytest.mark.parametrize("drawn", ["x", "0", "2-1"])
def test_a_bad_drawn_list_is_one_line_and_exit_2(drawn: str) -> None:
    res = _bench("--drawn", drawn, "--seeds", "1")
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "--drawn" in lines[0] and "Traceback" not in res.stderr


def test_a_world_without_a_worst_window_is_judged_on_its_sustained_rate() -> None:
    """A drawn length off the any-window grid leaves no worst window (session 16c): the row says
    n/a, shows the sustained rate, and pairs the candidate on it, labelled so."""
    sys.path.insert(0, str(REPO / "bench"))
    from stepped_seeds import row_lines

    from thermogov.sim.compare.compare import RunRow
    from thermogov.sim.compare.seedset import SeedRows

    def rows(label: str, ips: list[float], above: list[float]) -> SeedRows:
        out = SeedRows("w", label)
        for s, (v, a) in enumerate(zip(ips, above, strict=True), start=1):
            out.rows[s] = RunRow("w", "b", label, s, 25.0, v, None, None, {}, a, 0.0, None, None, 0, "")
            out.worst[s] = None
        return out

    lines = row_lines(
        {
            "hysteresis": rows("h", [3.0, 3.0], [0.1, 0.1]),
            "default": rows("d", [30.0, 40.0], [0.3, 0.1]),
            "k=v": rows("c", [27.0, 40.0], [0.0, 0.1]),
        },
        [1, 2],
    )
    default = next(ln for ln in lines if ln.startswith("    default:"))
    cand = next(ln for ln in lines if ln.startswith("    k=v:"))
    assert "worst n/a (sustained " in default and "MISS on seed 1" in default
    assert "(kept on every seed)" in cand and "paired sustained over default -5.00 % [-10.00..+0.00]" in cand
    # Seed by seed too (session 20a decided on seeds held out from 19c's 1-2).
    assert "[-10.00..+0.00] (per seed -10.00/+0.00)" in cand


def test_expected_prints_each_variants_expected_seconds_above_the_trip_per_seed() -> None:
    """``--expected``: one line per variant with a figure per seed and the sum's verdict."""
    res = _bench(
        "--world", "board-at-trip-jetson-nano", "--family-scale", "0.05", "--seeds", "1-2",
        "--extend", "1", "--jobs", "1", "--expected",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in res.stdout.splitlines() if ": expected >trip s " in ln]
    assert [ln.split(":")[0].strip() for ln in lines] == ["hysteresis", "default"]
    assert all(len(ln.split("expected >trip s ")[1].split(";")[0].split("/")) == 2 for ln in lines)
    assert lines[1].endswith(("(kept)", "MISS"))
