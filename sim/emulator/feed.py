"""The emulated board's inferences as a workload: ``python -m thermogov.sim.emulator.feed ROOT``.

On a real board the daemon counts a workload's completions from its stdout (``--workload
cmd:"..."``, one line per inference).  On an emulated board nothing real runs; the simulated
inference server's running total is in ``ROOT/EMULATED_INFERENCES`` (written every emulator
step), and this program turns it into that protocol: one line per inference completed since
it started.  So ``thermogov run`` and ``thermogov ab`` measure the emulated board's throughput
through the very workload path they use on a board.  It exits when the tree is powered off or
its reader goes away.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from thermogov.sim.emulator.emulate import INFERENCES_FILE
from thermogov.sim.emulator.fakeboard import POWERED_OFF

POLL_S = 0.02


def _total(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def feed(root: Path) -> int:
    path = root / INFERENCES_FILE
    start = _total(path)
    last = start or 0
    while not (root / POWERED_OFF).exists():
        now = _total(path)
        if now is not None and now > last:
            if start is None:  # the emulator had not written yet: count from its first total
                start = last = now
                continue
            try:
                sys.stdout.write("\n" * (now - last))
                sys.stdout.flush()
            except BrokenPipeError:
                return 0
            last = now
        time.sleep(POLL_S)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m thermogov.sim.emulator.feed EMULATED_SYSFS_ROOT", file=sys.stderr)
        return 2
    return feed(Path(args[0]))


if __name__ == "__main__":
    raise SystemExit(main())
