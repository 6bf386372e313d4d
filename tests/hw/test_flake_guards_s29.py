"""Test helpers that must hold on a loaded machine and any file system (session 29k).

The fault shim (tests/hw/faultshim.c) re-reads its rules file when the file's mtime changes.
A file system stamps times from a clock that ticks once a jiffy on kernels before 6.13's
multigrain timestamps (https://docs.kernel.org/filesystems/multigrain-ts.html), so two
rewrites of the rules within one tick must still leave different stamps, or a child keeps
the old faults.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.hw import faultshim


def test_rules_rewritten_within_one_clock_tick_still_look_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tick = time.time_ns() // 4_000_000 * 4_000_000  # the stamp of one 4 ms jiffy (HZ=250)
    real_replace = os.replace

    def coarse(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        real_replace(src, dst)
        os.utime(dst, ns=(tick, tick))  # every rewrite lands inside the same tick

    monkeypatch.setattr(faultshim.os, "replace", coarse)
    rules = tmp_path / "faults"
    stamps = []
    for each in ([], [("scaling_max_freq", "w", 16)], [("scaling_min_freq", "r", 5)]):
        faultshim.write_rules(rules, each)
        stamps.append(rules.stat().st_mtime_ns)
    # main: each rewrite stamped tick + 1 ms, the shim saw no change after the first
    assert len(set(stamps)) == len(stamps), stamps
    assert stamps == sorted(stamps)
    assert rules.read_text() == "scaling_min_freq r 5\n"
