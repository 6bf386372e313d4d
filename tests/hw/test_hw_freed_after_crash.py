"""A governed member the kernel removed while no daemon was there to see it (session 20 review).

The daemon alive takes a member whose folder went away (a GPU unbound, a cpufreq driver
unloaded) out of its journal (hw/departures.py): its limits were freed with it.  After a
``kill -9`` (or a daemon stopped across the unbind) the journal still names it, and the journal
restore called the missing folder "left changed": ``thermogov restore`` ended with exit 1, the
journal was kept, and every next ``thermogov run`` refused to start until the device came back.
Each case drives the installed script on a hot fake board and waits on the daemon's own lines.
"""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

from tests.hw import procutil
from tests.hw.test_hw_reprobe import CPUFREQ, Member, _gpu, _started


def _crashed_with_gpu_gone(tmp: Path) -> tuple[dict[str, bytes | str], Member]:
    t, gpu = _gpu(tmp, "orin-nano-jp6")
    before = t.snapshot()
    proc = _started(tmp)
    proc.send_signal(signal.SIGSTOP)  # no look sees it go: the journal still names the GPU
    gpu.unbind()
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert (tmp / "state" / "journal.json").exists()
    return before, gpu


def test_restore_after_a_crash_drops_a_device_unbound_since_and_puts_back_the_rest(tmp_path: Path) -> None:
    before, gpu = _crashed_with_gpu_gone(tmp_path)
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert "17000000.gpu" in r.stdout + r.stderr and "freed" in r.stdout + r.stderr
    assert not (tmp_path / "state" / "journal.json").exists()
    gpu.probe()  # the driver's next probe: its own defaults, as before thermogov
    assert gpu.t.snapshot() == before


def test_the_next_run_starts_after_a_crash_and_a_device_unbound_since(tmp_path: Path) -> None:
    before, gpu = _crashed_with_gpu_gone(tmp_path)
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    err = procutil.stopped(proc)
    assert "limits restored" in err
    gpu.probe()
    assert gpu.t.snapshot() == before


def test_a_missing_subsystem_folder_is_no_device_freed(tmp_path: Path) -> None:
    # Nothing of cpufreq there at all (a sysfs not as the journal knew it): not a driver's
    # unload of one policy, so the journal stays and the restore says what is left changed.
    t, _gpu_member = _gpu(tmp_path, "orin-nano-jp6")
    proc = _started(tmp_path)
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    shutil.move(t.root / CPUFREQ, tmp_path / "cpufreq")
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert "policy0" in r.stderr and (tmp_path / "state" / "journal.json").exists()


def test_one_limit_file_planted_alone_is_refused_not_taken_for_a_reprobe(tmp_path: Path) -> None:
    # The kernel removes and makes a member's folder whole.  A regular file planted at the
    # GPU's max alone, holding an OPP below the start's max, was taken for a reprobe on main:
    # the member was released and adopted again with the planted value as the one restore puts
    # back, and the GPU ended capped at 510 MHz after the exit.  It is a tampered tree: refused
    # at the next write.  Session 30r: the journal restore no longer writes into it either (the
    # journal records each owned file's device and inode, hw/journalids.py): named, exit 1, the
    # planted value left as planted (the daemon's own exit already refused it the same way).
    t, gpu = _gpu(tmp_path, "orin-nano-jp6")
    top = gpu.max("max_freq")
    proc = _started(tmp_path)
    planted = gpu.folder / "max_freq.new"
    planted.write_text("510000000\n")  # neither the start's max nor thermogov's cap
    planted.rename(gpu.folder / "max_freq")
    for zone in range(len(list((t.root / "sys/class/thermal").glob("thermal_zone*")))):
        t.write(f"sys/devices/virtual/thermal/thermal_zone{zone}/temp", 40000)  # a cap write due
    procutil.wait_line(proc, "17000000.gpu", stream="stderr")  # refused (fixed) or "went away" (main)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert "Traceback" not in err.decode()
    assert "went away" not in err.decode()
    assert (tmp_path / "state" / "journal.json").exists(), "the refused file keeps the journal"
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert "Traceback" not in r.stderr
    assert r.returncode == 1 and "max_freq: is not the file journaled" in r.stderr, r.stderr
    assert gpu.max("max_freq") == 510000000 != top, "nothing written into the planted file"
