"""Two leftovers of the re-probed member (session 20 review, (a) and (b); session 20d).

(a) A member re-probed within the last look before exit, whose new files read thermogov's own
cap (a vendor driver carrying the old request over), was released by the exit's look without the
recall rule the running daemon applies (hw/departures.py, ``recalled``): the exit left it capped.
(b) The journal rewrite after a member left was silent when it failed and never tried again: the
old entry stayed for the rest of the run.  Both through the installed script on a hot fake board.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_reprobe import CPUFREQ, HOT_MC, Member, _gpu, _journaled, _orin_started, _started


def _policy(tmp: Path) -> tuple[fakesys.FakeTree, Member]:
    t = fakesys.orin_nano(tmp / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    return t, Member(t, f"{CPUFREQ}/policy4")


@pytest.mark.parametrize("member", ["gpu", "policy"])
def test_a_member_reprobed_with_thermogovs_cap_just_before_exit_is_restored(
    tmp_path: Path, member: str
) -> None:
    t, m = _gpu(tmp_path, "orin-nano-jp6") if member == "gpu" else _policy(tmp_path)
    attr = "max_freq" if member == "gpu" else "scaling_max_freq"
    before = t.snapshot()
    top = m.max(attr)
    proc = _started(tmp_path)
    capped = m.max(attr)
    assert capped < top, "capped at start (hot board)"
    proc.send_signal(signal.SIGSTOP)  # no look runs before the exit's own
    m.reprobe(**{attr: f"{capped}\n".encode()})
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGCONT)
    _out, raw = proc.communicate(timeout=procutil.DEADLINE_S)
    err = raw.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "the window of before" in err
    assert m.max(attr) == top, "thermogov's cap left in force after the exit"
    assert t.snapshot() == before


def test_a_failed_journal_rewrite_after_a_member_left_is_said_and_retried(tmp_path: Path) -> None:
    t, gpu, before, proc = _orin_started(tmp_path)
    name = gpu.folder.name
    blocker = tmp_path / "state" / "journal.json.tmp"
    blocker.mkdir()  # the journal's fresh temporary file cannot be made: every rewrite fails
    gpu.unbind()
    procutil.wait_line(proc, "could not be rewritten without the member that left", stream="stderr")
    assert name in _journaled(tmp_path), "the old entry stays while the rewrite fails"
    blocker.rmdir()
    procutil.wait_line(proc, "the journal is rewritten", stream="stderr")
    assert name not in _journaled(tmp_path)
    gpu.probe()
    procutil.wait_line(proc, f"{name} appeared again with", stream="stderr")
    procutil.stopped_as_before(proc, t, before, "could not be rewritten")


def test_kill_9_while_the_rewrite_is_owed_then_restore_leaves_the_board_as_before(tmp_path: Path) -> None:
    # The old entry a failed rewrite leaves: the device back at its driver's defaults gets the
    # window of before (the same values here), never thermogov's cap; nothing refused, exit 0.
    t, gpu, before, proc = _orin_started(tmp_path)
    blocker = tmp_path / "state" / "journal.json.tmp"
    blocker.mkdir()
    gpu.unbind()
    procutil.wait_line(proc, "could not be rewritten without the member that left", stream="stderr")
    gpu.probe()
    procutil.wait_line(proc, "could not be journaled", stream="stderr")  # left alone: never written
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert gpu.folder.name in _journaled(tmp_path)
    blocker.rmdir()
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0, r.stderr
    assert t.snapshot() == before
