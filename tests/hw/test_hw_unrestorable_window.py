"""Session 19: a window the daemon captured but its own journal restore would refuse.

``bench/stock_trees.py --lifecycle`` on a tree whose ``scaling_max_freq`` read above
``cpuinfo_max_freq``: the run governed it and restored it at every clean exit, but after a
``kill -9`` ``thermogov restore`` refused the journal ("outside the hardware range it recorded")
and left the board at its lowest caps.  No kernel shows such a max, so it is bad sysfs
contents: refused at start, exit 2, one line, nothing written; a cluster coming online later
with such a window (or a min above its max) is left alone, said.  A boost table (``cpuinfo_max``
above the listed OPPs, the max at it) is a real board's and goes through the whole cycle.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil
from tests.hw.fakesys import FakeTree
from tests.hw.test_hw_late_cluster import hot_orin_offline

P0 = "sys/devices/system/cpu/cpufreq/policy0"
P4 = "sys/devices/system/cpu/cpufreq/policy4"


def _hot_pi5(root: Path) -> FakeTree:
    return fakesys.rpi5(root, cpu_mc=92000)


def test_a_max_above_the_cpuinfo_range_is_refused_at_start_with_one_line(tmp_path: Path) -> None:
    t = _hot_pi5(tmp_path / "root")
    t.write(f"{P0}/scaling_max_freq", 3000000)
    before = t.snapshot()
    done = procutil.run_cli(
        "run",
        *procutil.paths(tmp_path),
        "--out",
        str(tmp_path / "out"),
        "--policy",
        "hysteresis",
        "--duration",
        "2s",
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "policy0" in lines[0] and "3000000" in lines[0], lines
    assert "Traceback" not in done.stderr
    assert t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()


def test_a_boost_max_above_the_listed_opps_survives_kill_9_and_restore(tmp_path: Path) -> None:
    t = _hot_pi5(tmp_path / "root")
    for name in ("cpuinfo_max_freq", "scaling_max_freq", "scaling_cur_freq"):
        t.write(f"{P0}/{name}", 2800000)  # boost: above the top listed OPP, inside cpuinfo
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert (tmp_path / "state" / "journal.json").exists()
    done = subprocess.run(
        [*procutil.script(), "restore", *procutil.paths(tmp_path)],
        capture_output=True,
        text=True,
        timeout=procutil.DEADLINE_S,
    )
    assert done.returncode == 0, done.stderr
    assert t.snapshot() == before


@pytest.mark.parametrize(
    ("limit", "content", "why"),
    [
        ("scaling_max_freq", "1600000\n", "max 1600000 is outside its hardware range"),
        ("scaling_min_freq", "1510400\n", "min 1510400 kHz is above the max"),
    ],
)
def test_a_cluster_coming_online_with_a_window_no_restore_takes_is_left_alone(
    tmp_path: Path, shim: Path, limit: str, content: str, why: str
) -> None:
    t, env = hot_orin_offline(tmp_path, shim, P4)
    if limit == "scaling_min_freq":
        t.write(f"{P4}/scaling_max_freq", 1420800)
    proc = procutil.start_run(tmp_path, "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    (t.root / P4 / limit).write_text(content)
    before = t.snapshot()
    faultshim.write_rules(tmp_path / "faults", [])
    line = procutil.wait_line(proc, "policy4 came online but is left alone", stream="stderr")
    assert why in line, line
    entries = json.loads((tmp_path / "state" / "journal.json").read_text())["entries"]
    assert "policy4" not in {e["label"] for e in entries}
    procutil.stopped(proc)
    after = t.snapshot()
    assert {k: v for k, v in after.items() if k.startswith(P4)} == {
        k: v for k, v in before.items() if k.startswith(P4)
    }
