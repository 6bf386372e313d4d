"""Adversarial campaign against the root daemon's promises, on fake board trees.

Replays what an adversarial tester does to ``thermogov run`` on trees shaped like an Orin Nano
(JetPack 6), an AGX Orin with a battery (JetPack 5) and a Raspberry Pi 5 (tests/hw/fakesys.py),
each trial on a fresh hot tree (so the daemon has lowered limits to put back), through the
installed console script, and prints trials and passes per promise:

* ``restore-on-signal``: SIGTERM / SIGINT / SIGHUP at a random instant from spawn (start-up
  included); after exit every limit file is as before, no journal is left, no traceback;
* ``kill-9+restore``: SIGKILL at a random instant, then ``thermogov restore``: limits as
  before, journal gone, exit 0;
* ``confinement``: after start-up a random owned limit file (or its policy directory) is
  swapped for a symlink to a file outside the root and the board cooled (so the governor
  must write): the outside file is never written, the first failed write is already
  ``FAILSAFE`` with every other domain at its lowest cap, and exit is 1 with the limits that
  are left named;
* ``journal-tampering``: kill -9, then the journal gets an out-of-range value, a non-owned
  attribute, another root or a bad checksum: ``restore`` refuses (exit 2, or 1 for another
  root), one line, nothing written;
* ``single-instance``: while one governor runs, a second ``run`` and a ``restore`` with the
  lock files deleted, another ``--lock-file`` or another ``--state-dir`` exit 1 naming the
  first pid and change nothing; the first still restores on SIGTERM.

    python bench/safety_campaign.py [--rounds 2] [--seed 1]

Random instants are drawn from a seeded generator, so a failing trial can be replayed.  The
target is 100 % for every promise; the script exits 1 when any trial fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.hw import fakesys, procutil  # noqa: E402  (the same fake boards and driver the tests use)
from thermogov.hw.boardlock import board_lock_path  # noqa: E402
from thermogov.hw.journal import Journal, checksum  # noqa: E402
from thermogov.trace import load_trace  # noqa: E402

LIMIT_NAMES = ("scaling_min_freq", "scaling_max_freq", "min_freq", "max_freq")


def agx_orin_with_battery(root: Path) -> fakesys.FakeTree:
    t = fakesys.agx_orin(root, jetpack=5, cpu_mc=90000, gpu_mc=90000)
    t.supply(
        "BAT0",
        "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=70",
        temp_decic=350,
    )
    return t


BOARDS: dict[str, Callable[[Path], fakesys.FakeTree]] = {
    "orin-nano-jp6": lambda r: fakesys.orin_nano(r, jetpack=6, cpu_mc=90000, gpu_mc=90000),
    "agx-orin-jp5-battery": agx_orin_with_battery,
    "rpi5": lambda r: fakesys.rpi5(r, cpu_mc=90000),
}


def limits(t: fakesys.FakeTree) -> dict[str, bytes]:
    """Every limit file's bytes (real files only; class/ links lead to the same files)."""
    out = {}
    for dirpath, _dirs, files in os.walk(t.root):
        for n in files:
            p = Path(dirpath) / n
            if n in LIMIT_NAMES and not p.is_symlink():
                out[str(p.relative_to(t.root))] = p.read_bytes()
    return out


def owned_files(t: fakesys.FakeTree) -> list[str]:
    return sorted(k for k in limits(t) if "15340000.vic" not in k)  # vic is not governed


def cool(t: fakesys.FakeTree) -> None:
    for dirpath, _dirs, files in os.walk(t.root / "sys/devices"):
        for n in files:
            p = Path(dirpath) / n
            if n == "temp" and "thermal_zone" in dirpath and int(p.read_text()) > 0:
                p.write_text("40000\n")


def no_traceback(*texts: str) -> bool:
    return not any("Traceback" in x for x in texts)


class Campaign:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.results: dict[str, list[bool]] = defaultdict(list)
        self.failures: list[str] = []

    def record(self, promise: str, board: str, ok: bool, detail: str) -> None:
        self.results[promise].append(ok)
        if not ok:
            self.failures.append(f"{promise} on {board}: {detail}")

    # -- trials ---------------------------------------------------------------------------
    def restore_on_signal(self, tmp: Path, board: str, sig: signal.Signals) -> None:
        t = BOARDS[board](tmp / "root")
        before = limits(t)
        proc = procutil.start_run(tmp)
        time.sleep(self.rng.uniform(0.0, 1.5))  # a random instant, start-up included
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
        ok = limits(t) == before and not Journal(tmp / "state").exists() and no_traceback(err.decode())
        self.record("restore-on-signal", board, ok, f"{sig.name} rc={proc.returncode} {err.decode()[-300:]}")

    def kill9_restore(self, tmp: Path, board: str) -> None:
        t = BOARDS[board](tmp / "root")
        before = limits(t)
        proc = procutil.start_run(tmp)
        time.sleep(self.rng.uniform(0.0, 1.5))
        proc.kill()
        proc.communicate(timeout=procutil.DEADLINE_S)
        r = procutil.run_cli("restore", *procutil.paths(tmp))
        ok = r.returncode == 0 and limits(t) == before and not Journal(tmp / "state").exists()
        self.record("kill-9+restore", board, ok, f"restore rc={r.returncode} {r.stderr[-300:]}")

    def confinement(self, tmp: Path, board: str) -> None:
        t = BOARDS[board](tmp / "root")
        outside = tmp / "outside.txt"
        outside.write_text("precious\n")
        proc = procutil.start_run(tmp)
        procutil.wait_line(proc, "thermogov: started")
        victim = t.root / self.rng.choice(owned_files(t))
        if self.rng.random() < 0.5:  # the attribute itself
            link = victim.with_name(victim.name + ".swap")
            link.symlink_to(outside)
            os.replace(link, victim)
        else:  # its directory, to a copy holding the outside file under the same name
            elsewhere = tmp / "elsewhere"
            elsewhere.mkdir()
            (elsewhere / victim.name).symlink_to(outside)
            victim.parent.rename(tmp / "moved")
            victim.parent.symlink_to(elsewhere)
        cool(t)
        procutil.wait_line(proc, "since start-up", stream="stderr")
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
        ok = outside.read_text() == "precious\n" and proc.returncode == 1 and no_traceback(err.decode())
        detail = f"rc={proc.returncode} outside={outside.read_text()!r}"
        if ok:
            (run_dir,) = [p for p in (tmp / "out").iterdir() if p.is_dir()]
            tr = load_trace(run_dir)
            first = next(i for i, e in enumerate(tr["event"]) if e and "write_failed" in str(e))
            lowest_ok = all(
                min(v for v in tr[c] if v is not None) == tr[c][first]
                for c in tr
                if c.endswith("_cap_hz")
                and f"write_failed:{c[: -len('_cap_hz')]}" not in str(tr["event"][first])
            )
            ok = tr["policy_state"][first] == "FAILSAFE" and lowest_ok
            detail = f"state at first failure {tr['policy_state'][first]}, others lowest {lowest_ok}"
        self.record("confinement", board, ok, detail)

    def journal_tampering(self, tmp: Path, board: str, how: str) -> None:
        t = BOARDS[board](tmp / "root")
        proc = procutil.start_run(tmp)
        procutil.wait_line(proc, "thermogov: started")
        proc.kill()
        proc.communicate(timeout=procutil.DEADLINE_S)
        j = Journal(tmp / "state")
        body = json.loads(j.path.read_text())
        e = body["entries"][0]
        if how == "out-of-range":
            e["min"] = 999999999
        elif how == "non-owned":
            e["max_rel"] = "sys/class/thermal/thermal_zone0/temp"
            e["max"] = 115200
        elif how == "wrong-root":
            body["sysfs_root"] = str(tmp / "other-root")
        if how != "bad-checksum":
            body["sha256"] = checksum(body)  # re-signed: only the content checks can tell
        else:
            e["max"] = e["min"]
        j.path.write_text(json.dumps(body))
        left = limits(t)
        r = procutil.run_cli("restore", *procutil.paths(tmp))
        want = 1 if how == "wrong-root" else 2
        lines = r.stderr.splitlines()
        ok = r.returncode == want and len(lines) == 1 and limits(t) == left and no_traceback(r.stderr)
        self.record("journal-tampering", board, ok, f"{how}: rc={r.returncode} {r.stderr[-300:]}")

    def single_instance(self, tmp: Path, board: str, how: str) -> None:
        t = BOARDS[board](tmp / "root")
        before = limits(t)
        first = procutil.start_run(tmp)
        procutil.wait_line(first, "thermogov: started")
        where: dict[str, str] = {}
        if how == "deleted-lock-files":
            board_lock_path(tmp / "root").unlink()
            (tmp / "thermogov.lock").unlink()
        elif how == "other-lock-file":
            where = {"lock": "other.lock"}
        else:
            where = {"state": "other-state"}
        held = limits(t)
        ok = True
        details = []
        for cmd in ("run", "restore"):
            args = procutil.paths(tmp, **where)
            if cmd == "run":
                args += ["--out", str(tmp / "out2"), "--duration", "0.5s"]
            r = procutil.run_cli(cmd, *args)
            good = (
                r.returncode == 1
                and f"(pid {first.pid}" in r.stderr
                and "another thermogov governs" in r.stderr
            )
            ok = ok and good and limits(t) == held
            details.append(f"{cmd} rc={r.returncode} {r.stderr[-200:]}")
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=procutil.DEADLINE_S)
        ok = ok and first.returncode == 0 and limits(t) == before
        self.record("single-instance", board, ok, f"{how}: {'; '.join(details)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=1, help="Repeat the whole set this many times.")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    c = Campaign(rng)
    os.environ.setdefault("THERMOGOV_LOCK_DIR", tempfile.mkdtemp(prefix="thermogov-locks-"))
    trials: list[tuple[Callable[..., None], tuple[object, ...]]] = []
    for _ in range(args.rounds):
        for board in BOARDS:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
                trials.append((c.restore_on_signal, (board, sig)))
            for _k in range(3):
                trials.append((c.kill9_restore, (board,)))
            for _k in range(3):
                trials.append((c.confinement, (board,)))
            for how in ("out-of-range", "non-owned", "wrong-root", "bad-checksum"):
                trials.append((c.journal_tampering, (board, how)))
            for how in ("deleted-lock-files", "other-lock-file", "other-state-dir"):
                trials.append((c.single_instance, (board, how)))
    t0 = time.monotonic()
    for fn, fargs in trials:
        with tempfile.TemporaryDirectory(prefix="tgsafe-") as d:
            try:
                fn(Path(d), *fargs)
            except (AssertionError, subprocess.TimeoutExpired, OSError, StopIteration, ValueError) as e:
                name = fn.__name__.replace("_", "-").replace("kill9-restore", "kill-9+restore")
                c.record(name, str(fargs[0]), False, f"{type(e).__name__}: {str(e)[:300]}")
    print(f"{len(trials)} trials in {time.monotonic() - t0:.0f} s (seed {args.seed})")
    print(f"{'promise':<20} {'trials':>6} {'passed':>6} {'rate':>7}")
    for promise, oks in c.results.items():
        print(f"{promise:<20} {len(oks):>6} {sum(oks):>6} {100.0 * sum(oks) / len(oks):>6.1f}%")
    for f in c.failures:
        print("FAIL", f)
    return 0 if not c.failures else 1


if __name__ == "__main__":
    sys.exit(main())
