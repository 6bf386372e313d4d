"""The whole lifecycle of the daemon on one named tree, judged against the promises (session 19).

``bench/stock_trees.py`` (session 16) runs ``doctor``, a dry run and one timed ``run`` per tree.
A board meets more than that: the unit is stopped (SIGTERM), reloaded (SIGHUP), and sometimes
killed (OOM killer, ``kill -9``) and cleaned up by the unit's ``ExecStopPost=thermogov restore``.
Each path here starts from a freshly built tree (every die sensor hot), through the installed
console script:

* ``normal``: ``run --duration 3s`` ends by itself;
* ``sigterm``: SIGTERM once capped (the service's stop);
* ``sighup``: the config switched to the unit's default policy (``stepped``), SIGHUP once
  capped, the ``reloaded`` line awaited, then SIGTERM;
* ``kill9``: SIGKILL once capped, then ``thermogov restore`` (what the unit's ExecStopPost runs).

Judged on each: exit status 0 (2 with one line and nothing written for a refused tree), no
traceback, some governed max lowered mid-run and no writable policy with CPUs left at its top
(``policy-left-uncapped``, session 26t), nothing changed outside the attributes the journal
owns, the whole tree back byte for byte (contents, modes, links), no journal left.  A finding is
one line ``<tree> <path> <kind>: <detail>``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.board_shapes import changed, snapshot
from tests.hw import faultshim, procutil

PATHS = ("normal", "sigterm", "sighup", "kill9")
Rules = list[tuple[str, str, int]]


def owned(tmp: Path, root: Path) -> set[str]:
    """The journal's attributes as real paths under ``root`` (a class link resolved)."""
    try:
        body = json.loads((tmp / "state/journal.json").read_text())
    except (OSError, ValueError):
        return set()
    rels = {e[k] for e in body.get("entries", []) for k in ("min_rel", "max_rel")}
    rels |= {a["rel"] for a in body.get("attrs", []) or []} | {e["rel"] for e in body.get("states", []) or []}
    real = {str(Path(os.path.realpath(root / r)).relative_to(root.resolve())) for r in rels}
    return real | _aliases(root, real)


def _aliases(root: Path, rels: set[str]) -> set[str]:
    """Other names of the same files: a hard link in a built tree stands for one kernel
    attribute shown in two folders (L4T 32.4+'s fan and its hwmon twin, tests/hw/fakesys.py)."""
    inodes = set()
    for r in rels:
        with contextlib.suppress(OSError):
            st = (root / r).stat()
            if st.st_nlink > 1:
                inodes.add((st.st_dev, st.st_ino))
    if not inodes:
        return set()
    out = set()
    for dirpath, _dirs, files in os.walk(root):
        for n in files:
            p = Path(dirpath) / n
            with contextlib.suppress(OSError):
                st = p.lstat()
                if (st.st_dev, st.st_ino) in inodes:
                    out.add(str(p.relative_to(root)))
    return out


def _read_until(proc: subprocess.Popen[bytes], needle: str, stream: str) -> tuple[bool, str]:
    """``procutil.wait_line`` that keeps what it read (a refusal's line is judged afterwards)."""
    try:
        return True, procutil.wait_line(proc, needle, stream)
    except AssertionError as e:
        return False, str(e)


CPUFREQ = "sys/devices/system/cpu/cpufreq/"


def policies_left_at_top(
    before: dict[str, tuple[object, int]], mid: dict[str, tuple[object, int]], rules: Rules
) -> list[str]:
    """Policies of a hot, capped board still at their top mid-run (session 26t): each with a
    writable ``scaling_max_freq`` above its ``cpuinfo_min_freq`` and CPUs of its own, no fault
    rule on its folder.  A profile naming clusters (``policy0``, ``policy4``) on a board with a
    policy per CPU left all the others at full clock."""
    left = []
    for rel, (content, mode) in before.items():
        if not (rel.startswith(CPUFREQ) and rel.endswith("/scaling_max_freq")) or not mode & 0o222:
            continue
        folder = rel.rsplit("/", 1)[0]
        if mid.get(rel) != (content, mode) or any(folder in r[0] or r[0].startswith("/") for r in rules):
            continue
        try:
            top = int(bytes(content))  # type: ignore[call-overload]
            floor = int(bytes(before[f"{folder}/cpuinfo_min_freq"][0]))  # type: ignore[call-overload]
            cpus = bytes(before[f"{folder}/affected_cpus"][0]).split()  # type: ignore[call-overload]
        except (KeyError, ValueError, TypeError):
            continue  # a hostile value of its own: judged by the tree's other checks
        if cpus and top > floor:
            left.append(folder.rsplit("/", 1)[1])
    return left


def one_path(
    name: str,
    make: Callable[[Path], Rules],
    shim: Path,
    path: str,
    mid_s: float,
    extra: list[str],
    expect_capped: bool = True,
    run_lines: str = "",
) -> list[str]:
    """Runs ``path`` on a fresh build of tree ``name``; returns its findings.  ``expect_capped``
    False: a tree governed as cold by design (a zone reading exactly 0 or -40000, session 16).
    ``run_lines``: more keys of the config's ``[run]`` table (``fan = "governor"``, session 20)."""
    tmp = Path(tempfile.mkdtemp(prefix=f"lifecycle-{name}-{path}-"))
    found: list[str] = []

    def finding(kind: str, detail: str) -> None:
        found.append(f"{name} {path} {kind}: {detail}")

    try:
        root = tmp / "root"
        rules = make(root)
        faultshim.write_rules(tmp / "faults", rules)
        env = faultshim.env(shim, tmp / "faults", root)
        cfg = tmp / "hysteresis.toml"
        cfg.write_text(f'[run]\npolicy = "hysteresis"\n{run_lines}')
        base = [*procutil.paths(tmp), "--lock-dir", str(tmp)]
        args = [*base, "--out", str(tmp / "out"), "--config", str(cfg), *extra]
        before = snapshot(root)
        if path == "normal":
            doc = procutil.run_cli("doctor", "--sysfs-root", str(root), *extra, env=env)
            if doc.returncode not in (0, 2) or "Traceback" in doc.stderr:
                finding("doctor", f"rc={doc.returncode} {doc.stderr.strip()[-300:]}")
        duration = "3s" if path == "normal" else "60s"
        proc = subprocess.Popen(
            [*procutil.script(), "run", "--duration", duration, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        started, said = _read_until(proc, "thermogov: started", "stdout")
        if not started:
            rc = proc.wait()
            after = snapshot(root)
            lines = [ln for ln in said.split(" err ", 1)[-1].strip().splitlines() if ln]
            if rc != 2 or len(lines) != 1 or "Traceback" in said:
                finding("refusal", f"rc={rc} {said[-300:]}")
            if changed(before, after) or (tmp / "state/journal.json").exists():
                finding("refusal-wrote", ", ".join(changed(before, after)[:5]))
            found.append(f"{name} {path} refused-up-front: {lines[-1][-200:] if lines else ''}")
            return found
        time.sleep(mid_s)
        # A sensor that reads no temperature puts the board at its lowest caps once its 1 s grace
        # is over (the governor's failsafe): look again for up to 3 s before calling it uncapped.
        deadline = time.monotonic() + 3.0
        mid = snapshot(root)
        while (
            expect_capped
            and not any(k.endswith("max_freq") for k in changed(before, mid))
            and time.monotonic() < deadline
        ):
            time.sleep(0.2)
            mid = snapshot(root)
        mine = owned(tmp, root)
        mid_changed = changed(before, mid)
        outside = [k for k in mid_changed if k not in mine]
        if outside:
            finding("wrote-outside-owned", ", ".join(outside[:5]))
        if expect_capped and not any(k.endswith("max_freq") for k in mid_changed):
            finding("hot-board-not-capped", f"owned {sorted(mine)[:4]}")
        elif expect_capped:
            left = policies_left_at_top(before, mid, rules)
            if left:
                finding("policy-left-uncapped", ", ".join(left[:5]))
        err_head = ""
        if path == "sigterm":
            proc.send_signal(signal.SIGTERM)
        elif path == "sighup":  # a real reload: the unit's default policy, built for this board
            cfg.write_text(f'[run]\npolicy = "stepped"\n{run_lines}')
            proc.send_signal(signal.SIGHUP)
            ok, err_head = _read_until(proc, "reloaded", "stderr")
            if not ok:
                finding("reload", err_head[-300:])
                return found
            proc.send_signal(signal.SIGTERM)
        elif path == "kill9":
            proc.kill()
        _out, errb = proc.communicate(timeout=procutil.DEADLINE_S)
        err = err_head + errb.decode()
        if "Traceback" in err:
            finding("traceback", err[-400:])
        if path == "kill9":
            if not (tmp / "state/journal.json").exists():
                finding("no-journal-after-kill9", "nothing for restore to read")
            r = procutil.run_cli("restore", *base, env=env)
            if r.returncode != 0 or "Traceback" in r.stderr:
                finding("restore", f"rc={r.returncode} {r.stderr.strip()[-300:]}")
        elif proc.returncode != 0 and not (proc.returncode == 1 and "latest cap write failed" in err):
            # A domain whose every write the kernel refuses ends its run with exit 1 (session 30):
            # that verdict is the daemon's right answer; "hot-board-not-capped" says the rest.
            finding("exit-status", f"rc={proc.returncode} {err.strip()[-300:]}")
        left = changed(before, snapshot(root))
        if left:
            finding("not-restored", ", ".join(left[:6]))
        if (tmp / "state/journal.json").exists():
            finding("journal-left", err.strip()[-200:])
        return found
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def lifecycle(
    name: str,
    make: Callable[[Path], Rules],
    shim: Path,
    mid_s: float,
    extra: list[str],
    expect_capped: bool = True,
    run_lines: str = "",
) -> list[str]:
    """Every path on tree ``name``; a tree refused up front is judged once (its refusal)."""
    out: list[str] = []
    for path in PATHS:
        got = one_path(name, make, shim, path, mid_s, extra, expect_capped, run_lines)
        out += got
        if any(" refused-up-front: " in g for g in got):
            break
    return out
