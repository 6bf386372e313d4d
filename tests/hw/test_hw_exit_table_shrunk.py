"""The daemon's own exit restore over an OPP table another agent shrank during the run.

nvpmodel's lower mode drops the GPU's top OPPs while thermogov runs.  The journal restore
(after ``kill -9``) already wrote the original max clamped into today's table; every exit
the daemon sees wrote the original over the shrunk table, which a driver that checks the
table refuses (EINVAL: a restore error, exit 1, a journal kept).  Now every exit path uses the
one rule: clamped into today's range, said in the closing line.  In process on the kernel
double for the refusing driver; through the installed script for SIGTERM, a failure mid-run
and the next run's journal restore.
"""

from __future__ import annotations

import errno
import io
import signal
import subprocess
from pathlib import Path

from tests.hw import fakesys, faultshim, procutil
from tests.hw.cliargs import run_options
from tests.hw.fakesys import KernelTree
from thermogov.hw.daemon import run
from thermogov.hw.journal import Journal

GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"
P4 = "sys/devices/system/cpu/cpufreq/policy4"
TOP = fakesys.ORIN_NANO_GPU_HZ[-1]
SHRUNK = fakesys.ORIN_NANO_GPU_HZ[:3]  # nvpmodel's lower mode: the top OPPs gone
NOTE = f"journaled {SHRUNK[0]}..{TOP} Hz, written {SHRUNK[0]}..{SHRUNK[-1]}"


def _shrink_gpu_table(t: fakesys.FakeTree) -> None:
    """What nvpmodel does to the GPU: a shorter OPP list, the max no higher than its new top."""
    t.write(f"{GPU}/available_frequencies", " ".join(map(str, SHRUNK)) + "\n")
    t.write(f"{GPU}/max_freq", min(SHRUNK[-1], t.read_int(f"{GPU}/max_freq")))


def _expected(t: fakesys.FakeTree, before: dict[str, bytes | str]) -> dict[str, bytes | str]:
    """The tree of before, but for the agent's table and the GPU max at its new top."""
    want = dict(before)
    want[f"{GPU}/available_frequencies"] = (t.root / GPU / "available_frequencies").read_bytes()
    want[f"{GPU}/max_freq"] = f"{SHRUNK[-1]}\n".encode()
    return want


def test_a_clean_exit_over_a_shrunk_table_writes_the_max_clamped_and_says_so_in_one_line(
    tmp_path: Path,
) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root", "old")
    kt.reject_outside_table = True  # a write outside today's table is EINVAL
    shrunk: list[bool] = []

    def agent(real: str, _data: bytes) -> None:
        # nvpmodel switches mode once the caps are in force (the GPU's first cap write)
        if not shrunk and real.endswith("17000000.ga10b/max_freq"):
            shrunk.append(True)
            _shrink_gpu_table(t)

    kt.before_write.append(agent)
    err = io.StringIO()
    run(run_options(tmp_path, duration_s=0.6), out=io.StringIO(), err=err, tree=kt)
    assert shrunk
    said = [ln for ln in err.getvalue().splitlines() if "limits restored" in ln]
    assert len(said) == 1 and NOTE in said[0] and "another agent changed its table" in said[0]
    assert (f"{GPU}/max_freq", TOP) not in kt.writes  # never offered the driver a value off its table
    assert t.snapshot() == _expected(t, before)
    assert not Journal(tmp_path / "state").exists()


def test_without_a_shrink_the_exit_writes_the_originals_and_says_nothing_more(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root", "old")
    kt.reject_outside_table = True
    err = io.StringIO()
    run(run_options(tmp_path, duration_s=0.4), out=io.StringIO(), err=err, tree=kt)
    assert "thermogov: limits restored\n" in err.getvalue() and "journaled" not in err.getvalue()
    assert (f"{GPU}/max_freq", TOP) in kt.writes
    assert t.snapshot() == before


def _started(tmp: Path, shim: Path | None = None) -> tuple[fakesys.FakeTree, dict, subprocess.Popen[bytes]]:
    t = fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    env = None
    if shim is not None:
        faultshim.write_rules(tmp / "faults", [])
        env = faultshim.env(shim, tmp / "faults", tmp / "root")
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--duration", "60s"]
    proc = subprocess.Popen(
        [*procutil.script(), "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    procutil.wait_line(proc, "thermogov: started")
    _shrink_gpu_table(t)
    return t, before, proc


def test_sigterm_over_a_shrunk_table_restores_every_limit_the_gpu_max_clamped(tmp_path: Path) -> None:
    t, before, proc = _started(tmp_path)
    proc.send_signal(signal.SIGTERM)
    _out, errb = proc.communicate(timeout=procutil.DEADLINE_S)
    err = errb.decode()
    assert proc.returncode == 0, err
    said = [ln for ln in err.splitlines() if "journaled" in ln]
    assert len(said) == 1 and "limits restored" in said[0] and NOTE in said[0], err
    assert t.snapshot() == _expected(t, before)
    assert not Journal(tmp_path / "state").exists()


def test_a_failure_mid_run_then_the_next_run_restore_both_clamp_the_gpu_max(
    tmp_path: Path, shim: Path
) -> None:
    t, before, proc = _started(tmp_path, shim)
    # policy4's CPUs go offline: its limits answer EBUSY, the run fails and keeps the journal
    busy = [(f"{P4}/{n}", "rw", errno.EBUSY) for n in ("scaling_min_freq", "scaling_max_freq")]
    faultshim.write_rules(tmp_path / "faults", [*busy, (f"{P4}/scaling_cur_freq", "r", errno.EBUSY)])
    procutil.wait_line(proc, "limits unreadable", stream="stderr")
    proc.send_signal(signal.SIGTERM)
    _out, errb = proc.communicate(timeout=procutil.DEADLINE_S)
    err = errb.decode()
    assert proc.returncode == 1 and "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert "restore incomplete" in last and "thermogov restore" in last and NOTE in last, err
    assert t.read_int(f"{GPU}/max_freq") == SHRUNK[-1]  # clamped by the failing exit already
    assert Journal(tmp_path / "state").exists()
    faultshim.write_rules(tmp_path / "faults", [])  # the cluster is back
    nxt = procutil.run_cli(
        "run", *procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "0.3s"
    )
    assert nxt.returncode == 0, nxt.stderr
    said = [ln for ln in (nxt.stdout + nxt.stderr).splitlines() if "journaled" in ln]
    assert len(said) == 1, nxt.stderr  # the journal restore's (this run read the shrunk table)
    assert "left by pid" in said[0] and NOTE in said[0]
    assert t.snapshot() == _expected(t, before)
    assert not Journal(tmp_path / "state").exists()
