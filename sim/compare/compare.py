"""Paired comparison of policies on scenarios, against the oracle.

Every policy runs on the same scenario configuration and seed.  The simulator draws arrivals,
service and each sensor's noise from independent random streams spawned from that seed, so
two policies see exactly the same frames and the same noise at the same instants: the
difference between two rows is the policies' doing, not luck (a paired comparison).

Metrics per run: sustained throughput (the run recorder's steady window) and its ratio to the
oracle (:mod:`thermogov.sim.compare.oracle`), maximum fused and per-sensor temperature, seconds with the
fused value at or above the spec's 85 °C trip, seconds the governor's hard-limit override was
in force (some sensor at its hard limit), energy per inference, p50/p99 latency and cap changes.
Runs are independent, so they spread over processes or a Dask cluster (the sweep executors).

With ``iso_limit`` every kernel baseline in the comparison also appears as ``<policy>@iso``: the
same governor with its trip lowered (:mod:`thermogov.sim.compare.isolimit`) until it spends no more time
above 85 °C than ``hysteresis``, so throughput is compared at the same thermal limit; the trip
found is the row's ``tuned_trip_c``.  The plain rows stay, so both views are visible.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import math
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thermogov.config import Config
from thermogov.display import figure
from thermogov.exitstatus import writing
from thermogov.governor import TickRecord
from thermogov.sim.compare import isolimit
from thermogov.sim.compare.oracle import TRIP_C, OracleResult, oracle, steady_window
from thermogov.sim.model.runner import simulate
from thermogov.sim.scenarios import load_scenario
from thermogov.sim.sweep.executors import Executor, LocalExecutor
from thermogov.variant import parse_variant

CSV_COLUMNS = (
    "scenario",
    "board",
    "policy",
    "seed",
    "ambient_c",
    "sustained_ips",
    "oracle_ips",
    "pct_oracle",
    "readable_ips",
    "pct_readable",
    "max_fused_c",
    "hottest_sensor_c",
    "max_sensor_c",
    "above_trip_s",
    "hard_limit_s",
    "energy_per_inference_j",
    "p50_ms",
    "p99_ms",
    "cap_changes",
    "cap_changes_per_min",
    "fused_std_c",
    "tuned_trip_c",
    "tuned_params",
    "iso_bound_s",
    "probes",
    "run_dir",
)


@dataclass(frozen=True, slots=True)
class RunRow:
    scenario: str
    board: str
    policy: str
    seed: int
    ambient_c: float
    sustained_ips: float | None
    oracle_ips: float | None
    max_fused_c: float | None
    max_sensor_c: dict[str, float | None]
    above_trip_s: float
    hard_limit_s: float
    energy_per_inference_j: float | None
    p99_ms: float | None
    cap_changes: int
    run_dir: str
    #: Standard deviation of the fused reading over the steady window (temperature stability).
    fused_std_c: float | None = None
    duration_s: float | None = None
    #: Iso-limit rows only: the trip / control temperature found, and the bound it was held to.
    tuned_trip_c: float | None = None
    iso_bound_s: float | None = None
    #: Iso-limit rows only: the other knobs the search set (``k=v;k=v``) and how many probes it ran.
    tuned_params: str | None = None
    probes: int | None = None
    #: A probe stopped early because it broke its bound (its throughput is not measured).
    stopped: bool = False
    p50_ms: float | None = None
    #: Whole inferences the run completed, and when its pack emptied (None: it lasted the run);
    #: a battery world's runs are scored by the first (:mod:`thermogov.sim.compare.packbound`).
    inferences_total: int | None = None
    empty_at_s: float | None = None
    #: The oracle at the readable trip (:mod:`thermogov.sim.compare.readable`): a reference for a
    #: policy that must not read the trip code, NOT a bound (a policy reading the trip may pass it).
    readable_ips: float | None = None

    @property
    def cap_changes_per_min(self) -> float | None:
        if not self.duration_s:
            return None
        return 60.0 * self.cap_changes / self.duration_s

    @property
    def pct_oracle(self) -> float | None:
        if self.sustained_ips is None or not self.oracle_ips:
            return None
        return 100.0 * self.sustained_ips / self.oracle_ips

    @property
    def pct_readable(self) -> float | None:
        if self.sustained_ips is None or not self.readable_ips:
            return None
        return 100.0 * self.sustained_ips / self.readable_ips

    @property
    def hottest_sensor_c(self) -> float | None:
        vals = [v for v in self.max_sensor_c.values() if v is not None]
        return max(vals) if vals else None

    def csv_row(self) -> list[Any]:
        sensors = ";".join(f"{k}={'' if v is None else round(v, 3)}" for k, v in self.max_sensor_c.items())
        values = {
            **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)},
            "pct_oracle": self.pct_oracle,
            "pct_readable": self.pct_readable,
            "cap_changes_per_min": self.cap_changes_per_min,
            "hottest_sensor_c": self.hottest_sensor_c,
            "max_sensor_c": sensors,
        }
        return ["" if values[c] is None else _round(values[c]) for c in CSV_COLUMNS]


def _round(v: Any) -> Any:
    return round(v, 4) if isinstance(v, float) else v


class ProbeStopped(Exception):
    """Raised from the tick hook to end a probe that has already broken its bound."""


class _TickMeter:
    """Seconds above the trip and under the hard-limit override, and the steady window's spread.

    With ``stop_above_s`` / ``stop_limit_s`` it raises :class:`ProbeStopped` as soon as either
    total passes its bound: a tuning probe that has broken the bound cannot win, so the rest of
    its simulation is wasted.
    """

    def __init__(
        self,
        trip_c: float,
        window_start_s: float = math.inf,
        stop_above_s: float | None = None,
        stop_limit_s: float | None = None,
    ) -> None:
        self.trip_c = trip_c
        self.above_s = 0.0
        self.limit_s = 0.0
        self._last: TickRecord | None = None
        self._start = window_start_s
        self._n = 0
        self._sum = 0.0
        self._sq = 0.0
        self._stop_above = stop_above_s
        self._stop_limit = stop_limit_s

    def __call__(self, rec: TickRecord) -> None:
        last = self._last
        if last is not None:
            dt = rec.t_s - last.t_s
            if last.fused_c is not None and last.fused_c >= self.trip_c:
                self.above_s += dt
            if "hard_limit:" in last.event:
                self.limit_s += dt
        self._last = rec
        if rec.t_s >= self._start and rec.fused_c is not None:
            self._n += 1
            self._sum += rec.fused_c
            self._sq += rec.fused_c * rec.fused_c
        if (self._stop_above is not None and self.above_s > self._stop_above + 1e-9) or (
            self._stop_limit is not None and self.limit_s > self._stop_limit + 1e-9
        ):
            raise ProbeStopped

    @property
    def fused_std_c(self) -> float | None:
        if self._n < 2:
            return None
        mean = self._sum / self._n
        return math.sqrt(max(self._sq / self._n - mean * mean, 0.0))


def safe_name(text: str) -> str:
    """A policy spec or grid label as a folder name (``fixed:50%`` -> ``fixed-50pct``)."""
    for a, b in ((":", "-"), ("/", "-"), ("%", "pct"), ("=", ""), (",", "_"), ("@", "-"), (" ", "")):
        text = text.replace(a, b)
    return text


def run_policy(
    config: Config,
    policy: str,
    out_dir: Path,
    oracle_ips: float | None = None,
    label: str | None = None,
    run_id: str | None = None,
    *,
    stop_above_s: float | None = None,
    stop_limit_s: float | None = None,
) -> RunRow:
    """Simulate one policy on ``config``'s world, writing its run folder under ``out_dir``.

    With ``stop_above_s`` / ``stop_limit_s`` (tuning probes) the run ends as soon as it spends
    more than that above the trip / at a hard limit; the row then has ``stopped`` set, no
    throughput, and its half-written folder is removed.
    """
    cfg = parse_variant(policy).apply(config)  # a plain name: replace(config, policy=policy)
    board = cfg.load_board()
    meter = _TickMeter(TRIP_C, steady_window(cfg)[0], stop_above_s, stop_limit_s)
    rid = run_id or safe_name(policy)
    # Who ran where: the same on a stopped probe's row and a finished run's.
    identity: dict[str, Any] = {
        "scenario": label if label is not None else cfg.sim.scenario,
        "board": board.name,
        "policy": policy,
        "seed": cfg.seed,
        "ambient_c": cfg.sim.ambient_c,
    }
    try:
        res = simulate(cfg, board, out_dir, run_id=rid, on_tick=meter)
    except ProbeStopped:
        shutil.rmtree(Path(out_dir) / rid, ignore_errors=True)
        return RunRow(
            **identity,
            sustained_ips=None,
            oracle_ips=oracle_ips,
            max_fused_c=None,
            max_sensor_c={},
            above_trip_s=round(meter.above_s, 3),
            hard_limit_s=round(meter.limit_s, 3),
            energy_per_inference_j=None,
            p99_ms=None,
            cap_changes=0,
            run_dir="",
            stopped=True,
        )
    s = res.summary
    if s.get("ended", "completed") != "completed":
        # The run stopped early (the pack emptied, a shutdown): it is scored on the last half of
        # what ran, while the bound covers the scenario's whole steady window, so a share of it
        # would compare two windows (orin-battery-robot: 902-1806 s against 1800-3600 s).
        oracle_ips = None
    inferences = s.get("inferences_total")
    energy = s.get("energy_j")
    lat = (s.get("latency_ms") or {}).get("total", {})
    return RunRow(
        **identity,
        sustained_ips=s.get("sustained_throughput_ips"),
        oracle_ips=oracle_ips,
        max_fused_c=s.get("max_fused_c"),
        max_sensor_c=dict(s.get("max_sensor_c") or {}),
        above_trip_s=round(meter.above_s, 3),
        hard_limit_s=round(meter.limit_s, 3),
        energy_per_inference_j=(energy / inferences) if (energy and inferences) else None,
        p99_ms=lat.get("p99"),
        p50_ms=lat.get("p50"),
        cap_changes=int(s.get("cap_changes", 0)),
        run_dir=str(res.run_dir),
        fused_std_c=meter.fused_std_c,
        duration_s=cfg.sim.duration_s,
        inferences_total=inferences,
        empty_at_s=s.get("battery_empty_at_s"),
    )


def _oracle_job(config: Config) -> OracleResult:
    return oracle(config)


def _run_job(args: tuple[Config, str, Path, float | None, str]) -> RunRow:
    return run_policy(*args)


def iso_run(
    config: Config,
    policy: str,
    out_dir: Path,
    oracle_ips: float | None,
    label: str,
    bound_s: float,
    plain: RunRow | None = None,
    limit_bound_s: float = 0.0,
) -> RunRow:
    """``policy`` tuned at the iso limit on ``config``'s world, as a ``<policy>@iso`` row.

    :func:`isolimit.search` picks the knobs; every probe stops as soon as it breaks the bound.
    ``plain`` (the untuned run of the same policy, when its trip is already the grid's top)
    seeds the cache, so the top of the grid is not simulated twice.  Each probe gets its own
    run folder (``<policy>-iso-<n>``) so they do not overwrite each other or the plain run.
    """
    cache: dict[float, RunRow] = {}
    if plain is not None and isolimit.current_trip(config, policy) == isolimit.HIGH_C:
        cache[isolimit.HIGH_C] = plain
    count = [0]

    def probe(trip_c: float, knobs: dict[str, Any]) -> RunRow:
        cfg = isolimit.with_knobs(config, policy, trip_c, knobs)
        count[0] += 1
        run_id = f"{safe_name(policy)}-iso-{count[0]}"
        return run_policy(
            cfg, policy, out_dir, oracle_ips, label, run_id, stop_above_s=bound_s, stop_limit_s=limit_bound_s
        )

    res = isolimit.search(probe, policy, config, config.load_board(), bound_s, limit_bound_s, cache=cache)
    row = res.row
    if row.stopped:  # nothing kept the bound: show the lowest trip's whole run, marked missed
        cfg = isolimit.with_knobs(config, policy, res.trip_c, res.params)
        row = run_policy(cfg, policy, out_dir, oracle_ips, label, f"{safe_name(policy)}-iso-missed")
    params = ";".join(f"{k}={v}" for k, v in sorted(res.params.items())) or None
    return dataclasses.replace(
        row,
        policy=isolimit.iso_label(policy),
        tuned_trip_c=res.trip_c,
        iso_bound_s=bound_s,
        tuned_params=params,
        probes=len(res.probes),
    )


def _iso_job(args: tuple[Config, str, Path, float | None, str, float, RunRow | None, float]) -> RunRow:
    return iso_run(*args)


def run_grid(
    configs: Sequence[tuple[str, Config]],
    policies: Sequence[str],
    out_dir: Path | None = None,
    *,
    jobs: int = 1,
    with_oracle: bool = True,
    iso_limit: bool = False,
    progress: Callable[[str], None] | None = None,
    executor: Executor | None = None,
) -> tuple[list[RunRow], dict[str, OracleResult]]:
    """Every policy on every ``(label, config)``; run folders under ``out_dir/label/``.

    ``iso_limit`` adds a ``<policy>@iso`` row after every tunable kernel baseline's row; those
    bisections run after the plain runs because their bound is ``hysteresis``'s time above
    the trip on the same scenario.  The runs go to ``executor`` (a sweep executor: local
    processes or a Dask cluster, see :mod:`thermogov.sim.sweep.executors`), by default
    ``jobs`` local processes; the caller closes an executor it passes.
    """
    for p in policies:
        parse_variant(p, "--policy")
    tmp = None
    if out_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="thermogov-compare-")
        out_dir = Path(tmp.name)
    try:
        oracles: dict[str, OracleResult] = {}
        with contextlib.nullcontext(executor) if executor is not None else LocalExecutor(jobs) as ex:
            if with_oracle:
                for (label, _), res in zip(
                    configs, ex.map(_oracle_job, [c for _, c in configs]), strict=True
                ):
                    oracles[label] = res
                    if progress:
                        progress(f"oracle {label}: {_fmt(res.throughput_ips)} inf/s")
            jobs_args = [
                (
                    cfg,
                    p,
                    out_dir / safe_name(label),
                    oracles[label].throughput_ips if label in oracles else None,
                    label,
                )
                for label, cfg in configs
                for p in policies
            ]

            def ran(_i: int, row: RunRow) -> None:
                # as each run finishes (with workers, not in row order): a stop then knows
                # which run folders the command reported
                if progress:
                    progress(f"{row.scenario or '-'} {row.policy}: {_fmt(row.sustained_ips)} inf/s")

            rows = ex.map(_run_job, jobs_args, done=ran)
            if iso_limit:
                rows = _add_iso_rows(ex, configs, policies, rows, out_dir, oracles, progress)
        if tmp is not None:  # the folders go with the temporary directory
            rows = [dataclasses.replace(r, run_dir="") for r in rows]
        return rows, oracles
    finally:
        if tmp is not None:
            tmp.cleanup()


def _add_iso_rows(
    ex: Any,
    configs: Sequence[tuple[str, Config]],
    policies: Sequence[str],
    rows: list[RunRow],
    out_dir: Path,
    oracles: dict[str, OracleResult],
    progress: Callable[[str], None] | None,
) -> list[RunRow]:
    """``rows`` with each tunable baseline's iso-limit row inserted right after its plain row."""
    tunable = [p for p in policies if isolimit.is_tunable(p)]
    plain = {(r.scenario, r.policy): r for r in rows}
    iso_args = [
        (
            cfg,
            p,
            out_dir / safe_name(label),
            oracles[label].throughput_ips if label in oracles else None,
            label,
            isolimit.bound_from(rows, label),
            plain.get((label, p)),
            isolimit.limit_bound_from(rows, label),
        )
        for label, cfg in configs
        for p in tunable
    ]
    iso: dict[tuple[str, str], RunRow] = {}
    for (_, p, *_rest), row in zip(iso_args, ex.map(_iso_job, iso_args), strict=True):
        iso[(row.scenario, p)] = row
        if progress:
            progress(
                f"{row.scenario or '-'} {row.policy}: trip {_fmt(row.tuned_trip_c)} °C, "
                f"{_fmt(row.sustained_ips)} inf/s, {_fmt(row.above_trip_s)} s above 85 °C"
            )
    out: list[RunRow] = []
    for r in rows:
        out.append(r)
        if (r.scenario, r.policy) in iso:
            out.append(iso[(r.scenario, r.policy)])
    return out


def compare(
    scenarios: Sequence[str],
    policies: Sequence[str],
    base: Config | None = None,
    out_dir: Path | None = None,
    **kw: Any,
) -> tuple[list[RunRow], dict[str, OracleResult]]:
    configs = [(name, load_scenario(name, base)) for name in scenarios]
    return run_grid(configs, policies, out_dir, **kw)


def write_csv(rows: Iterable[RunRow], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with writing(path), path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for r in rows:
            w.writerow(r.csv_row())


def _fmt(v: float | None) -> str:
    return figure(v)


def _trip_txt(r: RunRow) -> str:
    """An iso row's tuned trip; ``!`` when even the grid's lowest trip missed the bound."""
    if r.tuned_trip_c is None:
        return ""
    missed = r.iso_bound_s is not None and r.above_trip_s > r.iso_bound_s + 1e-9
    return _fmt(r.tuned_trip_c) + ("!" if missed else "")


def format_table(rows: Sequence[RunRow], oracles: dict[str, OracleResult]) -> str:
    """One block per scenario, one line per policy; ``trip`` is an iso-limit row's tuned trip."""
    out: list[str] = []
    w = max([20, *(len(r.policy) for r in rows)])  # a --config-b row is labelled by its file too
    head = (
        f"{'policy':<{w}} {'sustained':>9} {'%oracle':>7} {'max fused':>9} {'max sensor':>10} "
        f"{'>trip s':>7} {'limit s':>7} {'std °C':>6} {'mJ/inf':>7} {'p50 ms':>7} {'p99 ms':>7} {'changes':>7} "
        f"{'chg/min':>7} {'trip':>5}"
    )
    for scen in dict.fromkeys(r.scenario for r in rows):
        block = [r for r in rows if r.scenario == scen]
        o = oracles.get(scen)
        oracle_txt = "" if o is None else f"  oracle {_fmt(o.throughput_ips)} inf/s"
        if o is not None and o.best_fixed_caps is not None:
            caps = ",".join(f"{d}={f / 1e6:g}" for d, f in o.best_fixed_caps.items())
            oracle_txt += f", best fixed {_fmt(o.best_fixed_ips)} ({caps})"
        out.append(f"{scen or '(no scenario)'} [{block[0].board}, {block[0].ambient_c:g} °C]{oracle_txt}")
        out.append(head)
        for r in block:
            epi = None if r.energy_per_inference_j is None else 1000.0 * r.energy_per_inference_j
            out.append(
                f"{r.policy:<{w}} {_fmt(r.sustained_ips):>9} {_fmt(r.pct_oracle):>7} "
                f"{_fmt(r.max_fused_c):>9} {_fmt(r.hottest_sensor_c):>10} {_fmt(r.above_trip_s):>7} "
                f"{_fmt(r.hard_limit_s):>7} {_fmt(r.fused_std_c):>6} {_fmt(epi):>7} {_fmt(r.p50_ms):>7} {_fmt(r.p99_ms):>7} "
                f"{r.cap_changes:>7} {_fmt(r.cap_changes_per_min):>7} {_trip_txt(r):>5}"
                + (f" {r.tuned_params}" if r.tuned_params else "")
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"
