"""What the record of thermogov's last caps (hw/lastcaps.py) adds to one cap change, side by side.

One process, one fake Orin Nano tree on tmpfs (``/dev/shm`` when there is one, as sysfs is in
memory), the daemon's own ``CapActuator`` for the CPU domain (two policies) and the GPU.  Each
round alternates the caps between two OPPs, once without a record and once with the record
the daemon keeps (a ``pwrite`` per change, no fsync), in alternating order so load drifts hit
both sides alike.  Printed: the median and p90 microseconds per change of each side, and the
difference of the medians.  Timing on a shared machine: run it next to ``uptime``.

    python bench/cap_record_cost.py [--rounds 400]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.hw.fakesys import orin_nano  # noqa: E402
from thermogov.board import load_board  # noqa: E402
from thermogov.hw.devices import NO_RECORD, CapActuator  # noqa: E402
from thermogov.hw.discovery import discover  # noqa: E402
from thermogov.hw.lastcaps import LastCaps  # noqa: E402
from thermogov.hw.mapping import map_board  # noqa: E402
from thermogov.hw.sysfs import SysfsTree  # noqa: E402


def _changes_us(actuators: list[CapActuator], rounds: int) -> list[float]:
    """Microseconds per cap change (one domain's apply), alternating its two top OPPs."""
    out = []
    for i in range(rounds):
        for a in actuators:
            cap = a.table_hz[-1 - (i % 2)]
            t0 = time.perf_counter()
            a.apply(cap)
            out.append((time.perf_counter() - t0) * 1e6)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=400, help="Alternations per side and block.")
    ap.add_argument("--blocks", type=int, default=10, help="Blocks of rounds, sides alternating.")
    args = ap.parse_args()
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(prefix="capcost-", dir=base) as d:
        fake = orin_nano(Path(d) / "root", cpu_mc=60000, gpu_mc=60000)
        tree = SysfsTree(fake.root)
        bmap = map_board(discover(tree), load_board("jetson-orin-nano"))
        actuators = [CapActuator.open(tree, b) for b in bmap.domains]
        record = LastCaps.create(tree, "bench", Path(d) / "board-x.lock", print)
        assert record is not None
        sides: dict[str, list[float]] = {"without": [], "with": []}
        for block in range(args.blocks):
            order = ("without", "with") if block % 2 == 0 else ("with", "without")
            for side in order:
                for a in actuators:
                    a.record = record if side == "with" else NO_RECORD
                sides[side].extend(_changes_us(actuators, args.rounds))
        record.discard()
        tree.close()
    for side, xs in sides.items():
        xs.sort()
        print(
            f"{side:>8} the record: median {statistics.median(xs):6.1f} us, "
            f"p90 {xs[int(0.9 * len(xs))]:6.1f} us per cap change ({len(xs)} changes)"
        )
    diff = statistics.median(sides["with"]) - statistics.median(sides["without"])
    print(f"the record adds {diff:+.1f} us per cap change (median); load: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
