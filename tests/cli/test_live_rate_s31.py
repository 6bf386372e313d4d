"""Session 31h: a run whose workload closed its stdout but runs on publishes no live rate.

30i made the summary's rates after such a close ``null`` (not measured: the count cannot move),
but the state file (``status``, the metrics' reader) kept a rate over the last seconds of a
count standing still, which fell to 0 inf/s.  Live and summary now agree: the state's
``throughput.rate_ips`` is null from the close on and ``status`` says the rate is not measured,
while ``inferences_total`` keeps what was counted.
"""

from __future__ import annotations

import json
import select
import signal
import time
from pathlib import Path
from typing import Any

from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, start_run, status_cli, wait_line

# Two inferences, then its stdout closed while the process runs on (``exec >&-``).
CLOSES = "cmd:sh -c 'echo a; echo b; exec >&-; exec sleep 120'"


def _doc(path: Path) -> dict[str, Any] | None:
    try:
        return dict(json.loads(path.read_text()))
    except (FileNotFoundError, ValueError):  # not yet published, or caught mid-replace
        return None


def _published_after(path: Path, uptime_s: float) -> dict[str, Any]:
    """The first state document published after ``uptime_s``; the condition decides, not time."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        doc = _doc(path)
        if doc is not None and doc["uptime_s"] > uptime_s:
            return doc
        select.select([], [], [], 0.02)
    raise AssertionError(f"no state published after {uptime_s} s")


def test_the_live_rate_is_not_measured_once_the_workload_closed_its_stdout(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    state = tmp_path / "state.json"
    proc = start_run(tmp_path, "--workload", CLOSES, "--state-file", str(state))
    try:
        wait_line(proc, "thermogov: started")
        wait_line(proc, "closed its stdout", stream="stderr")
        first = _published_after(state, -1.0)
        doc = _published_after(state, first["uptime_s"])  # surely after the close was seen
        assert doc["throughput"]["inferences_total"] == 2
        assert doc["throughput"]["rate_ips"] is None, doc["throughput"]  # BASE: 0.0
        shown = status_cli("--state", str(state))
        assert shown.returncode == 0, shown.stdout + shown.stderr
        assert "throughput: 2 inferences, rate not measured" in shown.stdout, shown.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err.decode()
