"""Adversarial campaign against the root daemon's promises, on fake board trees.

Replays what an adversarial tester does to ``thermogov run`` on trees shaped like an Orin Nano
(JetPack 6), an AGX Orin with a battery (JetPack 5) and a Raspberry Pi 5 (tests/hw/fakesys.py),
each trial on a fresh hot tree (so the daemon has lowered limits to put back), through the
installed console script, and prints trials and passes per promise:

* ``restore-on-signal``: SIGTERM / SIGINT at a random instant from spawn (start-up
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
* ``failsafe-config``: a hostile config (a nan trip or hard limit, an infinite
  ``stale_periods``, a huge grace, non-UTF-8 bytes, deep nesting, random bytes): ``run`` exits
  2 in one line, nothing written, no journal;
* ``sensor-format``: every temperature file holds a hot value in a format the kernel never
  writes (``+90000``, ``9_0000``, Arabic-Indic digits, an inner blank): it is never read as a
  temperature, the daemon ends in FAILSAFE (or refuses at start, exit 2) and restores;
* ``stuck-sensor``: a hot board whose files all freeze, with ``stuck_after_s = 1``: every
  sensor is declared stuck, the run ends in FAILSAFE at the lowest caps and restores;
* ``record-folder``: ``--out`` is ``/dev/null``, under ``/proc`` or under a file: exit 2 in
  one line before the board is touched.

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
from tests.runtimedir import isolated_runtime_dir  # noqa: E402
from thermogov.hw.boardlock import board_lock_path  # noqa: E402
from thermogov.hw.journal import Journal, checksum  # noqa: E402
from thermogov.trace import load_trace  # noqa: E402

LIMIT_NAMES = ("scaling_min_freq", "scaling_max_freq", "min_freq", "max_freq")


def agx_orin_with_battery(root: Path) -> fakesys.FakeTree:
    # 92 °C on the die: with the battery's 35 °C weighted in, the fused value (86.3 °C) is over
    # the 85 °C trip, as on the other trees, so caps move and writes happen (90 °C fused 84.5).
    t = fakesys.agx_orin(root, jetpack=5, cpu_mc=92000, gpu_mc=92000)
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
    def failsafe_config(self, tmp: Path, board: str, how: str) -> None:
        t = BOARDS[board](tmp / "root")
        before = limits(t)
        texts: dict[str, bytes] = {
            "trip-nan": b'[run]\npolicy = "hysteresis"\n[policies.hysteresis]\ntrip_c = nan\n',
            "hard-limit-nan": b"[sensors.cpu]\nhard_limit_c = nan\n",
            "stale-inf": b"[governor]\nstale_periods = inf\n",
            "grace-huge": b"[governor]\nunknown_grace_ms = 999999999\n",
            "not-utf8": b'[run]\npolicy = "hyst\xe9resis"\n',
            "deep": b"a = " + b"[" * 4000 + b"]" * 4000 + b"\n",
            "random-bytes": bytes(self.rng.randrange(256) for _ in range(64)),
        }
        cfg = tmp / "hostile.toml"
        cfg.write_bytes(texts[how])
        r = procutil.run_cli(
            "run", *procutil.paths(tmp), "--out", str(tmp / "out"), "--duration", "1s", "--config", str(cfg)
        )
        lines = r.stderr.splitlines()
        ok = (
            r.returncode == 2
            and len(lines) == 1
            and no_traceback(r.stderr)
            and limits(t) == before
            and not Journal(tmp / "state").exists()
        )
        self.record("failsafe-config", board, ok, f"{how}: rc={r.returncode} {r.stderr[-300:]}")

    def sensor_format(self, tmp: Path, board: str) -> None:
        t = BOARDS[board](tmp / "root")
        bad = self.rng.choice(["+90000", "9_0000", "\u0669\u0660\u0660\u0660\u0660", "90 000"])
        for temp in (tmp / "root").glob("sys/devices/virtual/thermal/thermal_zone*/temp"):
            temp.write_text(bad + "\n", encoding="utf-8")
        before = limits(t)
        r = procutil.run_cli("run", *procutil.paths(tmp), "--out", str(tmp / "out"), "--duration", "2.5s")
        ok = no_traceback(r.stderr) and limits(t) == before and not Journal(tmp / "state").exists()
        detail = f"{bad!r}: rc={r.returncode} {r.stderr[-200:]}"
        if ok and r.returncode == 0:
            (run_dir,) = [p for p in (tmp / "out").iterdir() if p.is_dir()]
            tr = load_trace(run_dir)
            temps = [v for c in tr if c.endswith("_c") and c != "fused_c" for v in tr[c] if v is not None]
            ok = not any(v >= 89.0 for v in temps) and tr["policy_state"][-1] == "FAILSAFE"
            detail += f" readings>=89: {sum(v >= 89.0 for v in temps)}, last state {tr['policy_state'][-1]}"
        else:
            ok = ok and r.returncode == 2 and len(r.stderr.splitlines()) == 1
        self.record("sensor-format", board, ok, detail)

    def stuck_sensor(self, tmp: Path, board: str) -> None:
        t = BOARDS[board](tmp / "root")
        before = limits(t)
        cfg = tmp / "stuck.toml"
        cfg.write_text('[run]\npolicy = "hysteresis"\n[governor]\nstuck_after_s = 1.0\n')
        r = procutil.run_cli(
            "run", *procutil.paths(tmp), "--out", str(tmp / "out"), "--duration", "3.5s", "--config", str(cfg)
        )
        ok = r.returncode == 0 and limits(t) == before and no_traceback(r.stderr)
        detail = f"rc={r.returncode} {r.stderr[-200:]}"
        if ok:
            (run_dir,) = [p for p in (tmp / "out").iterdir() if p.is_dir()]
            tr = load_trace(run_dir)
            events = " ".join(str(e) for e in tr["event"] if e)
            sensors = [c[:-2] for c in tr if c.endswith("_c") and c != "fused_c"]
            all_stuck = all(f"sensor_stuck:{n}" in events for n in sensors)
            lowest = all(
                tr[c][-1] == min(v for v in tr[c] if v is not None) for c in tr if c.endswith("_cap_hz")
            )
            ok = all_stuck and tr["policy_state"][-1] == "FAILSAFE" and lowest
            detail = f"all stuck {all_stuck}, last state {tr['policy_state'][-1]}, lowest caps {lowest}"
        self.record("stuck-sensor", board, ok, detail)

    def record_folder(self, tmp: Path, board: str, how: str) -> None:
        t = BOARDS[board](tmp / "root")
        before = limits(t)
        (tmp / "afile").write_text("x")
        out = {
            "dev-null": os.devnull,
            "proc": "/proc/thermogov-campaign",
            "under-a-file": str(tmp / "afile" / "o"),
        }
        r = procutil.run_cli("run", *procutil.paths(tmp), "--out", out[how], "--duration", "1s")
        lines = r.stderr.splitlines()
        ok = r.returncode == 2 and len(lines) == 1 and "--out" in r.stderr and limits(t) == before
        ok = ok and not Journal(tmp / "state").exists() and no_traceback(r.stderr)
        self.record("record-folder", board, ok, f"{how}: rc={r.returncode} {r.stderr[-300:]}")

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
    ap.add_argument("--only", action="append", default=[], help="Run only this promise (repeatable).")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    c = Campaign(rng)
    isolated_runtime_dir()  # never the real /run/thermogov (tests/runtimedir.py)
    trials: list[tuple[Callable[..., None], tuple[object, ...]]] = []
    for _ in range(args.rounds):
        for board in BOARDS:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM, signal.SIGINT):
                trials.append((c.restore_on_signal, (board, sig)))
            for _k in range(3):
                trials.append((c.kill9_restore, (board,)))
            for _k in range(3):
                trials.append((c.confinement, (board,)))
            for how in ("out-of-range", "non-owned", "wrong-root", "bad-checksum"):
                trials.append((c.journal_tampering, (board, how)))
            for how in ("deleted-lock-files", "other-lock-file", "other-state-dir"):
                trials.append((c.single_instance, (board, how)))
            for how in (
                "trip-nan",
                "hard-limit-nan",
                "stale-inf",
                "grace-huge",
                "not-utf8",
                "deep",
                "random-bytes",
            ):
                trials.append((c.failsafe_config, (board, how)))
            for _k in range(2):
                trials.append((c.sensor_format, (board,)))
            trials.append((c.stuck_sensor, (board,)))
            for how in ("dev-null", "proc", "under-a-file"):
                trials.append((c.record_folder, (board, how)))
    if args.only:
        names = {n.replace("-", "_").replace("kill_9+restore", "kill9_restore") for n in args.only}
        trials = [(fn, fa) for fn, fa in trials if fn.__name__ in names]
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
