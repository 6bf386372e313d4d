"""Run the real daemon against the emulated board and measure how calmly it governs.

Used by ``test_emulated_loop.py`` (``test_closed_loop.py`` takes only ``wait_for_line``): start
``thermogov emulate``, wait for its ``ready`` line, run ``thermogov run --sysfs-root`` for a
while, then read the daemon's own trace back.  The figures are the ones the emulator issue
asks about: cap changes per simulated minute, rungs moved per change on the policy's OPP
ladder, and time at or above the trip.
"""

from __future__ import annotations

import csv
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from thermogov.board import load_board
from thermogov.policies.ladder import build_ladder

THERMOGOV = [sys.executable, "-m", "thermogov.cli"]


def wait_for_line(proc: subprocess.Popen[str], needle: str, timeout_s: float = 60.0) -> str:
    """Read the child's stdout until a line containing ``needle`` (bounded, no fixed sleeps)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(deadline - time.monotonic(), 0.0))
        if not ready:
            break
        line = proc.stdout.readline()
        if not line:
            break
        if needle in line:
            return line
    try:
        status: int | None = proc.wait(timeout=10.0)  # stdout at EOF: the child is exiting
    except subprocess.TimeoutExpired:
        status = None
    if status is None:
        raise AssertionError(f"child never printed {needle!r} within {timeout_s:g} s")
    assert proc.stderr is not None
    raise AssertionError(
        f"child exited with {status} before printing {needle!r}: {proc.stderr.read()[-2000:]}"
    )


@dataclass(frozen=True)
class LoopStats:
    rows: list[dict[str, str]]
    sim_minutes: float
    changes: int
    max_rungs_per_change: int
    big_swings_outside_trip: int  # changes of half the ladder or more while under the trip
    time_above_trip_s: float
    max_fused_c: float

    @property
    def changes_per_min(self) -> float:
        return self.changes / self.sim_minutes if self.sim_minutes > 0 else 0.0


def loop_stats(trace: Path, board: str, speed: float, trip_c: float = 85.0) -> LoopStats:
    """Figures from a daemon trace; ``t_s`` is wall time, so simulated time is ``speed`` x it."""
    with trace.open() as fh:
        rows = list(csv.DictReader(fh))
    profile = load_board(board)
    names = [d.name for d in profile.domains]
    ladder = build_ladder(profile, {d.name: d.opp_hz for d in profile.domains})
    index = {tuple(r[n] for n in names): i for i, r in enumerate(ladder)}

    def rung(row: dict[str, str]) -> int | None:
        return index.get(tuple(int(row[f"{n}_cap_hz"]) for n in names))

    changes = 0
    worst = 0
    swings = 0
    above = 0.0
    prev = None
    for i, row in enumerate(rows):
        r = rung(row)
        fused = float(row["fused_c"]) if row["fused_c"] else float("nan")
        if i and fused >= trip_c:
            above += (float(row["t_s"]) - float(rows[i - 1]["t_s"])) * speed
        if prev is not None and r is not None and r != prev:
            changes += 1
            moved = abs(r - prev)
            worst = max(worst, moved)
            if moved >= len(ladder) // 2 and "trip" not in row["event"] and fused < trip_c:
                swings += 1
        if r is not None:
            prev = r
    span = (float(rows[-1]["t_s"]) - float(rows[0]["t_s"])) * speed / 60.0 if rows else 0.0
    fused_all = [float(r["fused_c"]) for r in rows if r["fused_c"]]
    return LoopStats(rows, span, changes, worst, swings, above, max(fused_all, default=float("nan")))


def govern_emulated(
    tmp: Path,
    *,
    board: str = "jetson-orin-nano",
    speed: float,
    run_s: float,
    initial_temp: float | None = None,
    policy: str | None = None,
    config_text: str | None = None,
    warm_up: str | None = None,
) -> tuple[LoopStats, subprocess.CompletedProcess[str]]:
    """The daemon governs the emulated ``board`` for ``run_s`` wall seconds at ``speed``."""
    root, out, state = tmp / "board", tmp / "out", tmp / "state"
    emu_cmd = [*THERMOGOV, "emulate", "--board", board, "--sysfs-root", str(root), "--speed", f"{speed:g}"]
    emu_cmd += ["--wall-duration", f"{run_s + 60:g}s"]
    if initial_temp is not None:
        emu_cmd += ["--initial-temp", f"{initial_temp:g}"]
    if warm_up is not None:
        emu_cmd += ["--warm-up", warm_up]
    emu = subprocess.Popen(emu_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_line(emu, "ready")
        cmd = [*THERMOGOV, "run", "--sysfs-root", str(root), "--duration", f"{run_s:g}s", "--out", str(out)]
        cmd += ["--state-dir", str(state), "--lock-file", str(tmp / "lock"), "--board", board]
        if policy is not None or config_text is not None:
            cfg = tmp / "config.toml"
            cfg.write_text((f'[run]\npolicy = "{policy}"\n' if policy else "") + (config_text or ""))
            cmd += ["--config", str(cfg)]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=run_s + 120)
    finally:
        emu.terminate()
        emu.wait(timeout=30)
    assert run.returncode == 0, run.stderr
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return loop_stats(run_dir / "trace.csv", board, speed), run
