"""The race over a seed set: every policy on every seed, baselines tuned once over the set.

:mod:`thermogov.sim.compare.seedset` tunes; this module runs the race and reads it.  Per
scenario every policy runs on every seed, ``hysteresis``'s seconds above the trip and at a hard
limit on each seed set that seed's bound, each tunable kernel baseline is tuned once over the
whole set (``<policy>@iso``), and the any-window bound is solved per seed (the world's random
draws differ by seed), with the any-window oracle at the world's *readable trip* beside it
(:func:`thermogov.sim.compare.readable.readable_anywindow_ips`: a reference for a policy that
must not read the trip, never a bound, so no MISS is judged on it).  Rows are read by their mean over the seeds and its spread, the
candidate's targets are judged per seed (time above the trip against ``hysteresis`` on the
same seed) and summed, and its margin over the best tuned baseline is given both on the means
and seed by seed (paired: both saw the same noise).

With held-out seeds, the settings tuned on the set are deployed unchanged on seeds they never
saw, next to the untuned policies there: the out-of-sample view a user gets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from thermogov.config import Config
from thermogov.sim.compare import isolimit
from thermogov.sim.compare.anywindow import anywindow_bound
from thermogov.sim.compare.compare import safe_name
from thermogov.sim.compare.readable import readable_anywindow_ips
from thermogov.sim.compare.seedset import (
    Bounds,
    SeedRows,
    Spread,
    plain_rows,
    tune_over_seeds,
    with_seed,
)
from thermogov.sim.sweep.executors import pool_context

KERNEL = ("step_wise", "power_allocator")
TARGET_PCT = 98.0

#: One scenario's result: policy label -> rows, the any-window bound per seed, and the readable
#: reference per seed (the any-window oracle at the readable trip).
Block = tuple[dict[str, SeedRows], dict[int, float | None], dict[int, float | None]]


def _plain_job(args: tuple[Config, str, list[int], Path, str]) -> SeedRows:
    return plain_rows(*args)


def _tune_job(args: tuple[Config, str, list[int], Bounds, Path, str, SeedRows | None]) -> SeedRows:
    return tune_over_seeds(*args)


def _bound_job(args: tuple[Config, int]) -> tuple[float | None, float | None]:
    """One seed's any-window bound and its readable reference (none where there is no bound)."""
    cfg = with_seed(args[0], args[1])
    res = anywindow_bound(cfg)
    if res is None:
        return None, None
    return res.throughput_ips, readable_anywindow_ips(cfg)


def race(
    configs: Sequence[tuple[str, Config]],
    policies: Sequence[str],
    seeds: Sequence[int],
    out_dir: Path,
    *,
    jobs: int = 1,
    tune: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Block]:
    """Every policy on every seed of every scenario, plus the ``@iso`` rows tuned over the set."""
    seeds = list(seeds)
    say = progress or (lambda _msg: None)
    out: dict[str, Block] = {}
    with ProcessPoolExecutor(max(jobs, 1), mp_context=pool_context()) as ex:
        for label, cfg in configs:
            where = out_dir / safe_name(label)
            rows: dict[str, SeedRows] = {}
            for r in ex.map(_plain_job, [(cfg, p, seeds, where, label) for p in policies]):
                rows[r.policy] = r
                say(f"{label} {r.policy}: worst window {_spread(r.worst_spread())}")
            bounds = Bounds.from_hysteresis(rows.get("hysteresis"), seeds)
            tunable = [p for p in policies if isolimit.is_tunable(p)] if tune else []
            jobs_in = [(cfg, p, seeds, bounds, where, label, rows.get(p)) for p in tunable]
            for p, r in zip(tunable, ex.map(_tune_job, jobs_in), strict=True):
                rows[isolimit.iso_label(p)] = r
                say(f"{label} {r.policy}: {r.setting}{'' if r.met else ' (none held)'}, {r.probes} probes")
            ordered: dict[str, SeedRows] = {}
            for p in policies:
                ordered[p] = rows[p]
                if isolimit.iso_label(p) in rows:
                    ordered[isolimit.iso_label(p)] = rows[isolimit.iso_label(p)]
            refs = list(ex.map(_bound_job, [(cfg, s) for s in seeds]))
            bound = {s: b for s, (b, _) in zip(seeds, refs, strict=True)}
            readable = {s: r for s, (_, r) in zip(seeds, refs, strict=True)}
            out[label] = (ordered, bound, readable)
    return out


def deploy(
    configs: Sequence[tuple[str, Config]],
    tuned: dict[str, Block],
    policies: Sequence[str],
    seeds: Sequence[int],
    out_dir: Path,
    *,
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Block]:
    """The settings ``tuned`` chose, deployed unchanged on ``seeds`` beside the untuned policies."""
    cfgs = dict(configs)
    held = race(configs, policies, seeds, out_dir, jobs=jobs, tune=False, progress=progress)
    with ProcessPoolExecutor(max(jobs, 1), mp_context=pool_context()) as ex:
        for label, (rows, *_) in tuned.items():
            jobs_in = []
            for name, r in rows.items():
                if r.trip_c is None:
                    continue
                base = name.split("@")[0]
                cfg = isolimit.with_knobs(cfgs[label], base, r.trip_c, r.params)
                jobs_in.append((cfg, base, list(seeds), out_dir / safe_name(label) / "deployed", label))
            deployed: dict[str, SeedRows] = {}
            for r in ex.map(_plain_job, jobs_in):
                src = rows[isolimit.iso_label(r.policy)]
                r.policy, r.setting, r.trip_c, r.params = src.policy, src.setting, src.trip_c, src.params
                deployed[r.policy] = r
            plain = held[label][0]
            ordered: dict[str, SeedRows] = {}
            for p, r in plain.items():  # each deployed setting right after its untuned policy, as in race()
                ordered[p] = r
                if isolimit.iso_label(p) in deployed:
                    ordered[isolimit.iso_label(p)] = deployed[isolimit.iso_label(p)]
            held[label] = (ordered, held[label][1], held[label][2])
    return held


def _spread(s: Spread | None, digits: int = 2) -> str:
    return "n/a" if s is None else s.text(digits)


def _kept_all(r: SeedRows, hyst: SeedRows | None) -> bool:
    """``r`` kept ``hysteresis``'s bound on every seed (a baseline that did not is no margin to beat)."""
    if hyst is None:
        return True
    return all(
        isolimit.passes(row, hyst.rows[s].above_trip_s, hyst.rows[s].hard_limit_s)
        for s, row in r.rows.items()
    )


def report(blocks: dict[str, Block], candidate: str, title: str) -> list[str]:
    """Per scenario, every row's mean and spread over the seeds, then the candidate's targets."""
    lines = [
        title,
        "  worst / steady: mean ±95% t half-width [min..max] over the seeds (inf/s); "
        ">trip / limit: seconds per seed (sum); tuned rows: the one setting chosen over the set",
    ]
    for label, (rows, bound, readable) in blocks.items():
        seeds = sorted(bound)
        b = Spread.of([v for v in bound.values() if v is not None])
        ref = Spread.of([v for v in readable.values() if v is not None])
        lines.append(
            f"  {label}  seeds {','.join(map(str, seeds))}  any-window bound {_spread(b)}"
            f"  readable {_spread(ref)} (reference, not a bound)"
        )
        for name, r in rows.items():
            above, limit = r.above_s(), r.limit_s()
            per_seed = " ".join(_num(r.worst.get(s)) for s in seeds)
            lines.append(
                f"    {name:<20} worst {_spread(r.worst_spread()):<30} steady {_spread(r.steady()):<30} "
                f">trip {'/'.join(f'{above[s]:g}' for s in seeds)} ({sum(above.values()):g}) "
                f"limit {sum(limit.values()):g}  per seed: {per_seed}"
                + (f"  {r.setting}{'' if r.met else ' NONE HELD'}" if r.setting else "")
            )
        lines.extend("    " + v for v in verdict(rows, bound, candidate, readable))
        for name, r in rows.items():
            if r.log:
                lines.append(f"    {name} probes: " + "; ".join(r.log))
    return lines


def _num(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f}"


def verdict(
    rows: dict[str, SeedRows],
    bound: dict[int, float | None],
    candidate: str,
    readable: dict[int, float | None] | None = None,
) -> list[str]:
    """The candidate's targets over the seeds: share of the bound, margin, trip and limit per seed.

    With ``readable`` its share of the readable reference per seed follows the bound's, unjudged.
    """
    c, h = rows.get(candidate), rows.get("hysteresis")
    if c is None:
        return []
    out = []
    cw = c.worst_spread()
    seeds = sorted(c.rows)
    bounds = [bound[s] for s in seeds if bound.get(s)]
    if cw is not None and len(bounds) == len(seeds):
        pct = [100.0 * (c.worst[s] or 0.0) / (bound[s] or 1.0) for s in seeds]
        share = Spread.of(pct)
        miss = "" if share is not None and share.low >= TARGET_PCT else " MISS"
        out.append(f"{candidate} % of the any-window bound per seed: {_spread(share, 1)}{miss}")
    refs = [s for s in seeds if (readable or {}).get(s)]
    if cw is not None and refs and len(refs) == len(seeds):
        ref_pct = Spread.of([100.0 * (c.worst[s] or 0.0) / (readable or {})[s] for s in seeds])  # type: ignore[operator]
        out.append(f"{candidate} % of the readable reference per seed: {_spread(ref_pct, 1)} (not a bound)")
    tuned = {
        isolimit.iso_label(k): rows[isolimit.iso_label(k)]
        for k in KERNEL
        if isolimit.iso_label(k) in rows and _kept_all(rows[isolimit.iso_label(k)], h)
    }
    scored = {k: s for k, r in tuned.items() if (s := r.worst_spread()) is not None}
    if cw is not None and scored:
        best = max(scored, key=lambda k: scored[k].mean)
        b = tuned[best]
        paired = [
            100.0 * (cv / bv - 1.0)
            for s in seeds
            if (cv := c.worst.get(s)) is not None and (bv := b.worst.get(s))
        ]
        ps = Spread.of(paired)
        out.append(
            f"margin over the best tuned {best} ({b.setting}): mean {100.0 * (cw.mean / scored[best].mean - 1.0):+.2f} %, "
            f"paired per seed {_spread(ps)} %"
        )
    elif cw is not None:
        out.append("margin: no tuned baseline kept the bound on every seed")
    if h is not None:
        ca, ha = c.above_s(), h.above_s()
        over = [s for s in seeds if ca[s] > ha[s] + 1e-9]
        lim = [s for s in seeds if c.rows[s].hard_limit_s > h.rows[s].hard_limit_s + 1e-9]
        out.append(
            f"above trip {sum(ca.values()):g} s vs hysteresis {sum(ha.values()):g} s over the seeds"
            + (f"; MISS on seed {','.join(map(str, over))}" if over else "; met on every seed")
            + f"; limit {sum(r.hard_limit_s for r in c.rows.values()):g} s"
            + (f" MISS on seed {','.join(map(str, lim))}" if lim else "")
        )
        broke = {
            name: [s for s in seeds if not isolimit.passes(r.rows[s], ha[s], h.rows[s].hard_limit_s)]
            for name, r in rows.items()
            if r.setting
        }
        for name, bad in broke.items():
            if bad:
                out.append(f"{name} breaks the bound on seed {','.join(map(str, bad))} of {len(seeds)}")
    return out


__all__ = ["Block", "deploy", "race", "report", "verdict"]
