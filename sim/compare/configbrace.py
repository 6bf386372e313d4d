"""``bench/control_quality.py --config-b FILE``: the race's candidate under a second config, paired.

A user tuning the governor (a fusion weight, a policy key) wants the change judged where the
product claim is made: on the race's worlds, beside the oracle and the baselines.  So every
world of the race is run a second time with the candidate policy only, its governor sections
(``[governor]``, ``[sensors]``, ``[policies]``, ``[power]``, ``[lever]``, ``[fan]``, ``[modes]``)
from FILE and its world (board and the whole ``[sim]`` table, ``--duration`` cut included) and
seed from the race's own config: the rule ``thermogov compare --config-b`` applies
(:mod:`thermogov.sim.compare.configb`), whose pairing this module reuses rather than copies.
A world whose board FILE would change (a scenario that names no board) is refused.

The race has no per-config notion of its own (one config, the defaults, under every row), so
the pairing here is: the candidate under the race's config (arm A, the row the race table
shows) against the candidate under FILE (arm B), same world and seed; per world, A - B over the
seeds of sustained throughput, time above the trip and energy per inference with the 95 % t
interval, and each arm's share of its own oracle (B's oracle is solved on B's config: a fusion
weighting changes what the fused trip allows).  The baselines are not re-run under B: in the
one-seed race each arm's mean is read against the race table's best tuned baseline (the lead
table's choice, tuned under A's config: its ``@iso`` bound is ``hysteresis``'s time above the
trip there); under ``--seeds`` the seed-set report above holds the baselines' means (by worst
window, the seed race's score; the pairs here are by sustained throughput, compare's).  Only
the suite's scenarios take a config B: the generated worlds (families, drawn) are built over
the defaults in code, not from a scenario file FILE could be laid under.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from pathlib import Path

from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.sim.compare import configb
from thermogov.sim.compare.compare import RunRow, run_grid
from thermogov.sim.compare.lead import leads
from thermogov.sim.compare.seedset import with_seed
from thermogov.sim.model.runner import build_policy
from thermogov.sim.scenarios import load_scenario
from thermogov.variant import check_variant, parse_variant


def arm_b(configs: Sequence[tuple[str, Config]], base_b: Config, candidate: str) -> list[tuple[str, Config]]:
    """Each race world under ``base_b``'s governor sections, with the race's world and seed; the
    candidate is built on each before anything runs (a ``[sensors.X]`` the board lacks, a bad
    policy table: exit 2, not a failed worker half-way through the race)."""
    arm = parse_variant(candidate, "--candidate")
    out = []
    for name, a in configs:
        try:
            b = dataclasses.replace(load_scenario(name, base_b), sim=a.sim, seed=a.seed)
            board = b.load_board()
            check_variant(arm, b, functools.partial(build_policy, board=board))
        except ConfigError as e:
            raise ConfigError(f"--config-b: {base_b.source}: {e}") from e
        configb.check_same_world(name, a, b, base_b.source)
        out.append((name, b))
    return out


def _seeds(cfg: Config, seeds: Sequence[int] | None) -> Sequence[int]:
    """The race's seed set, or (the one-seed race) the world's own seed."""
    return seeds or [cfg.seed]


def _grid(
    configs: Sequence[tuple[str, Config]], seeds: Sequence[int] | None, arm: str
) -> list[tuple[str, Config]]:
    return [(f"{arm}-{name}-s{s}", with_seed(cfg, s)) for name, cfg in configs for s in _seeds(cfg, seeds)]


@dataclasses.dataclass(frozen=True, slots=True)
class Arms:
    """Both arms' candidate rows (each labelled ``<world>-s<seed>``), their pairs, and the label map."""

    pairs: list[configb.Paired]
    rows_a: list[RunRow]
    rows_b: list[RunRow]
    worlds: dict[str, tuple[str, int]]


def run_pairs(
    configs_a: Sequence[tuple[str, Config]],
    configs_b: Sequence[tuple[str, Config]],
    candidate: str,
    seeds: Sequence[int] | None,
    out_dir: Path,
    *,
    jobs: int = 1,
    with_oracle: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Arms:
    """The candidate on every world and seed under both configs (one grid, so both arms share
    the processes), paired per world by :func:`thermogov.sim.compare.configb.paired`."""
    grid_a, grid_b = _grid(configs_a, seeds, "a"), _grid(configs_b, seeds, "b")
    rows, _ = run_grid(
        [*grid_a, *grid_b], [candidate], out_dir, jobs=jobs, with_oracle=with_oracle, progress=progress
    )
    n = len(grid_a)
    # The grid labels carry the arm (one folder each); the pairing wants the same label per pair.
    rows_a = [dataclasses.replace(r, scenario=r.scenario[2:]) for r in rows[:n]]
    rows_b = [dataclasses.replace(r, scenario=r.scenario[2:]) for r in rows[n:]]
    worlds = {f"{name}-s{s}": (name, s) for name, cfg in configs_a for s in _seeds(cfg, seeds)}
    return Arms(configb.paired(rows_a, rows_b, worlds), rows_a, rows_b, worlds)


def _mean_pct(rows: Sequence[RunRow], world: str, worlds: dict[str, tuple[str, int]]) -> str:
    vals = [r.pct_oracle for r in rows if worlds[r.scenario][0] == world and r.pct_oracle is not None]
    return "n/a" if not vals else f"{sum(vals) / len(vals):.1f} %"


def baselines(rows: Sequence[RunRow], candidate: str) -> dict[str, tuple[str, float]]:
    """Per world, the best tuned baseline of the race's one-seed table (the lead table's choice,
    :func:`thermogov.sim.compare.lead.leads`): what both arms' candidate is read against."""
    return {
        lead.scenario: (lead.best, lead.best_ips)
        for lead in leads(list(rows), candidate)
        if lead.best is not None and lead.best_ips
    }


def lines(arms: Arms, tags: tuple[str, str], best: dict[str, tuple[str, float]] | None = None) -> list[str]:
    """The block the bench prints: compare's paired block, each arm's mean share of its own
    oracle, and (``best``: the race table's best tuned baseline per world) each arm's lead."""
    pairs, rows_a, rows_b, worlds = arms.pairs, arms.rows_a, arms.rows_b, arms.worlds
    out = configb.format_paired(pairs, *tags, seeds_option="--seeds").rstrip("\n").splitlines()
    out[1] = f"config B, candidate only: {out[1]}"
    if any(r.pct_oracle is not None for r in [*rows_a, *rows_b]):
        out.append("  share of each arm's own oracle (mean over the seeds):")
        for p in pairs:
            out.append(
                f"  {p.world:<24} {p.policy:<20} A {_mean_pct(rows_a, p.world, worlds)}  "
                f"B {_mean_pct(rows_b, p.world, worlds)}"
            )
    if best:
        out.append("  lead over the race table's best tuned baseline (tuned under A's config):")
        for p in pairs:
            if p.world in best:
                label, ips = best[p.world]
                out.append(
                    f"  {p.world:<24} {p.policy:<20} {label} {ips:.2f}  "
                    f"A {100.0 * (p.mean_a_ips / ips - 1.0):+.2f} %  B {100.0 * (p.mean_b_ips / ips - 1.0):+.2f} %"
                )
    missing = {name for name, _ in worlds.values()} - {p.world for p in pairs}
    out += [f"  {w}: no seed has a steady window in both arms" for w in sorted(missing)]
    return out


__all__ = ["Arms", "arm_b", "baselines", "lines", "run_pairs"]
