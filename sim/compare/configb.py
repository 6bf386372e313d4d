"""``thermogov compare --config-b FILE``: every policy also under a second whole config, paired.

The simulated counterpart of ``thermogov ab --config-b`` (:mod:`thermogov.hw.abarms`).  The rule
for which sections are the world and which the governor is the one a scenario already applies
to ``--config`` (:func:`thermogov.sim.scenarios.scenario_from_data`): the scenario's ``[run]``
keys (the board) and its whole ``[sim]`` table are the world; everything else the base file
gives (``[governor]``, ``[sensors]``, ``[policies]``, ``[power]``, ``[lever]``, ``[fan]``,
``[modes]``) is the governor.  So arm A is the scenario over ``--config`` (or the defaults) and
arm B the same scenario over ``--config-b``, with the same seed: the simulator draws arrivals,
service and sensor noise from streams spawned from that seed, so A and B see the same frames
and noise and their difference is the configs' doing.  A world that still differs (a scenario
that names no board, so each file's own board would run) is refused before anything runs.

The unit of the statistics is the seed: ``d_s`` = A's minus B's sustained throughput on seed
``s`` of one world (scenario and batcher).  The report is the mean of ``d`` with the two-sided
95 % Student-t half-width and its extremes, the same :class:`~thermogov.sim.compare.seedset.Spread`
that ``thermogov race`` reports its paired per-seed margins with; one seed gives no interval.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.sim.compare.compare import RunRow
from thermogov.sim.compare.seedset import Spread

DEFAULTS_TAG = "defaults"


def tags(config_a: Config, config_b: Config) -> tuple[str, str]:
    """Each arm's tag: its file's name (``defaults`` without ``--config``), the whole path when the
    two names are the same (as ``ab --config-b`` labels its arms)."""
    a = Path(config_a.source).name if config_a.source else DEFAULTS_TAG
    b = Path(config_b.source).name
    if a == b:
        return config_a.source or DEFAULTS_TAG, config_b.source
    return a, b


def check_same_world(label: str, a: Config, b: Config, source_b: str) -> None:
    """Refuse a pair whose worlds differ: then the difference would not be the configs' doing."""
    for name, va, vb in (
        ("run.board", a.board, b.board),
        ("run.board_file", a.board_file, b.board_file),
        ("sim", a.sim, b.sim),
    ):
        if va != vb:
            raise ConfigError(
                f"--config-b: {source_b}: {name} gives {label} another world than --config; "
                f"the scenario sets the world, so remove {name} from one of the files"
            )


def tagged(rows: Sequence[RunRow], tag: str) -> list[RunRow]:
    """``rows`` with each policy labelled by its arm's config (``stepped [b.toml]``)."""
    return [dataclasses.replace(r, policy=f"{r.policy} [{tag}]") for r in rows]


def interleave(rows_a: Sequence[RunRow], rows_b: Sequence[RunRow]) -> list[RunRow]:
    """Each A row followed by its B row (same world, seed and policy; the grids run in one order)."""
    out: list[RunRow] = []
    for a, b in zip(rows_a, rows_b, strict=True):
        out.extend((a, b))
    return out


#: The figures differenced besides throughput: the row attribute, its printed label, digits and
#: scale (energy prints in mJ as compare's table does; the JSON keeps the row's unit, J).
#: Time above the trip is what a tuning change may buy its throughput with, energy per inference
#: what it may cost; a change is judged on all three, paired the same way.
OTHER_METRICS: tuple[tuple[str, str, int, float], ...] = (
    ("above_trip_s", "s above trip", 2, 1.0),
    ("energy_per_inference_j", "mJ/inference", 2, 1000.0),
)


@dataclass(frozen=True, slots=True)
class Diff:
    """One figure of one policy on one world: A's and B's means and the per-seed A - B over the
    seeds where both runs have the figure (a run without a steady window has no energy figure)."""

    seeds: tuple[int, ...]
    mean_a: float
    mean_b: float
    diff: Spread

    @staticmethod
    def of(cell: Sequence[tuple[int, float | None, float | None]]) -> Diff | None:
        both = [(s, a, b) for s, a, b in cell if a is not None and b is not None]
        diff = Spread.of([a - b for _, a, b in both])
        if diff is None:
            return None
        n = len(both)
        return Diff(
            tuple(s for s, _, _ in both),
            sum(a for _, a, _ in both) / n,
            sum(b for _, _, b in both) / n,
            diff,
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "seeds": list(self.seeds),
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "diff": self.diff.mean,
            "half_width": self.diff.half_width,
            "min_diff": self.diff.low,
            "max_diff": self.diff.high,
        }


@dataclass(frozen=True, slots=True)
class Paired:
    """One policy on one world: A's and B's mean sustained throughput and the per-seed A - B, and
    the same for each of :data:`OTHER_METRICS` (``others``, keyed by the row attribute)."""

    world: str
    policy: str
    seeds: tuple[int, ...]
    mean_a_ips: float
    mean_b_ips: float
    diff: Spread
    others: dict[str, Diff | None] = dataclasses.field(default_factory=dict)

    @property
    def diff_pct(self) -> float | None:
        return None if not self.mean_b_ips else 100.0 * self.diff.mean / self.mean_b_ips

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "world": self.world,
            "policy": self.policy,
            "seeds": list(self.seeds),
            "mean_a_ips": self.mean_a_ips,
            "mean_b_ips": self.mean_b_ips,
            "diff_ips": self.diff.mean,
            "half_width_ips": self.diff.half_width,
            "min_diff_ips": self.diff.low,
            "max_diff_ips": self.diff.high,
            "diff_pct": self.diff_pct,
        }
        for attr, d in self.others.items():
            out[attr] = None if d is None else d.as_dict()
        return out


def paired(
    rows_a: Sequence[RunRow], rows_b: Sequence[RunRow], worlds: dict[str, tuple[str, int]]
) -> list[Paired]:
    """Per world and policy, A - B sustained throughput over the seeds both arms measured, and
    A - B time above the trip and energy per inference over the seeds both arms have them.

    ``worlds`` maps a grid label (``orin-steady-25-s2+static``) to its world without the seed
    (``orin-steady-25+static``) and the seed.  A seed where either run has no steady window
    is left out (named by its absence from ``seeds``).
    """
    groups: dict[tuple[str, str], list[tuple[int, RunRow, RunRow]]] = {}
    for a, b in zip(rows_a, rows_b, strict=True):
        if (a.scenario, a.policy) != (b.scenario, b.policy):
            raise ValueError(f"unpaired rows {a.scenario}/{a.policy} and {b.scenario}/{b.policy}")
        world, seed = worlds[a.scenario]
        groups.setdefault((world, a.policy), []).append((seed, a, b))
    out = []
    for (world, policy), cell in groups.items():
        ips = Diff.of([(s, a.sustained_ips, b.sustained_ips) for s, a, b in cell])
        if ips is None:
            continue
        others = {
            attr: Diff.of([(s, getattr(a, attr), getattr(b, attr)) for s, a, b in cell])
            for attr, _, _, _ in OTHER_METRICS
        }
        out.append(Paired(world, policy, ips.seeds, ips.mean_a, ips.mean_b, ips.diff, others))
    return out


def _signed(s: Spread, digits: int = 2) -> str:
    hw = "" if s.half_width is None else f" ±{s.half_width:.{digits}f}"
    return f"{s.mean:+.{digits}f}{hw} [{s.low:+.{digits}f}..{s.high:+.{digits}f}]"


def other_lines(p: Paired, indent: int) -> list[str]:
    """Time above the trip and energy per inference of one pair, one line each, under its line."""
    lines = []
    for attr, label, digits, scale in OTHER_METRICS:
        d = p.others.get(attr)
        pad = " " * indent
        if d is None:
            lines.append(f"{pad}{label:<14} (no seed has it in both arms)")
            continue
        seeds = "" if d.seeds == p.seeds else f"  seeds {','.join(map(str, d.seeds))}"
        hw = None if d.diff.half_width is None else d.diff.half_width * scale
        diff = Spread(d.diff.mean * scale, d.diff.low * scale, d.diff.high * scale, hw)
        lines.append(
            f"{pad}{label:<14} A {d.mean_a * scale:.{digits}f}  B {d.mean_b * scale:.{digits}f}  "
            f"A-B {_signed(diff, digits)}{seeds}"
        )
    return lines


def format_paired(pairs: Sequence[Paired], tag_a: str, tag_b: str, seeds_option: str = "--seed") -> str:
    """The paired block printed under compare's table: per pair the throughput line, then its
    time above the trip and energy per inference (A - B each, the same interval)."""
    lines = [
        "",
        f"paired A - B sustained inf/s (A: {tag_a}, B: {tag_b}; same worlds and seeds): "
        "mean ±95% t half-width [min..max] over the seeds; under it, the same for seconds above "
        "the trip and millijoules per inference",
    ]
    for p in pairs:
        pct = "" if p.diff_pct is None else f" ({p.diff_pct:+.2f} %)"
        interval = (
            ""
            if p.diff.half_width is not None
            else f"  (one seed: give {seeds_option} 1,2,3 for an interval)"
        )
        lines.append(
            f"  {p.world:<24} {p.policy:<20} A {p.mean_a_ips:.2f}  B {p.mean_b_ips:.2f}  "
            f"A-B {_signed(p.diff)}{pct}  seeds {','.join(map(str, p.seeds))}{interval}"
        )
        lines.extend(other_lines(p, 4 + 24 + 20))
    return "\n".join(lines) + "\n"


__all__ = [
    "OTHER_METRICS",
    "Diff",
    "Paired",
    "check_same_world",
    "format_paired",
    "interleave",
    "other_lines",
    "paired",
    "tagged",
    "tags",
]
