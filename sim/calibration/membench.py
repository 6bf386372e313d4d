"""Where tinymembench's bandwidth tests end inside an sbc-bench report: tinymembench is two loads.

sbc-bench runs tinymembench once per CPU cluster (``taskset -c <cpu> tinymembench``), its output
going to a temporary file that is appended to the report only when it ends; the monitor beside it
(``sbc-bench -m 90`` in the older script, ``-m $((40 * clusters))`` later, ~10 s on the Pi 5
reports) prints rows with no word of which test runs (ThomasKaiser/sbc-bench ``sbc-bench.sh``,
``RunTinyMemBench``).  So the report holds no timestamp for the latency test's start.  tinymembench
itself runs its bandwidth tests first, then (ARM, with a framebuffer) the framebuffer read tests, then
the latency test (ssvb/tinymembench and nuumio/tinymembench ``main.c``: ``bandwidth_bench``, then
``latency_bench``).  The first part streams through SDRAM at full speed; the rest waits on single
uncached or random reads, and draws far less (the Pi 5 reports' ``PMIC`` column drops to ramlat's
level in the section's last row; docs/calibration.md, *Seventeenth session: the memory-bound phases*).

What each test costs in time follows from what the report prints, by the programs' own loops:

* a bandwidth line ``NAME : X MB/s`` ran ``repeats`` measurements; one measurement calls the test
  once to warm up, then repeats whole 32 MiB passes (``SIZE``) until 0.5 s have passed; a pass takes
  ``τ = SIZE / X``.  ssvb's loop does 16 passes per check (``COUNT``); nuumio's doubles the passes
  per check (1, 2, 4 ...).  The repeats: nuumio prints them (``(3, 9.3%)``, ``(2)``); ssvb prints a
  spread only when it never settled (all ``MAXREPEATS`` = 10 ran), else it stopped at its third.
* a framebuffer line: its buffer size is not printed, so each measurement counts its 0.5 s floor.
* a latency row ``SIZE : a ns / b ns`` ran ``repeats`` × (one single-read pass + one dual-read pass)
  of ``count`` reads, each pass taking ``count · (extra + base)`` where ``extra`` is the printed
  figure and ``base`` the address generator's own time per read, which the program subtracts and
  does not print (estimated from its dependent instruction chain: ``BASE_CYCLES`` at the logged clock).
  ssvb stops a row after its third repeat once stable, so a row whose reads all hit L1 (0.0 ns both)
  counts 3 repeats, the rest the maximum.  nuumio prints its ``-c`` count and ``-l`` repeats.

The report's own times place the split: the bandwidth share of the estimated time, laid over the
section as the monitor saw it (first row to the next section's first row).  Only the share is used,
not the seconds, so a clock or a timer that runs every estimate long or short by one factor moves
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SIZE_B = 32 * 1024 * 1024  # tinymembench's bandwidth buffer (``SIZE``)
MIN_RUN_S = 0.5  # one measurement runs passes until this much time has passed
SSVB_COUNT = 16  # passes per time check in ssvb's loop (``COUNT``)
SSVB_MAX_REPEATS, SSVB_MIN_REPEATS = 10, 3  # ``MAXREPEATS``; the settle check from the third on
SSVB_LAT_REPEATS, SSVB_LAT_COUNT = 10, 10_000_000  # ``latency_bench(SIZE * 2, 10000000)``, 10 repeats
# The address generator's own time per read, single + dual pass: three (single) and five (dual)
# dependent multiply-adds plus an L1 load and the combine, ~30 cycles for the pair on a Cortex-A72/A76
# (multiply-accumulate latency 3-4, load-to-use 4: the cores' software optimisation guides).
BASE_CYCLES = 30.0
LATENCY_PHASE = "tinymembench latency"  # the second part's phase name (``LogData.phases``)

_BW = re.compile(r"^\s*(?P<name>\S.*?)\s*:\s*(?P<mbs>[\d.]+) MB/s(?:\s*\((?P<paren>[^)]*)\))?\s*$")
_LAT = re.compile(r"^\s*\d+ :\s*(?P<a>[\d.]+) ns\s*/\s*(?P<b>[\d.]+) ns")
_PARAM = re.compile(
    r"^\s*(?P<key>bandwidth test max repeats|latency test repeats|latency test count)\b.*:\s*(\d+)"
)


@dataclass(frozen=True)
class Parts:
    """tinymembench's estimated seconds: the bandwidth tests, and what follows them (the stall part)."""

    bandwidth_s: float
    stall_s: float

    @property
    def bandwidth_share(self) -> float:
        return self.bandwidth_s / (self.bandwidth_s + self.stall_s)


def _pass_time_s(tau: float, nuumio: bool) -> float:
    """One measurement: a warm-up pass, then passes until ``MIN_RUN_S`` (checked per batch)."""
    if tau <= 0.0:
        return MIN_RUN_S
    done = 0.0
    batch = 1 if nuumio else SSVB_COUNT
    while done * tau < MIN_RUN_S:
        done += batch
        if nuumio:
            batch *= 2
    return (done + 1.0) * tau


def _repeats(paren: str | None, nuumio: bool, max_repeats: int) -> int:
    if paren is None:
        return SSVB_MIN_REPEATS
    head = paren.split(",")[0].strip()
    if nuumio and head.isdigit():
        return int(head)
    return max_repeats if paren.strip().endswith("%") else SSVB_MIN_REPEATS


def tinymembench_parts(lines: Sequence[str], clock_hz: float) -> Parts | None:
    """The estimated bandwidth and stall seconds of the one tinymembench run in ``lines`` (a
    report's text), or None when there is no run, more than one (one per cluster: their order and
    clocks differ), or a part the output does not show."""
    starts = [i for i, s in enumerate(lines) if s.startswith("tinymembench v")]
    if len(starts) != 1 or clock_hz <= 0.0:
        return None
    nuumio = "nuumio" in lines[starts[0]]
    max_rep, lat_rep, lat_count = SSVB_MAX_REPEATS, SSVB_LAT_REPEATS, SSVB_LAT_COUNT
    bw = stall = 0.0
    in_latency = False
    base_s = BASE_CYCLES / clock_hz
    for s in lines[starts[0] + 1 :]:
        if s.startswith("#####"):
            break
        p = _PARAM.match(s)
        if p:
            v = int(p.group(2))
            if p.group("key").startswith("bandwidth"):
                max_rep = v
            elif p.group("key").endswith("repeats"):
                lat_rep = v
            else:
                lat_count = v
            continue
        if "Memory latency test" in s:
            in_latency = True
        m = _BW.match(s)
        if m and not in_latency:
            mbs = float(m.group("mbs"))
            reps = _repeats(m.group("paren"), nuumio, max_rep)
            if "framebuffer" in m.group("name"):
                stall += reps * MIN_RUN_S
            else:
                bw += reps * _pass_time_s(SIZE_B / (mbs * 1e6) if mbs > 0 else 0.0, nuumio)
            continue
        m = _LAT.match(s)
        if m and in_latency:
            a, b = float(m.group("a")), float(m.group("b"))
            reps = lat_rep if nuumio or a > 0.0 or b > 0.0 else SSVB_MIN_REPEATS
            stall += reps * lat_count * ((a + b) * 1e-9 + base_s)
    if bw <= 0.0 or stall <= 0.0:
        return None
    return Parts(bw, stall)


def split_phases(
    phases: Sequence[tuple[str, float]], lines: Sequence[str], clock_hz: float
) -> tuple[tuple[str, float], ...]:
    """``phases`` with tinymembench's stall part as a phase of its own (``LATENCY_PHASE``), placed
    at the bandwidth share of the section's monitored span; unchanged where the report shows no
    single tinymembench run with both parts, or the section has no next phase to end it."""
    out = tuple(phases)
    idx = [i for i, (name, _t) in enumerate(out) if name.lower() == "tinymembench"]
    if len(idx) != 1 or idx[0] + 1 >= len(out):
        return out
    parts = tinymembench_parts(lines, clock_hz)
    if parts is None:
        return out
    i = idx[0]
    start, end = out[i][1], out[i + 1][1]
    split = start + parts.bandwidth_share * (end - start)
    return (*out[: i + 1], (LATENCY_PHASE, split), *out[i + 1 :])


def section_clock_hz(
    phases: Sequence[tuple[str, float]], t_s: np.ndarray, freq_hz: np.ndarray | None
) -> float:
    """The CPU's median logged clock over the tinymembench section (0 when the log has none)."""
    idx = [i for i, (name, _t) in enumerate(phases) if name.lower() == "tinymembench"]
    if freq_hz is None or len(idx) != 1 or idx[0] + 1 >= len(phases):
        return 0.0
    start, end = phases[idx[0]][1], phases[idx[0] + 1][1]
    f = freq_hz[(t_s >= start) & (t_s <= end)]
    return float(np.nanmedian(f)) if np.isfinite(f).any() else 0.0
