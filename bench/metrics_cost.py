"""What publishing state and Prometheus metrics cost the daemon, as a share of one core.

Two measurements, each side by side so the machine's noise hits both halves alike:

1. **Two daemons at once** on two fake Orin Nano trees (tmpfs, zones swept 60 -> 95 -> 60 °C as
   in ``bench/daemon_footprint.py``, so caps really change): one plain (it publishes the state
   file, as every daemon does), one with ``--metrics-port 0 --metrics-textfile`` and a scraper
   fetching ``/metrics`` once a second (Prometheus's usual interval is 15 s or more: this is
   the worst case).  CPU time (user + system, psutil) over the same steady window; the
   difference is the metrics' cost.  Target <= 0.1 % of a core.  /proc accounts CPU in clock
   ticks (10 ms), so runs shorter than a minute cannot resolve 0.1 %: the default is 120 s.
2. **The publication itself**, in process: ``StatePublisher.publish`` (build the document, one
   ``json.dumps``, atomic replace) without and with the metrics (textfile render and write),
   timed over many calls; at one publication a second, microseconds per call / 10,000 is the
   percentage of a core.  Finer than (1), and it also prices the state file that (1) cannot
   switch off.

    python bench/metrics_cost.py [--seconds 120]

Run as root, the daemons govern the fake trees; otherwise ``--dry-run``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from daemon_footprint import started_line, sweep_temps  # noqa: E402  (the same start and temperature sweep)

from tests.hw.fakesys import orin_nano  # noqa: E402
from tests.runtimedir import isolated_runtime_dir  # noqa: E402

TARGET_PCT = 0.1


def start(work: Path, name: str, extra: list[str], seconds: float) -> subprocess.Popen[bytes]:
    shm = Path("/dev/shm")
    root = Path(tempfile.mkdtemp(prefix=f"tg-mc-{name}-", dir=shm if shm.is_dir() else work))
    orin_nano(root, cpu_mc=60000, gpu_mc=60000)
    d = work / name
    cmd = [
        sys.executable,
        "-m",
        "thermogov.cli",
        "run",
        "--sysfs-root",
        str(root),
        "--out",
        str(d / "out"),
        "--state-dir",
        str(d / "state"),
        "--lock-file",
        str(d / "thermogov.lock"),
        "--state-file",
        str(root.parent / f"{root.name}-run" / "state.json"),  # tmpfs, like /run
        "--duration",
        f"{seconds}s",
        *extra,
    ] + (["--dry-run"] if os.geteuid() != 0 else [])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    proc.root = root  # type: ignore[attr-defined]
    return proc


def cpu_s(p: psutil.Process) -> float:
    t = p.cpu_times()
    return t.user + t.system


def side_by_side(seconds: float, scrape_every_s: float, extra: list[str]) -> None:
    work = Path(tempfile.mkdtemp(prefix="thermogov-metrics-cost-"))
    prom = work / "textfile" / "thermogov.prom"
    prom.parent.mkdir()
    plain = start(work, "plain", [], seconds)
    opts = {"port": ["--metrics-port", "0"], "textfile": ["--metrics-textfile", str(prom)]}
    metered = start(work, "metrics", [a for k in extra for a in opts[k]], seconds)
    stop = threading.Event()
    for proc in (plain, metered):
        threading.Thread(target=sweep_temps, args=(proc.root, stop), daemon=True).start()  # type: ignore[attr-defined]
    started_line(plain)
    url = re.search(r"metrics=(\S+)", started_line(metered))
    scrapes = 0

    def scrape(target: str) -> None:
        nonlocal scrapes
        while not stop.wait(scrape_every_s):
            try:
                urllib.request.urlopen(target, timeout=5).read()
                scrapes += 1
            except OSError:
                return

    if url and scrape_every_s > 0:
        threading.Thread(target=scrape, args=(url.group(1),), daemon=True).start()
    time.sleep(3.0)  # past start-up (imports, first writes) before the steady window
    ps = [psutil.Process(plain.pid), psutil.Process(metered.pid)]
    c0, w0 = [cpu_s(p) for p in ps], time.monotonic()
    c1, w1 = c0, w0
    while plain.poll() is None and metered.poll() is None:
        try:
            c1, w1 = [cpu_s(p) for p in ps], time.monotonic()
        except psutil.NoSuchProcess:
            break
        time.sleep(0.5)
    stop.set()
    for proc in (plain, metered):
        proc.wait()
        shutil.rmtree(proc.root, ignore_errors=True)  # type: ignore[attr-defined]
        shutil.rmtree(f"{proc.root}-run", ignore_errors=True)  # type: ignore[attr-defined]
    shutil.rmtree(work, ignore_errors=True)
    span = max(w1 - w0, 1e-9)
    pct = [100.0 * (b - a) / span for a, b in zip(c0, c1, strict=True)]
    cost = pct[1] - pct[0]
    every = f"every {scrape_every_s:g} s" if url and scrape_every_s > 0 else "none"
    print(f"1. two daemons side by side, {span:.0f} s steady window, {scrapes} scrapes ({every})")
    print(f"   plain (state file only)        {pct[0]:7.3f} % of a core")
    print(
        f"   + {' + '.join(extra) or 'nothing (A/A)':<28}{pct[1]:7.3f} % of a core   ratio {pct[1] / max(pct[0], 1e-9):.3f}"
    )
    print(
        f"   metrics' cost                  {cost:7.3f} % of a core   target {TARGET_PCT:g} %   ratio {cost / TARGET_PCT:.2f}"
    )


def in_process(calls: int) -> None:
    from thermogov.governor import TickRecord
    from thermogov.hw.metrics import Metrics
    from thermogov.hw.publish import StatePublisher
    from thermogov.interfaces import PowerStatus
    from thermogov.statedoc import StateIdentity

    class Gov:  # what the publisher reads of a governor
        class policy:
            name = "stepped"

        power_status = PowerStatus("mains")

    work = Path(
        tempfile.mkdtemp(prefix="thermogov-publish-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None)
    )
    ident = StateIdentity(os.getpid(), time.time(), "jetson-orin-nano", False, str(work), "workload")
    rec = TickRecord(
        1.0,
        71.3,
        (71.0, 70.2, 47.0),
        "cpu+gpu+soc",
        "HOLD",
        (1_497_600_000, 612_000_000),
        (1_497_600_000, 612_000_000),
        6.2,
        12345,
        "",
    )
    sensors, domains = ("cpu", "gpu", "soc"), ("cpu", "gpu")
    runs = {
        "state file only": StatePublisher(ident, work / "state.json", sensors, domains, print),
        "state file + metrics textfile": StatePublisher(
            ident, work / "state.json", sensors, domains, print, Metrics(None, "", work / "thermogov.prom")
        ),
    }
    print(f"2. one publication (once a second in the daemon), {calls} calls each, tmpfs")
    base = None
    for name, pub in runs.items():
        best = float("inf")
        for _ in range(3):  # best of three: the least disturbed estimate of the work itself
            t0 = time.perf_counter()
            for i in range(calls):
                pub.publish(rec._replace(t_s=float(i), inferences_total=12345 + i), Gov, 0)  # type: ignore[arg-type]
            best = min(best, (time.perf_counter() - t0) / calls)
        us = best * 1e6
        base = us if base is None else base
        print(f"   {name:<30} {us:8.1f} us/publication = {us / 1e4:.4f} % of a core   ratio {us / base:.2f}")
    shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=120.0, help="daemon run length (default 120 s)")
    ap.add_argument("--calls", type=int, default=2000, help="publications timed in process (default 2000)")
    ap.add_argument(
        "--scrape-every",
        type=float,
        default=15.0,
        help="seconds between scrapes (default 15, Prometheus's usual; 0: none)",
    )
    ap.add_argument(
        "--with",
        dest="extra",
        default="port,textfile",
        help="what the second daemon adds: port,textfile (default), one, or none",
    )
    args = ap.parse_args()
    isolated_runtime_dir()  # never the real /run/thermogov (tests/runtimedir.py)
    in_process(args.calls)
    extra = [] if args.extra == "none" else [x for x in args.extra.split(",") if x]
    side_by_side(args.seconds, args.scrape_every, extra)


if __name__ == "__main__":
    main()
