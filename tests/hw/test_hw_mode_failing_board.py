"""An operator's power-mode change on a board that is failing under the daemon, through the
installed script (the ``modechange`` failure path of bench/board_shapes.py, seeds 1 and 5).

* A domain whose writes keep failing has its cap retried every control tick; the retry wrote
  over a window the mode had just lowered before the limit watch could see it, so the mode's
  value was lost and a restore after ``kill -9`` took the window for thermogov's cap.  A cap
  change no longer writes over a window lowered since thermogov's last look: the watch sees the
  mode first and adopts it.
* A cluster offline (EBUSY) while the watch adopts a mode's raise elsewhere: the journal was
  stamped with the new mode although the offline cluster's entry still held the old mode's
  value, so the restore once it was back wrote that over the new mode's.  No mode is stamped
  while a governed window is unreadable.
"""

from __future__ import annotations

import errno
import signal
import subprocess
from pathlib import Path

from tests.hw import fakesys, faultshim, procutil
from thermogov.hw.journal import Journal
from thermogov.hw.powermode import STATUS_REL

CPU = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPU}/policy0"
P4 = f"{CPU}/policy4"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"
CPU_TOP = 1510400
MODE_MAX = 652800  # below thermogov's lowest cap on the hot board (729600)


def _start(tmp: Path, shim: Path, rules: list[tuple[str, str, int]]) -> subprocess.Popen[bytes]:
    faultshim.write_rules(tmp / "faults", rules)
    env = faultshim.env(shim, tmp / "faults", tmp / "root")
    proc = procutil.start_run(tmp, "--duration", "60s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    return proc


def _hot_orin_nano(tmp: Path) -> fakesys.FakeTree:
    t = fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)
    t.write(STATUS_REL, "pmode:0000 fmode:quiet\n")
    return t


def _kill_then_restore(tmp: Path, proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert Journal(tmp / "state").exists()
    faultshim.write_rules(tmp / "faults", [])
    r = procutil.run_cli("restore", *procutil.paths(tmp))
    assert r.returncode == 0, r.stderr


def test_a_cap_retried_every_tick_does_not_write_over_the_modes_window(tmp_path: Path, shim: Path) -> None:
    t = _hot_orin_nano(tmp_path)
    proc = _start(tmp_path, shim, [(f"{P4}/scaling_max_freq", "w", errno.EPERM)])  # the CPU cap keeps failing
    procutil.wait_line(proc, "actuator cpu:", stream="stderr")
    t.write(STATUS_REL, "pmode:0002 fmode:quiet\n")
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)
    procutil.wait_line(proc, "nvpmodel mode changed from 0 to 2", stream="stderr")
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX  # not written over by the retries
    _kill_then_restore(tmp_path, proc)
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX


def test_a_mode_adopted_while_a_cluster_is_offline_leaves_that_clusters_mode_window(
    tmp_path: Path, shim: Path
) -> None:
    t = _hot_orin_nano(tmp_path)
    ebusy = [
        (f"{P4}/{n}", "rw", errno.EBUSY) for n in ("scaling_min_freq", "scaling_max_freq", "scaling_cur_freq")
    ]
    proc = _start(tmp_path, shim, [])
    faultshim.write_rules(tmp_path / "faults", ebusy)
    procutil.wait_line(proc, "policy4: limits unreadable", stream="stderr")
    # The mode's three changes are made while the daemon is stopped, so no look of it falls
    # between them: one that did saw the new mode with the GPU not raised yet, and the line below
    # never came (a CI-load flake, session 29k).
    proc.send_signal(signal.SIGSTOP)
    try:
        t.write(STATUS_REL, "pmode:0002 fmode:quiet\n")
        t.write(f"{P4}/scaling_max_freq", MODE_MAX)  # the offline cluster: the daemon cannot see it
        t.write(f"{GPU}/max_freq", fakesys.ORIN_NANO_GPU_HZ[-2])  # above the GPU cap: read as a raise
    finally:
        proc.send_signal(signal.SIGCONT)
    procutil.wait_line(proc, "the limits it raised are what restore puts back", stream="stderr")
    _kill_then_restore(tmp_path, proc)
    assert t.read_int(f"{P4}/scaling_max_freq") == MODE_MAX
    assert t.read_int(f"{GPU}/max_freq") == fakesys.ORIN_NANO_GPU_HZ[-2]
