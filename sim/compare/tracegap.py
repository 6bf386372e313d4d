"""Where one run loses to another, tick by tick, on the same world and seed.

The bench says *how much* a policy trails another (rpi5-steady-25: ``stepped`` 0.14 % under the
Pi's firmware alone, session 22b); a paired pair of traces says *where*.  Two runs of one world
and seed see the same noise and requests, so their clocks are identical until a decision
differs.  This module lines the two ``trace.csv`` up row by row and books every tick's change in
the inference gap (A − B, cumulative counts) to what the clocks did over that tick:

* ``same clocks``: every domain ran the same clock in both runs (a gap that moves here is the
  queue carrying an earlier difference, not a decision);
* ``cap under B's clock``: A ran slower on some domain *and* A's own cap was under the clock B ran
  there (A's policy took the clock away; B's world, firmware included, would have run it);
* ``slower otherwise``: A ran slower with its cap at or over B's clock (the board or firmware ran
  A slower: its thermal history differs);
* ``faster``: A ran faster on some domain and slower on none.

The completions counted at a row were made under the clocks in force from the previous row (a
row holds the caps and clocks *after* its decision), so each increment is booked to the previous
row's kind.  The split is exact (the kinds sum to the total), and the steady window's share is
given apart, since that is what the bench scores.  No pandas: the trace is read with :mod:`csv`.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SAME, UNDER, SLOWER, FASTER = "same clocks", "cap under B's clock", "slower otherwise", "faster"
KINDS = (SAME, UNDER, SLOWER, FASTER)


@dataclass(frozen=True)
class Trace:
    """The columns of a ``trace.csv`` this comparison reads."""

    t_s: np.ndarray
    fused_c: np.ndarray  # NaN where no sensor was fresh
    inferences: np.ndarray
    freq_hz: dict[str, np.ndarray]
    cap_hz: dict[str, np.ndarray]
    state: list[str]


def _num(text: str) -> float:
    return float(text) if text else float("nan")


def load_trace(run_dir: Path) -> Trace:
    """A run folder's ``trace.csv``; a trace without inference counts cannot be compared."""
    path = Path(run_dir) / "trace.csv"
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        names = reader.fieldnames or []
        domains = [c[: -len("_freq_hz")] for c in names if c.endswith("_freq_hz")]
        rows = list(reader)
    if "inferences_total" not in names or any(not r["inferences_total"] for r in rows):
        raise ValueError(f"{path}: no inferences_total on every row; a gap needs the counts")
    return Trace(
        t_s=np.array([float(r["t_s"]) for r in rows]),
        fused_c=np.array([_num(r["fused_c"]) for r in rows]),
        inferences=np.array([float(r["inferences_total"]) for r in rows]),
        freq_hz={d: np.array([_num(r[f"{d}_freq_hz"]) for r in rows]) for d in domains},
        cap_hz={d: np.array([_num(r[f"{d}_cap_hz"]) for r in rows]) for d in domains},
        state=[r.get("policy_state", "") for r in rows],
    )


@dataclass(frozen=True)
class Gap:
    """A's run against B's: where the clocks first differ and the gap per kind of tick."""

    first_diff_s: float | None  # first row whose clocks differ; None: never
    last_diff_s: float | None
    ticks: dict[str, int]  # rows of each kind
    stretches: int  # runs of consecutive rows whose clocks differ
    gap: dict[str, float]  # A − B inferences booked to each kind, whole run
    gap_window: dict[str, float]  # the same over the steady window
    window_b: float  # B's completions in the window (the base of the window's share)
    states_under: dict[str, int]  # A's policy states on its ``cap under`` rows
    fused_diff_a: float  # A's mean fused reading on the differing rows (NaN: none)
    fused_diff_b: float

    @property
    def total(self) -> float:
        return sum(self.gap.values())

    @property
    def window_total(self) -> float:
        return sum(self.gap_window.values())


def kinds(a: Trace, b: Trace) -> list[str]:
    """Each row's kind (module docstring); the traces must share their ticks and domains."""
    if len(a.t_s) != len(b.t_s) or not np.allclose(a.t_s, b.t_s):
        raise ValueError("the two traces do not share their ticks: run them on one world and seed")
    if a.freq_hz.keys() != b.freq_hz.keys():
        raise ValueError("the two traces do not share their frequency domains")
    n = len(a.t_s)
    slower = np.zeros(n, bool)
    under = np.zeros(n, bool)
    faster = np.zeros(n, bool)
    for d in a.freq_hz:
        fa, fb = a.freq_hz[d], b.freq_hz[d]
        s = fa < fb
        slower |= s
        under |= s & (a.cap_hz[d] < fb)
        faster |= fa > fb
    return [
        UNDER if u else SLOWER if s else FASTER if f else SAME
        for u, s, f in zip(under, slower, faster, strict=True)
    ]


def trace_gap(a: Trace, b: Trace, window_s: tuple[float, float]) -> Gap:
    """A against B, the steady window ``window_s`` (``[start, end]``, the summary's) apart."""
    kind = kinds(a, b)
    diff = np.diff(a.inferences - b.inferences)
    booked = kind[:-1]  # completions at row i were made under row i-1's clocks
    in_window = (a.t_s[1:] > window_s[0]) & (a.t_s[1:] <= window_s[1])
    gap = dict.fromkeys(KINDS, 0.0)
    gap_window = dict.fromkeys(KINDS, 0.0)
    for k, d, w in zip(booked, diff, in_window, strict=True):
        gap[k] += float(d)
        if w:
            gap_window[k] += float(d)
    differ = np.array([k != SAME for k in kind])
    rows = np.flatnonzero(differ)
    starts = int(differ[0]) + int(np.count_nonzero(differ[1:] & ~differ[:-1])) if len(differ) else 0
    win_rows = np.flatnonzero((b.t_s >= window_s[0]) & (b.t_s <= window_s[1]))
    window_b = float(b.inferences[win_rows[-1]] - b.inferences[win_rows[0]]) if len(win_rows) else 0.0
    return Gap(
        first_diff_s=float(a.t_s[rows[0]]) if len(rows) else None,
        last_diff_s=float(a.t_s[rows[-1]]) if len(rows) else None,
        ticks=dict(Counter(kind)),
        stretches=starts,
        gap=gap,
        gap_window=gap_window,
        window_b=window_b,
        states_under=dict(Counter(s for s, k in zip(a.state, kind, strict=True) if k == UNDER)),
        fused_diff_a=float(np.nanmean(a.fused_c[rows])) if len(rows) else float("nan"),
        fused_diff_b=float(np.nanmean(b.fused_c[rows])) if len(rows) else float("nan"),
    )


def gap_lines(g: Gap, label_a: str, label_b: str) -> list[str]:
    """The comparison as text: where the clocks first differ, then the gap by kind of tick."""
    if g.first_diff_s is None:
        return [
            f"  {label_a} and {label_b}: the same clocks on every tick; A − B = {g.total:+.0f} inferences"
        ]
    pct = 100.0 * g.window_total / g.window_b if g.window_b else float("nan")
    lines = [
        f"  clocks identical until {g.first_diff_s:.1f} s; {sum(n for k, n in g.ticks.items() if k != SAME)} "
        f"ticks differ in {g.stretches} stretches up to {g.last_diff_s:.1f} s "
        f"(fused mean there {label_a} {g.fused_diff_a:.2f} / {label_b} {g.fused_diff_b:.2f} °C)",
        f"  {label_a} − {label_b}: {g.total:+.0f} inferences over the run, {g.window_total:+.0f} in the "
        f"steady window ({pct:+.3f} % of {label_b}'s {g.window_b:.0f})",
    ]
    for k in KINDS:
        if g.ticks.get(k, 0) or g.gap[k]:
            lines.append(
                f"    {k}: {g.ticks.get(k, 0)} ticks, {g.gap[k]:+.0f} inferences ({g.gap_window[k]:+.0f} in the window)"
            )
    if g.states_under:
        top = ", ".join(f"{s} {n}" for s, n in sorted(g.states_under.items(), key=lambda x: -x[1])[:4])
        lines.append(f"    {label_a}'s states while its cap was under {label_b}'s clock: {top}")
    return lines


__all__ = ["KINDS", "Gap", "Trace", "gap_lines", "kinds", "load_trace", "trace_gap"]
