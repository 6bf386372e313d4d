"""A 1 Hz synthetic log thinned to an sbc-bench report: shared by the section-start tests."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from thermogov.board import load_board
from thermogov.importers.common import ImportedLog
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.steptest import step_log


def sbcbench_like(log: ImportedLog, starts: bool, every_s: int, start_s: float) -> ImportedLog:
    """Every ``every_s``-th reading; a row's load is the mean since the row before; the row at
    ``start_s`` (where a benchmark starts) has none, as sbc-bench's section's first line."""
    samples = []
    for s in log.samples:
        if s.t_s % every_s:
            continue
        loads = {} if s.t_s == start_s else dict(s.loads)
        samples.append(dataclasses.replace(s, loads=loads))
    return dataclasses.replace(log, fmt="sbc-bench", samples=tuple(samples), load_starts_at_gaps=starts)


def sbcbench_runs(
    tmp: pytest.TempPathFactory, load_s: float, every_s: int, start_s: float
) -> dict[bool, Path]:
    """Run folders of the profile's own ``rpi4`` stepping to full load at ``start_s`` (exactly at a
    sample, as a benchmark started with its monitor), thinned as :func:`sbcbench_like`; by whether
    the report says its rows start sections (``load_starts_at_gaps``)."""
    log = step_log(
        load_board("rpi4"),
        idle_s=start_s,
        load_s=load_s,
        cool_s=0.0,
        noise_c=0.05,
        quant_c=0.1,
        edge_lead_s=0.0,
    )
    return {
        starts: write_run_folder(
            sbcbench_like(log, starts, every_s, start_s), tmp.mktemp(f"starts{starts}")
        ).run_dir
        for starts in (True, False)
    }
