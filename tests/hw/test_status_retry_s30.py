"""Session 30i: the tests' ``status`` helper (tests/hw/procutil.py ``status_cli``) asks again
only while the state's age is the whole complaint, so a loaded machine's slow start of the
child no longer fails a test about what the state says."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.hw import procutil
from tests.hw.test_hw_statefile import doc


def _kept(tmp: Path, pid: int, age_s: float) -> Path:
    d = doc()
    d["pid"], d["time_unix"] = pid, time.time() - age_s
    path = tmp / "state.json"
    path.write_text(json.dumps(d))
    return path


def test_an_aged_state_of_a_live_pid_is_asked_again_after_its_refresh(tmp_path: Path) -> None:
    state = _kept(tmp_path, os.getpid(), 60.0)  # as a child slower than 5 s to start sees it
    assert procutil.run_cli("status", "--state", str(state)).returncode == 1
    asked: list[int] = []

    def refresh() -> None:
        asked.append(1)
        if len(asked) > 1:  # the first asking still finds it aged
            procutil.restamp(state)

    r = procutil.status_cli("--state", str(state), refresh=refresh)
    assert r.returncode == 0 and "governing" in r.stdout, r.stdout + r.stderr
    assert len(asked) == 2


def test_a_state_whose_daemon_is_gone_is_answered_at_once(tmp_path: Path) -> None:
    """Stale because no such process runs: no asking again would change that."""
    state = _kept(tmp_path, 4 * 1024 * 1024, 0.0)  # PID_MAX_LIMIT: no process has it here
    asked: list[int] = []
    r = procutil.status_cli("--state", str(state), refresh=lambda: asked.append(1))
    assert r.returncode == 1 and "is not running" in r.stdout, r.stdout
    assert asked == [1]
