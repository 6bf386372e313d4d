"""tinymembench is two loads: where its bandwidth tests end in an sbc-bench report (sim/calibration/membench.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from thermogov.board import BoardProfile, load_board
from thermogov.sim.calibration.data import load_log_data
from thermogov.sim.calibration.inputs import derive_inputs
from thermogov.sim.calibration.membench import (
    BASE_CYCLES,
    LATENCY_PHASE,
    split_phases,
    tinymembench_parts,
)

# 32 MiB at this speed is a 0.1 s pass: nuumio's loop runs 1 + 2 + 4 passes (0.7 s >= 0.5 s) after
# a warm-up pass, 0.8 s a measurement; ssvb's runs 16 passes per check (1.6 s) plus the warm-up, 1.7 s.
MBS = 32 * 1024 * 1024 / 0.1 / 1e6

NUUMIO = f"""tinymembench v0.4.9-nuumio (simple benchmark for memory throughput and latency)

CFLAGS:
bandwidth test min repeats (-b): 2
bandwidth test max repeats (-B): 3
bandwidth test mem realloc (-M): no      (-m for realloc)
      latency test repeats (-l): 3
        latency test count (-c): 1000000

==========================================================================
== Memory bandwidth tests                                               ==
==========================================================================

 C copy backwards                                 : {MBS:8.1f} MB/s (3, 9.3%)
 C copy                                           : {MBS:8.1f} MB/s (2)
 ---
 NEON LDP/STP copy                                : {MBS:8.1f} MB/s (3)

==========================================================================
== Memory latency test                                                  ==
==========================================================================

block size : single random read / dual random read
      1024 :    0.0 ns          /     0.0 ns
  67108864 :  100.0 ns          /   130.0 ns
"""

COLUMNS = "Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp"


def _section(name: str, first_s: int, temps: list[float]) -> str:
    """An sbc-bench monitor section, a row every 10 s from 19:48:00 + ``first_s``: the first row is
    printed as the benchmark starts (since-boot utilisation), the rest at one busy core of four."""
    rows = []
    for k, temp in enumerate(temps):
        s = first_s + 10 * k
        cpu = 5 if k == 0 else 25
        rows.append(
            f"19:{48 + s // 60:02d}:{s % 60:02d}: 1500/1500MHz  1.00 {cpu:3d}%   0% {cpu:3d}%   0%   0%   0%  {temp:.1f}°C"
        )
    return f"\nSystem health while running {name}:\n\n{COLUMNS}\n" + "\n".join(rows) + "\n"


MONITOR = (
    "\n##########################################################################\n"
    + _section("tinymembench", 0, [50.0, 52.0, 53.0, 53.5, 52.5])
    + _section("ramlat", 50, [52.0, 51.5, 51.0])
)

HEADER = "sbc-bench v0.9.8 Raspberry Pi 4 Model B Rev 1.4 (Fri, 07 Jan 2022 19:47:26 +1000)\n\n"
EXEC = "##########################################################################\n\nExecuting benchmark on cpu0 (Cortex-A72):\n\n"

CLOCK = 1.5e9
BASE_NS = BASE_CYCLES / CLOCK * 1e9  # 20 ns per single + dual read pair at 1.5 GHz
# nuumio: 3 + 2 + 3 measurements of 0.8 s; latency 3 repeats x 1e6 reads x (extra + base) per row
NUUMIO_BW = 8 * 0.8
NUUMIO_STALL = 3 * 1e6 * (0.0 + BASE_NS) * 1e-9 + 3 * 1e6 * (230.0 + BASE_NS) * 1e-9


def _report(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "sbcbench_pi4.txt"
    p.write_text(HEADER + EXEC + body + MONITOR, encoding="utf-8")
    return p


def test_the_parts_follow_nuumios_printed_repeats_count_and_loop() -> None:
    parts = tinymembench_parts(NUUMIO.splitlines(), CLOCK)
    assert parts is not None
    assert parts.bandwidth_s == pytest.approx(NUUMIO_BW, rel=1e-3)
    assert parts.stall_s == pytest.approx(NUUMIO_STALL, rel=1e-3)


def test_ssvbs_spread_means_every_repeat_ran_and_its_latency_defaults_apply() -> None:
    body = (
        "tinymembench v0.4.9 (simple benchmark for memory throughput and latency)\n\n"
        "== Memory bandwidth tests ==\n"
        f" C copy backwards                                     : {MBS:8.1f} MB/s (0.9%)\n"
        f" C copy                                               : {MBS:8.1f} MB/s\n"
        " NEON read (from framebuffer)                         :   1320.7 MB/s (0.3%)\n"
        "== Memory latency test ==\n"
        "block size : single random read / dual random read\n"
        "      1024 :    0.0 ns          /     0.0 ns \n"
        "  67108864 :  100.0 ns          /   130.0 ns \n"
    )
    parts = tinymembench_parts(body.splitlines(), CLOCK)
    assert parts is not None
    # 10 measurements where a spread is printed, 3 where it settled; 1.7 s each (16 passes + warm-up)
    assert parts.bandwidth_s == pytest.approx(13 * 1.7, rel=1e-3)
    # framebuffer: 10 x the 0.5 s floor; latency: an L1 row settles at 3 repeats, a DRAM row runs 10,
    # of 1e7 reads each
    lat = 3 * 1e7 * BASE_NS * 1e-9 + 10 * 1e7 * (230.0 + BASE_NS) * 1e-9
    assert parts.stall_s == pytest.approx(10 * 0.5 + lat, rel=1e-3)


def test_the_split_is_found_in_a_report_and_placed_at_the_bandwidth_share(tmp_path: Path) -> None:
    data = load_log_data(_report(tmp_path, NUUMIO))
    names = [n for n, _ in data.phases]
    assert names == ["tinymembench", LATENCY_PHASE, "ramlat"]
    start, split, end = (t for _, t in data.phases)
    share = NUUMIO_BW / (NUUMIO_BW + NUUMIO_STALL)
    assert split == pytest.approx(start + share * (end - start), rel=1e-3)
    assert start < split < end


def _with_activity(board: BoardProfile, activity: tuple[tuple[str, float], ...]) -> BoardProfile:
    domains = tuple(dataclasses.replace(d, workload_activity=activity) for d in board.domains)
    return dataclasses.replace(board, domains=domains)


def test_a_factor_for_the_latency_part_weighs_only_the_rows_after_the_split(tmp_path: Path) -> None:
    data = load_log_data(_report(tmp_path, NUUMIO))
    board = load_board("rpi4")
    plain = derive_inputs(data, _with_activity(board, ()))
    weighed = derive_inputs(data, _with_activity(board, ((LATENCY_PHASE, 0.5),)))
    ratio = weighed.load["cpu"] / np.where(plain.load["cpu"] > 0, plain.load["cpu"], 1.0)
    (_, split), (_, end) = data.phases[1], data.phases[2]
    stall = (data.t_s > split) & (data.t_s <= end)
    assert stall.any() and (~stall).any()
    assert np.allclose(ratio[stall & (plain.load["cpu"] > 0)], 0.5)
    assert np.allclose(ratio[~stall], 1.0)


@pytest.mark.parametrize(
    "body",
    [
        NUUMIO + "\nExecuting benchmark on cpu4 (Cortex-A76):\n\n" + NUUMIO,  # one run per cluster
        NUUMIO.split("== Memory latency test")[0],  # no latency table printed
        "",  # no tinymembench output at all
    ],
)
def test_no_split_where_the_report_does_not_show_one_run_with_both_parts(tmp_path: Path, body: str) -> None:
    data = load_log_data(_report(tmp_path, body))
    assert [n for n, _ in data.phases] == ["tinymembench", "ramlat"]


def test_a_phase_list_without_a_next_section_is_left_alone() -> None:
    phases = (("tinymembench", 0.0),)
    assert split_phases(phases, NUUMIO.splitlines(), CLOCK) == phases


def test_the_latency_part_takes_its_own_factor_whichever_order_a_profile_names_them() -> None:
    from thermogov.sim.calibration.activity import factor_per_row

    t = np.arange(6.0) * 10.0
    phases = (("tinymembench", 0.0), (LATENCY_PHASE, 20.0), ("ramlat", 40.0))
    for activity in ({"tinymembench": 1.5, LATENCY_PHASE: 0.5}, {LATENCY_PHASE: 0.5, "tinymembench": 1.5}):
        out = factor_per_row(t, phases, activity)
        assert out is not None
        assert list(out) == [1.0, 1.5, 1.5, 0.5, 0.5, 1.0]
