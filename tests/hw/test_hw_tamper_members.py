"""One rule for a tampered governed member, whenever it joined (session 21, review 20r (c)).

A link (or any file that is not a regular one) planted at a governed limit is a tampered tree:
for a member present at start that was always the confinement refusal (the member is not
written through it, failsafe at the next cap change, exit 1 with "restore incomplete", said).
A device adopted mid-run (a GPU whose driver probed after the unit started) was instead
released on any change of its max, a link included: "went away (unbound)", out of the journal
and of the restore, exit 0, nothing said of the tampering.  Each case drives the installed
script on a hot Orin Nano (JetPack 6) and waits on the daemon's own stderr lines, never a sleep.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil

HOT_MC = 92000
GPU = "sys/class/devfreq/17000000.gpu"
GPU_DEV = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"
GPU_MAX = f"{GPU_DEV}/max_freq"
CPU = "sys/devices/system/cpu/cpufreq"


def _link_out_of_the_root(p: Path, tmp: Path) -> None:
    outside = tmp / "outside.txt"
    outside.write_text("precious\n")
    swap = p.with_name(p.name + ".swap")
    swap.symlink_to(outside)
    os.replace(swap, p)


def _fifo(p: Path, tmp: Path) -> None:
    p.unlink()
    os.mkfifo(p)


TAMPERS: dict[str, Callable[[Path, Path], None]] = {
    "link-out-of-the-root": _link_out_of_the_root,
    "fifo": _fifo,
}


def _started(
    tmp: Path, joined: str
) -> tuple[fakesys.FakeTree, dict[str, bytes | str], subprocess.Popen[bytes]]:
    t = fakesys.orin_nano(tmp / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    before = t.snapshot()
    link = t.root / GPU
    target = os.readlink(link)
    if joined == "late":
        link.unlink()  # the GPU driver probes after the unit started
    proc = procutil.start_run(tmp, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    if joined == "late":
        link.symlink_to(target)
        procutil.wait_line(proc, "17000000.gpu appeared with", stream="stderr")
    assert int((t.root / GPU_MAX).read_text()) < max(fakesys.ORIN_NANO_GPU_HZ), "capped (hot board)"
    return t, before, proc


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
@pytest.mark.parametrize("joined", ["at-start", "late"])
def test_a_tampered_gpu_limit_is_refused_whenever_the_gpu_joined(
    tmp_path: Path, joined: str, tamper: str
) -> None:
    t, before, proc = _started(tmp_path, joined)
    TAMPERS[tamper](t.root / GPU_MAX, tmp_path)
    # The next line naming the GPU: the watch's look that meets the tampered max.  Before, for
    # the late GPU: "17000000.gpu went away (unbound): left out of the journal and of the restore".
    line = procutil.wait_line(proc, "17000000.gpu", stream="stderr")
    assert "went away" not in line, line
    assert "since start-up" in line, line
    proc.send_signal(signal.SIGTERM)
    _out, raw = proc.communicate(timeout=procutil.DEADLINE_S)
    err = raw.decode()
    assert "Traceback" not in err
    assert "went away" not in err, "a tampered limit is no device that went away"
    assert proc.returncode == 1, err
    assert "restore incomplete" in err
    after = t.snapshot()
    cpu = {k: v for k, v in before.items() if k.startswith(CPU)}
    assert {k: v for k, v in after.items() if k.startswith(CPU)} == cpu, "every other limit restored"
    if tamper != "fifo":
        assert (tmp_path / "outside.txt").read_text() == "precious\n", "nothing written through the link"
