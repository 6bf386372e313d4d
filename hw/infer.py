"""The builtin inference stand-in, run as ``python -m thermogov.hw.infer`` by the daemon.

A fixed, seeded numpy network (a 3x3 convolution over a 32x32x16 feature map written as
im2col + matmul, global pooling, two dense layers) on one core.  Every ~100 ms it prints the
cumulative number of forward passes on stdout; the daemon reads the last number.  Printing a
running total ten times a second costs the daemon nothing measurable, unlike a line per
inference.  When the daemon dies the pipe breaks and this process exits on its own, so even
``kill -9`` of the daemon leaves no orphan burning the CPU.

numpy is imported here only: the daemon process must stay lean.
"""

from __future__ import annotations

import os
import signal
import sys
import time

SEED = 20240601
REPORT_EVERY_S = 0.1


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the daemon, which stops us
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"  # one core, like a camera pipeline's inference thread
    import numpy as np

    rng = np.random.default_rng(SEED)
    patches = rng.standard_normal((1024, 3 * 3 * 16), dtype=np.float32)
    w_conv = rng.standard_normal((3 * 3 * 16, 32), dtype=np.float32) * 0.1
    w_fc1 = rng.standard_normal((32, 64), dtype=np.float32) * 0.2
    w_fc2 = rng.standard_normal((64, 10), dtype=np.float32) * 0.2
    done = 0
    next_report = time.monotonic()
    out = sys.stdout
    while True:
        fmap = np.maximum(patches @ w_conv, 0.0)
        logits = np.maximum(fmap.mean(axis=0) @ w_fc1, 0.0) @ w_fc2
        int(np.argmax(logits))
        done += 1
        now = time.monotonic()
        if now >= next_report:
            next_report = now + REPORT_EVERY_S
            try:
                out.write(f"{done}\n")
                out.flush()
            except BrokenPipeError:
                # The daemon is gone; point stdout at /dev/null so the exit flush stays quiet.
                os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
                return 0


if __name__ == "__main__":
    raise SystemExit(main())
