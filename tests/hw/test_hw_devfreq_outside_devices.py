"""A GPU class entry that resolves outside ``sys/devices`` is no device's (rev21 finding (a)).

The kernel makes every device's folder under ``/sys/devices`` and its class entry a link there.
After a ``kill -9``, ``sys/class/devfreq/17000000.gpu`` made again as a link to a copy of its
folder elsewhere in the root (named alike) was restored there, "restored", exit 0, and the
start accepted such a link too (only the folder's name was checked).  Driven through the
installed script on a hot Orin Nano.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.hw import fakesys, procutil

HOT_MC = 92000
GPU = "sys/class/devfreq/17000000.gpu"
COPY = "sys/firmware/copy/17000000.gpu"  # inside the root, outside sys/devices, the same name
SAID = "outside sys/devices"


def _relink_to_copy(root: Path) -> Path:
    real = (root / GPU).resolve()
    shutil.copytree(real, root / COPY, symlinks=True)
    os.unlink(root / GPU)
    (root / GPU).symlink_to(root / COPY)
    return root / COPY


def test_restore_writes_nothing_through_a_gpu_entry_outside_devices(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    copy = _relink_to_copy(t.root)
    capped = (copy / "max_freq").read_text()
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    # Before: exit 0, "restored 2 limit window(s)", the copy's max_freq written.
    assert "Traceback" not in r.stderr
    assert r.returncode == 1, r.stdout + r.stderr
    assert "17000000.gpu" in r.stderr and SAID in r.stderr, r.stderr
    assert (copy / "max_freq").read_text() == capped  # nothing written there
    assert (tmp_path / "state" / "journal.json").exists()  # the GPU's window is still owed


def test_start_leaves_a_gpu_entry_outside_devices_alone(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    copy = _relink_to_copy(t.root)
    before = (copy / "max_freq").read_text()
    r = procutil.run_cli("doctor", "--sysfs-root", str(t.root))
    assert SAID in r.stdout + r.stderr, r.stdout + r.stderr
    proc = procutil.start_run(tmp_path, "--duration", "1s")
    _, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()  # the CPU governed, the GPU left alone, named
    assert "Traceback" not in err.decode()
    assert SAID in err.decode(), err.decode()
    assert (copy / "max_freq").read_text() == before
