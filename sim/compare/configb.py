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


@dataclass(frozen=True, slots=True)
class Paired:
    """One policy on one world: A's and B's mean sustained throughput and the per-seed A - B."""

    world: str
    policy: str
    seeds: tuple[int, ...]
    mean_a_ips: float
    mean_b_ips: float
    diff: Spread

    @property
    def diff_pct(self) -> float | None:
        return None if not self.mean_b_ips else 100.0 * self.diff.mean / self.mean_b_ips

    def as_dict(self) -> dict[str, object]:
        return {
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


def paired(
    rows_a: Sequence[RunRow], rows_b: Sequence[RunRow], worlds: dict[str, tuple[str, int]]
) -> list[Paired]:
    """Per world and policy, A - B sustained throughput over the seeds both arms measured.

    ``worlds`` maps a grid label (``orin-steady-25-s2+static``) to its world without the seed
    (``orin-steady-25+static``) and the seed.  A seed where either run has no steady window
    is left out (named by its absence from ``seeds``).
    """
    groups: dict[tuple[str, str], list[tuple[int, float, float]]] = {}
    for a, b in zip(rows_a, rows_b, strict=True):
        if (a.scenario, a.policy) != (b.scenario, b.policy):
            raise ValueError(f"unpaired rows {a.scenario}/{a.policy} and {b.scenario}/{b.policy}")
        world, seed = worlds[a.scenario]
        cell = groups.setdefault((world, a.policy), [])
        if a.sustained_ips is not None and b.sustained_ips is not None:
            cell.append((seed, a.sustained_ips, b.sustained_ips))
    out = []
    for (world, policy), cell in groups.items():
        diff = Spread.of([x - y for _, x, y in cell])
        if diff is None:
            continue
        n = len(cell)
        out.append(
            Paired(
                world,
                policy,
                tuple(s for s, _, _ in cell),
                sum(x for _, x, _ in cell) / n,
                sum(y for _, _, y in cell) / n,
                diff,
            )
        )
    return out


def _signed(s: Spread) -> str:
    hw = "" if s.half_width is None else f" ±{s.half_width:.2f}"
    return f"{s.mean:+.2f}{hw} [{s.low:+.2f}..{s.high:+.2f}]"


def format_paired(pairs: Sequence[Paired], tag_a: str, tag_b: str) -> str:
    """The paired block printed under compare's table."""
    lines = [
        "",
        f"paired A - B sustained inf/s (A: {tag_a}, B: {tag_b}; same worlds and seeds): "
        "mean ±95% t half-width [min..max] over the seeds",
    ]
    for p in pairs:
        pct = "" if p.diff_pct is None else f" ({p.diff_pct:+.2f} %)"
        interval = "" if p.diff.half_width is not None else "  (one seed: give --seed 1,2,3 for an interval)"
        lines.append(
            f"  {p.world:<24} {p.policy:<20} A {p.mean_a_ips:.2f}  B {p.mean_b_ips:.2f}  "
            f"A-B {_signed(p.diff)}{pct}  seeds {','.join(map(str, p.seeds))}{interval}"
        )
    return "\n".join(lines) + "\n"


__all__ = [
    "Paired",
    "check_same_world",
    "format_paired",
    "interleave",
    "paired",
    "tagged",
    "tags",
]
