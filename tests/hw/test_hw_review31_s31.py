"""Session 31r: root-daemon safety, the items review 30r left (docs/hardware.md, "Session 31r").

Exit statuses and one-line errors are driven through the installed ``thermogov`` script (one
subprocess per case, a short run); the rules themselves in process on tmp trees
(tests/hw/fakesys.py), never a sleep.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil


def _one_second_run(tmp: Path, shim: Path, rules: list[tuple[str, str, int]]) -> tuple[int, str]:
    """A hot Orin Nano's ``run --duration 1s`` with the fault ``rules``; (exit status, stderr)."""
    rules_file = tmp / "rules"
    faultshim.write_rules(rules_file, rules)
    env = faultshim.env(shim, rules_file, tmp)
    proc = procutil.start_run(tmp, "--duration", "1s", env=env)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    return proc.returncode, err.decode()


# -- (2) a full disk at start is a runtime failure (1), a read-only --state-dir bad input (2) ----------
@pytest.mark.parametrize(
    ("target", "code", "status", "said"),
    [
        ("journal.json.tmp", errno.ENOSPC, 1, "journal.json: cannot write the restore journal (ENOSPC"),
        ("journal.json.tmp", errno.EROFS, 2, "journal.json: cannot write the restore journal (Read-only"),
        ("thermogov.lock", errno.ENOSPC, 1, "thermogov.lock: cannot write this run's pid into the lock (ENOSPC"),
    ],
)
def test_a_start_time_write_on_a_full_disk_exits_1_naming_the_file_and_writes_nothing(
    tmp_path: Path, shim: Path, target: str, code: int, status: int, said: str
) -> None:
    """ENOSPC on the journal's first write is a good --state-dir on a full disk: exit 1, "free
    space"; EROFS stays bad input (exit 2, "fix --state-dir"; a guard, as on BASE); a lock whose
    pid cannot be written names its file.  The board byte for byte as before in each case.
    BASE d5d06d5: the journal's ENOSPC exited 2 ("fix --state-dir"), the lock's said only
    "No space left on device; check the disk and the path", naming no file."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    before = t.snapshot()
    status_now, err = _one_second_run(tmp_path, shim, [(target, "w", code)])
    assert "Traceback" not in err
    assert status_now == status, err[-800:]
    lines = [ln for ln in err.splitlines() if "error:" in ln]
    assert len(lines) == 1 and said in lines[0], err[-800:]
    assert ("free space" in lines[0]) == (code == errno.ENOSPC), lines[0]
    assert t.snapshot() == before, "nothing written to the board"
    assert not (tmp_path / "state" / "journal.json").exists()
