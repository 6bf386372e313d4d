"""The daemon's file work per governed second, counted on a virtual clock (independent of load).

CPU shares on a shared machine move with its load by more than a change to the daemon moves
them (``bench/daemon_footprint.py`` reads 0.5-0.7 % of a core for the same code at load 6-9), so
this bench counts what the daemon asks of the kernel instead: attribute reads that reach a file
(``SysfsTree._read_bytes``), ``open``, ``stat``, ``lstat`` and ``listdir`` calls (``lists``, session 22c), per second of governing
(``lstat``: the confinement checks, :func:`thermogov.hw.confine.check`, one per owned file a
look asks about, hw/departures.py; uncounted before session 20's review).  The real loop
runs (real reads of a fake tree, real trace, real state file) with ``time.monotonic`` and the
wait replaced by a virtual clock, so 120 governed seconds take a second or two.  The board is a
fake Orin Nano with what a robot has on top: a battery, a charger, and a governed fan.  Start-up
is taken out by running twice (``--seconds`` and three times it) and differencing; what the
start and the exit cost together is the short run's count less its seconds at that rate.

    python bench/daemon_reads.py [--seconds 40] [--awaiting] [--late-zone] [--command] [--board agx-orin]

``--awaiting``: the GPU's devfreq link and ``policy4``'s folder absent for the whole run (a GPU
driver not probed, a cpufreq driver not loaded yet): what the once-a-second looks for them cost
(hw/latedevfreq.py, hw/lateclusters.py).  ``--late-zone``: the GPU's thermal zone absent for
the whole run (its module not loaded): what looking for it once a second costs (hw/latezones.py).

``--command``: the whole ``thermogov run`` command in process (``thermogov.cli``), its start
lines (sensor units, clocks, input rail, trip hold) included, which the daemon alone does not
compute (session 22t: they read the board once each before the daemon discovered it again).

``--board agx-orin``: a fake AGX Orin in place of the Orin Nano (same battery, charger and fan),
whose power is the sum of three rails (hw/railsum.py, session 22d): what that sum costs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import tempfile
import time
import types
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.hw import fakesys  # noqa: E402  (the same fake boards the tests use)
from tests.runtimedir import isolated_runtime_dir  # noqa: E402
from thermogov import cli  # noqa: E402
from thermogov.config import parse_config  # noqa: E402
from thermogov.hw import daemon, sysfs  # noqa: E402
from thermogov.hw.publish import PublishOptions  # noqa: E402

BAT = (
    "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_TYPE=Battery\nPOWER_SUPPLY_STATUS=Discharging\n"
    "POWER_SUPPLY_CAPACITY=74\nPOWER_SUPPLY_POWER_NOW=5064000"
)


BOARDS = {"orin-nano": "Orin Nano", "agx-orin": "AGX Orin"}


def counted_run(
    seconds: float,
    awaiting: bool = False,
    late_zone: bool = False,
    command: bool = False,
    board: str = "orin-nano",
) -> tuple[Counter[str], int]:
    """Counts of reads, opens and stats over one run of ``seconds`` governed seconds."""
    work = Path(tempfile.mkdtemp(prefix="thermogov-reads-"))
    make = fakesys.agx_orin if board == "agx-orin" else fakesys.orin_nano
    t = make(work / "root", cpu_mc=60000, gpu_mc=60000)
    if awaiting:
        (t.root / "sys/class/devfreq/17000000.ga10b").unlink()
        shutil.rmtree(t.root / "sys/devices/system/cpu/cpufreq/policy4")
    if late_zone:
        for link in (t.root / "sys/class/thermal").iterdir():
            if (link / "type").read_text().strip() in {"gpu-thermal", "GPU-therm"}:
                shutil.rmtree(link.resolve())
                link.unlink()
    t.supply("BAT0", BAT, temp_decic=300)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=0", kind="Mains")
    fakesys.pwm_fan(t, board="jetson", cdev=None, pwm=0, enable=2)
    now = [1000.0]
    counts: Counter[str] = Counter()

    def wait(flag: daemon.StopFlag, timeout_s: float) -> bool:
        now[0] += timeout_s
        return flag.event.is_set()

    real_read, real_open, real_stat, real_lstat = sysfs.SysfsTree._read_bytes, os.open, os.stat, os.lstat
    real_listdir = os.listdir

    def listdir(path, *a, **k):  # type: ignore[no-untyped-def]
        counts["lists"] += 1
        return real_listdir(path, *a, **k)

    def read(tree: sysfs.SysfsTree, real: str) -> bytes:
        counts["reads"] += 1
        return real_read(tree, real)

    def opened(path, flags, *a, **k):  # type: ignore[no-untyped-def]
        counts["opens"] += 1
        return real_open(path, flags, *a, **k)

    def stat(path, *a, **k):  # type: ignore[no-untyped-def]
        counts["stats"] += 1
        return real_stat(path, *a, **k)

    def lstat(path, *a, **k):  # type: ignore[no-untyped-def]
        counts["lstats"] += 1
        return real_lstat(path, *a, **k)

    saved = (daemon.time, daemon.StopFlag.wait)
    daemon.time = types.SimpleNamespace(
        monotonic=lambda: now[0], perf_counter=time.perf_counter, time=time.time
    )  # type: ignore[assignment]
    daemon.StopFlag.wait = wait  # type: ignore[method-assign]
    sysfs.SysfsTree._read_bytes = read  # type: ignore[method-assign]
    os.open, os.stat, os.lstat, os.listdir = opened, stat, lstat, listdir
    try:
        if command:
            run_command(work, seconds)
            ticks = 0
        else:
            opts = daemon.RunOptions(
                config=parse_config({"run": {"fan": "governor"}}),
                sysfs_root=work / "root",
                duration_s=seconds,
                out=work / "out",
                state_dir=work / "state",
                lock_file=work / "thermogov.lock",
                lock_dir=work / "locks",
                publish=PublishOptions(state_file=work / "run" / "state.json"),
            )
            ticks = daemon.Runner(opts, out=io.StringIO(), err=io.StringIO()).run()["ticks"]
    finally:
        daemon.time, daemon.StopFlag.wait = saved  # type: ignore[method-assign]
        sysfs.SysfsTree._read_bytes = real_read  # type: ignore[method-assign]
        os.open, os.stat, os.lstat, os.listdir = real_open, real_stat, real_lstat, real_listdir
    return counts, ticks


def run_command(work: Path, seconds: float) -> None:
    """``thermogov run`` with the daemon's options above, as the installed script parses them."""
    cfg = work / "thermogov.toml"
    cfg.write_text('[run]\nfan = "governor"\n')
    argv = ["run", "--config", str(cfg), "--sysfs-root", str(work / "root"), "--duration", f"{seconds}s"]
    argv += [
        "--out",
        str(work / "out"),
        "--state-dir",
        str(work / "state"),
        "--lock-dir",
        str(work / "locks"),
    ]
    argv += ["--lock-file", str(work / "thermogov.lock"), "--state-file", str(work / "run" / "state.json")]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        try:
            cli.main(argv)
        except SystemExit as e:
            if e.code:
                raise RuntimeError(f"thermogov run exited {e.code}: {err.getvalue()[-500:]}") from None


def main() -> None:
    isolated_runtime_dir()  # never the real /run/thermogov (tests/runtimedir.py)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=40.0, help="governed seconds of the short run")
    ap.add_argument("--awaiting", action="store_true", help="the GPU and policy4 absent for the whole run")
    ap.add_argument(
        "--late-zone", action="store_true", help="the GPU's thermal zone absent for the whole run"
    )
    ap.add_argument(
        "--command", action="store_true", help="the whole `thermogov run` command, start lines included"
    )
    ap.add_argument("--board", choices=sorted(BOARDS), default="orin-nano", help="the fake board")
    args = ap.parse_args()
    short, _ = counted_run(args.seconds, args.awaiting, args.late_zone, args.command, args.board)
    long, ticks = counted_run(3 * args.seconds, args.awaiting, args.late_zone, args.command, args.board)
    span = 2 * args.seconds
    what = "`thermogov run`" if args.command else f"daemon, {ticks} ticks"
    print(
        f"file work per governed second (fake {BOARDS[args.board]} + battery + charger + governed fan; {what})"
    )
    for key in ("reads", "opens", "stats", "lstats", "lists"):
        rate = (long[key] - short[key]) / span
        # Start-up (discovery, opening, the first journal write) and exit: the short run's count
        # less its governed seconds at the rate.
        print(f"  {key:<6} {rate:7.1f} /s   start+exit {short[key] - rate * args.seconds:7.0f}")


if __name__ == "__main__":
    main()
