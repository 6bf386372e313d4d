"""Static against dynamic batching on every board profile: throughput and p50/p99 latency.

The design notes claim that dynamic batching takes a server from 85 to 42 ms and from 12,000
to 23,500 QPS.  This prints what it does on our boards.  For each board, Poisson arrivals at a
share of the board's batch-1 capacity at its top clocks (light, busy, near saturation, and
overloaded), governed by the default policy from the idle steady state at 25 °C, once with a
static batcher (batch ``--batch`` filled or ``--wait-ms`` elapsed) and once with the dynamic
batcher (size from the queue depth, up to the same batch and wait), on the same seed: the same
arrivals and the same per-request work, so each pair differs by the batcher alone.

    python bench/batching.py [--seconds 300] [--batch 8] [--wait-ms 20] [--board NAME ...]

The ratio columns are dynamic / static; the ``b=1`` columns are no batching at all (static
batch 1), the baseline a batcher's throughput gain is measured against.  A board whose profile has no per-batch cost (every
CPU-only board, and the Jetsons other than the Orin Nano, see docs/workload.md) cannot gain
throughput from batching at all: there the dynamic batcher's whole effect is shorter waits.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from thermogov import costmodel  # noqa: E402
from thermogov.board import builtin_board_names, load_board  # noqa: E402
from thermogov.config import Config, WorkloadConfig  # noqa: E402
from thermogov.sim.model.runner import simulate  # noqa: E402

LOADS = (0.3, 0.7, 0.95, 1.3)  # shares of the batch-1 capacity at the top clocks


def _run(
    board: str, rate: float, batching: str, args: argparse.Namespace, batch: int | None = None
) -> dict[str, float]:
    wl = WorkloadConfig(
        kind="poisson",
        rate_ips=rate,
        batch_size=args.batch if batch is None else batch,
        max_wait_ms=args.wait_ms,
        batching=batching,
        queue_limit=256,
    )
    cfg = Config(board=board, seed=args.seed)
    cfg = dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, duration_s=args.seconds, workload=wl))
    with tempfile.TemporaryDirectory(prefix="thermogov-batching-") as tmp:
        s = simulate(cfg, out_dir=tmp).summary  # the recorder measures the steady window
    lat = s["latency_ms"]["total"]
    return {
        "ips": s["sustained_throughput_ips"],
        "p50": lat["p50"],
        "p99": lat["p99"],
        "batch": s["batching"]["mean_batch"] or 0.0,
        "dropped": s["dropped_requests"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=300.0)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--wait-ms", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--board", action="append", help="board profile (default: all)")
    args = ap.parse_args()
    boards = args.board or builtin_board_names()
    print(
        f"Poisson arrivals, default policy, {args.seconds:g} s, batch <= {args.batch}, wait <= {args.wait_ms:g} ms"
    )
    head = (
        f"{'board':<18} {'load':>5} {'rate':>7} | {'b=1 inf/s':>9} {'p50':>7} {'p99':>7} | {'static inf/s':>12} {'p50':>7} {'p99':>7} {'batch':>5} | "
        f"{'dynamic inf/s':>13} {'p50':>7} {'p99':>7} {'batch':>5} | {'ips x':>6} {'p50 x':>6} {'p99 x':>6}"
    )
    print(head)
    for name in boards:
        b = load_board(name)
        top = {d.name: d.opp_hz[-1] for d in b.domains if d.name in b.model.cycles}
        cap = 1.0 / costmodel.inference_time_s(b.model, top)
        for share in LOADS:
            rate = share * cap
            one = _run(name, rate, "static", args, batch=1)
            st, dy = (_run(name, rate, m, args) for m in ("static", "dynamic"))
            print(
                f"{name:<18} {share:>5.2f} {rate:>7.1f} | {one['ips']:>9.1f} {one['p50']:>7.1f} {one['p99']:>7.1f} "
                f"| {st['ips']:>12.1f} {st['p50']:>7.1f} {st['p99']:>7.1f} "
                f"{st['batch']:>5.2f} | {dy['ips']:>13.1f} {dy['p50']:>7.1f} {dy['p99']:>7.1f} {dy['batch']:>5.2f} | "
                f"{dy['ips'] / st['ips']:>6.3f} {dy['p50'] / st['p50']:>6.3f} {dy['p99'] / st['p99']:>6.3f}"
            )


if __name__ == "__main__":
    main()
