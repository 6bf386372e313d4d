"""Footprint of the board daemon: RSS, CPU share of one core, and per-tick compute time.

Runs ``thermogov run`` as a subprocess against a fake Orin Nano tree at the default periods
(sensors 100/150/200 ms, control 100 ms) for 210 s by default while a helper thread sweeps the zone
``temp`` files through a 60 -> 95 -> 60 °C triangle, so the policy trips and releases and the
daemon really writes caps.  RSS and CPU time are sampled with psutil; CPU is reported over the
steady window (after start-up imports) and over the whole run.  Tick p50/p99 come from the
daemon's own summary (``tick_ms_p50/p99``: compute time of each control instant).

    python bench/daemon_footprint.py [--seconds 210]

As root the daemon governs the fake tree; otherwise it runs with ``--dry-run`` (same reads and
decisions, no writes).  The default length (210 s) gives more than 2,000 control ticks, so
the tick p99 rests on at least 20 ticks above it.  The tree lives on tmpfs (``/dev/shm``) when there is one: sysfs is an
in-memory filesystem, and on a journaling disk filesystem each ``O_TRUNC`` write of a cap costs
~0.2 ms of metadata work that a board never pays.  Figures are printed next to their targets as
ratios (<= 1 is on target).  Side by side, *during* the steady window, a second process
measures the *wake-up floor*: a bare loop with the daemon's wake-up schedule (``MultiRatePlan``,
one wake-up per distinct instant) and the daemon's wait (``select`` on a self-pipe) and no
work, i.e. what this machine charges for waking ~13 times a second at all (large on some VMs;
and it moves with the load, hence measured at the same time).  The daemon's CPU minus the
floor is the governor's own share, held to its own target (0.3 % of a core).

``--as-sysfs`` runs the daemon the way it runs on a board: a kept descriptor on a real sysfs
needs no ``stat`` per read (:mod:`thermogov.hw.fstype`), but a tmpfs tree cannot be a sysfs
mount, so the daemon is told to take the tree's filesystem for one, and the sweep rewrites the
``temp`` files in place (same length, as a driver's value changes) instead of renaming new
files over them, which a sysfs attribute never sees.  Without it, the fake tree's per-read
checks are paid, as by the emulator.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.hw.fakesys import orin_nano  # noqa: E402  (the same fake boards the tests use)
from tests.runtimedir import isolated_runtime_dir  # noqa: E402

TARGETS = {"rss_mb": 35.0, "cpu_pct": 0.5, "own_cpu_pct": 0.3, "tick_p99_ms": 2.0}
MIN_TICKS = 2000  # for a p99 that rests on 20 ticks
ZONES = ("sys/devices/virtual/thermal/thermal_zone0/temp", "sys/devices/virtual/thermal/thermal_zone1/temp")


def sweep_temps(root: Path, stop: threading.Event, period_s: float = 8.0, in_place: bool = False) -> None:
    """A triangle 60 -> 95 -> 60 °C on the CPU and GPU zones, rewritten every 200 ms."""
    t0 = time.monotonic()
    while not stop.wait(0.2):
        phase = ((time.monotonic() - t0) % period_s) / period_s
        temp_c = 60.0 + 35.0 * (1.0 - abs(2.0 * phase - 1.0))
        for rel in ZONES:
            text = f"{int(temp_c * 1000)}\n".encode()
            if in_place:  # always 5 digits: one same-length write over the old value
                fd = os.open(root / rel, os.O_WRONLY)
                try:
                    os.pwrite(fd, text, 0)
                finally:
                    os.close(fd)
                continue
            tmp = root / (rel + ".new")
            tmp.write_bytes(text)
            os.replace(tmp, root / rel)  # atomic, like a kernel attribute: never half-written


# The daemon, with the bench tree's filesystem taken for sysfs (``--as-sysfs``).
AS_SYSFS = """
import os, sys
try:
    from thermogov.hw import fstype
except ImportError:  # a version from before thermogov.hw.fstype: it checks every read anyway
    pass
else:
    fstype.STABLE_FS_TYPES = frozenset({"sysfs", fstype.mount_types().get(os.stat(sys.argv[1]).st_dev, "sysfs")})
from thermogov.cli import main
main(sys.argv[2:])
"""


FLOOR_CODE = """
import os, resource, select, sys, time
from thermogov.scheduler import MultiRatePlan
seconds = float(sys.argv[1])
periods = [(n, int(p)) for n, p in (x.split("=") for x in sys.argv[2].split(","))]
plan = MultiRatePlan(periods, int(sys.argv[3]))
r, w = os.pipe()  # the daemon waits in select() on its signal self-pipe; so does the floor
def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
c0, t0 = cpu(), time.monotonic()
while plan.peek_ms() <= seconds * 1000:
    delay = t0 + plan.peek_ms() / 1000 - time.monotonic()
    if delay > 0:
        select.select([r], [], [], delay)
    plan.pop()
print(100.0 * (cpu() - c0) / (time.monotonic() - t0))
"""


def start_floor(seconds: float, periods: dict[str, int], control_ms: int) -> subprocess.Popen[str]:
    """A process that only keeps the daemon's wake-up schedule, started now, beside the daemon."""
    spec = ",".join(f"{n}={p}" for n, p in periods.items())
    return subprocess.Popen(
        [sys.executable, "-c", FLOOR_CODE, str(seconds), spec, str(control_ms)],
        stdout=subprocess.PIPE,
        text=True,
    )


def started_line(proc: subprocess.Popen[bytes], timeout_s: float = 60.0) -> str:
    """What the daemon printed up to the end of its ``thermogov: started`` line (metrics_cost.py
    reads the endpoint's port from it)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    buf = b""
    while b"thermogov: started" not in buf or not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
            raise SystemExit("daemon did not start")
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            raise SystemExit("daemon exited before starting")
        buf += chunk
    return buf.decode()


def main() -> None:
    isolated_runtime_dir()  # never the real /run/thermogov (tests/runtimedir.py)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=210.0, help="daemon run length (default 210 s)")
    ap.add_argument(
        "--as-sysfs",
        action="store_true",
        help="take the tmpfs tree for a sysfs mount and sweep in place: what a board pays",
    )
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="thermogov-bench-"))
    shm = Path("/dev/shm")
    root = Path(tempfile.mkdtemp(prefix="thermogov-bench-root-", dir=shm)) if shm.is_dir() else work / "root"
    orin_nano(root, cpu_mc=60000, gpu_mc=60000)
    dry = os.geteuid() != 0
    launch = ["-c", AS_SYSFS, str(root)] if args.as_sysfs else ["-m", "thermogov.cli"]
    cmd = [
        sys.executable,
        *launch,
        "run",
        "--sysfs-root",
        str(root),
        "--out",
        str(work / "out"),
        "--state-dir",
        str(work / "state"),
        "--lock-file",
        str(work / "thermogov.lock"),
        # The published state goes where a board keeps it: /run is a tmpfs there (systemd), so
        # the once-a-second fsync + rename costs what it costs on the board, not a disk flush.
        "--state-file",
        str(root.parent / f"{root.name}-state" / "state.json"),
        "--duration",
        f"{args.seconds}s",
        "--json",
    ] + (["--dry-run"] if dry else [])
    stop = threading.Event()
    sweeper = threading.Thread(target=sweep_temps, args=(root, stop, 8.0, args.as_sysfs), daemon=True)
    sweeper.start()
    start_wall = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    ps = psutil.Process(proc.pid)
    started_line(proc)
    time.sleep(2.0)  # let start-up settle (imports, first writes) before the steady window
    c0, w0 = sum(ps.cpu_times()[:2]), time.monotonic()
    # The schedule of the default config on this tree (no battery: cpu 100 ms, gpu 150 ms).
    floor = start_floor(max(args.seconds - 4.0, 1.0), {"cpu": 100, "gpu": 150}, 100)
    rss: list[float] = []
    c1, w1 = c0, w0
    while proc.poll() is None:
        try:
            rss.append(ps.memory_info().rss / 2**20)
            c1, w1 = sum(ps.cpu_times()[:2]), time.monotonic()
        except psutil.NoSuchProcess:
            break
        time.sleep(0.5)
    out = proc.stdout.read() if proc.stdout else b""
    proc.wait()
    stop.set()
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(root.parent / f"{root.name}-state", ignore_errors=True)
    total_cpu = c1  # cumulative user+system of the daemon at the last sample
    summary = json.loads(out.decode()[out.decode().index("{") :])
    steady_cpu_pct = 100.0 * (c1 - c0) / max(w1 - w0, 1e-9)
    whole_cpu_pct = 100.0 * total_cpu / max(w1 - start_wall, 1e-9)
    figures = {
        "rss_mb": max(rss) if rss else float("nan"),
        "cpu_pct": steady_cpu_pct,
        "tick_p99_ms": summary["tick_ms_p99"],
    }
    print(
        f"daemon footprint over {args.seconds:g} s, fake Orin Nano tree"
        f"{' read as sysfs' if args.as_sysfs else ''}, mode "
        f"{'dry-run (not root)' if dry else 'governing'}, {summary['ticks']} ticks, "
        f"{summary['cap_changes']} cap changes"
    )
    print(
        f"  RSS max           {figures['rss_mb']:7.2f} MB     target {TARGETS['rss_mb']:g} MB"
        f"   ratio {figures['rss_mb'] / TARGETS['rss_mb']:.2f}"
    )
    print(
        f"  CPU (steady)      {figures['cpu_pct']:7.3f} %      target {TARGETS['cpu_pct']:g} %"
        f"    ratio {figures['cpu_pct'] / TARGETS['cpu_pct']:.2f}"
    )
    print(f"  CPU (incl. start) {whole_cpu_pct:7.3f} %      (start-up imports included, for reference)")
    floor_out, _ = floor.communicate()
    floor_pct = float(floor_out.strip())
    own = figures["cpu_pct"] - floor_pct
    print(
        f"  wake-up floor     {floor_pct:7.3f} %      (same schedule and wait, no work, measured alongside)"
    )
    print(
        f"  governor's own    {own:7.3f} %      target {TARGETS['own_cpu_pct']:g} %    ratio "
        f"{own / TARGETS['own_cpu_pct']:.2f}   (CPU steady minus the floor)"
    )
    timed = summary.get("ticks_timed", summary["ticks"])
    print(f"  tick p50          {summary['tick_ms_p50']:7.3f} ms     over {timed} ticks")
    print(
        f"  tick p99          {figures['tick_p99_ms']:7.3f} ms     target {TARGETS['tick_p99_ms']:g} ms"
        f"   ratio {figures['tick_p99_ms'] / TARGETS['tick_p99_ms']:.2f}   over {timed} ticks"
        + ("" if timed >= MIN_TICKS else f" (fewer than {MIN_TICKS}: pass --seconds 210 for a firm p99)")
    )


if __name__ == "__main__":
    main()
