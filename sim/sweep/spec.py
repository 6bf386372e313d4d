"""Sweep files: a base world and the points to run on it, all validated before anything runs.

A sweep file is TOML::

    [sweep]
    scenario = "orin-steady-25"     # a suite scenario, or a scenario file (path relative to this file)
    config = "base.toml"            # optional base config (policy parameters, seed, ...)
    duration = "10m"                # optional: every point's simulated time
    objective = "sustained_ips"     # a summary figure (see figures.FIGURES)
    direction = "max"               # or "min"
    require = ["time_above_trip_s <= 1"]   # bounds the best point must meet

and exactly one way to name the points: ``[grid]`` (every combination of the listed values,
the first key varying slowest), ``[[points]]`` (an explicit list) or ``[random]`` (``n``
samples with a ``seed``; each key ``{uniform = [lo, hi]}``, ``{loguniform = [lo, hi]}``,
``{integers = [lo, hi]}`` inclusive, or ``{choice = [...]}``).

Every point is resolved to its full configuration and board, and checked the way a run would
check it (sensors, events, policy parameters), so a typo in the 900th point costs one line and
exit status 2 before the first simulation, not a half-finished sweep.  A point's id is a hash of
that resolved world, so it is the same whatever the file order or executor, and a ``--resume``
with a changed base does not mistake an old run for a new point.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from thermogov import tomlread
from thermogov.config import Config, load_config
from thermogov.interfaces import ConfigError
from thermogov.sim.model.runner import build_policy, validate_events
from thermogov.sim.scenarios import load_scenario, scenario_from_data
from thermogov.sim.sweep import keys as K
from thermogov.sim.sweep.figures import FIGURES
from thermogov.tomlcheck import Table
from thermogov.units import parse_duration_s

MODES = ("grid", "points", "random")
# Every point is resolved and validated before the first run (~3 ms a point on a loaded 2-core
# box, measured: docs/sweeps.md), so 100 000 points is minutes of checking before any result; a
# larger study is several sweep files.  Counted before a grid is expanded, so a 1000 x 1000 x
# 1000 grid is refused at once instead of filling memory.
MAX_POINTS = 100_000
DISTRIBUTIONS = ("uniform", "loguniform", "integers", "choice")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_REQUIRE = re.compile(r"^\s*([a-z_]+)\s*(<=|>=|<|>|==)\s*([-+0-9.eE]+)\s*$")
_OPS = {
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "==": lambda a, b: a == b,
}


@dataclass(frozen=True, slots=True)
class Constraint:
    figure: str
    op: str
    bound: float

    def holds(self, figures: dict[str, Any]) -> bool:
        v = figures.get(self.figure)
        return v is not None and bool(_OPS[self.op](float(v), self.bound))

    def __str__(self) -> str:
        return f"{self.figure} {self.op} {self.bound:g}"


@dataclass(frozen=True, slots=True)
class Point:
    index: int
    params: dict[str, Any]  # sweep key as written -> value
    world: K.World
    point_id: str

    def label(self) -> str:
        return describe(self.params)


@dataclass(frozen=True, slots=True)
class Sweep:
    path: Path
    mode: str
    keys: tuple[K.Key, ...]
    points: tuple[Point, ...]
    objective: str
    direction: str
    require: tuple[Constraint, ...]
    base: Config
    merged: int = 0  # random samples that drew an existing point

    @property
    def name(self) -> str:
        return self.path.stem


def describe(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


def load_sweep(path: Path | str) -> Sweep:
    p = Path(path)
    data = tomlread.load_file(p, "sweep file")
    try:
        return parse_sweep(data, p)
    except ConfigError as e:
        raise ConfigError(f"{p}: {e}") from e


def parse_sweep(data: dict[str, Any], path: Path) -> Sweep:
    top = Table(data, "")
    s = top.table("sweep", {})
    base = _base(s, path.parent)
    objective = s.string("objective", "sustained_ips")
    if objective not in FIGURES:
        raise ConfigError(
            f"sweep.objective: unknown figure {objective!r}; choose one of {', '.join(FIGURES)}"
        )
    direction = s.choice("direction", ("max", "min"), "max")
    require = tuple(_constraint(r, f"sweep.require[{i}]") for i, r in enumerate(s.strings("require", [])))
    s.done()
    modes = [m for m in MODES if top.has(m)]
    if not modes:
        raise ConfigError("no points: add one of [grid], [[points]] or [random]")
    if len(modes) > 1:
        raise ConfigError(f"{' and '.join(modes)}: give only one of [grid], [[points]] or [random]")
    mode = modes[0]
    if mode == "grid":
        keys, raw = _grid(top.table("grid"))
    elif mode == "points":
        keys, raw = _points(top.list("points"))
    else:
        keys, raw = _random(top.table("random"))
    top.done()
    points: list[Point] = []
    seen: dict[str, int] = {}
    merged = 0
    for values in raw:
        params = {k.name: v for k, v in values.items()}
        where = f"point {len(points)} ({describe(params)})"
        world = K.apply(base, values, where)
        _validate(world, where)
        pid = point_id(world)
        if pid in seen:
            if mode == "random":
                merged += 1
                continue
            raise ConfigError(f"{where}: the same world as point {seen[pid]}; remove one of them")
        seen[pid] = len(points)
        points.append(Point(len(points), params, world, pid))
    return Sweep(path, mode, keys, tuple(points), objective, direction, require, base, merged)


def point_id(world: K.World) -> str:
    """``pt-`` and 12 hex digits of the resolved world: stable across orderings and machines."""
    blob = json.dumps({"config": world.config.to_dict(), "board": world.board_data}, sort_keys=True)
    return "pt-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def _base(s: Table, folder: Path) -> Config:
    cfg = Config()
    if s.has("config"):
        cfg = load_config(folder / s.string("config"))
    if s.has("scenario"):
        name = s.string("scenario")
        if name.endswith(".toml"):
            f = folder / name
            try:  # the one reader of user TOML: non-UTF-8, too big or too deep is one line too
                data = tomlread.load_file(f, "scenario file")
            except ConfigError as e:
                raise ConfigError(f"sweep.scenario: {e}") from e
            cfg = scenario_from_data(f.stem, data, cfg, where=str(f))
        else:
            cfg = load_scenario(name, cfg)
    if s.has("duration"):
        raw = s.raw("duration")
        if isinstance(raw, float) and not math.isfinite(raw):
            raise ConfigError(f"sweep.duration: {raw!r} is not a finite duration; write e.g. 600 or 10m")
        d = parse_duration_s(raw, "sweep.duration")
        cfg = dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, duration_s=d))
    return cfg


def _constraint(text: str, where: str) -> Constraint:
    m = _REQUIRE.match(text)
    if not m:
        raise ConfigError(f'{where}: cannot read {text!r}; write e.g. "time_above_trip_s <= 1"')
    figure, op, bound = m.group(1), m.group(2), m.group(3)
    if figure not in FIGURES:
        raise ConfigError(f"{where}: unknown figure {figure!r}; choose one of {', '.join(FIGURES)}")
    try:
        b = float(bound)
    except ValueError as e:
        raise ConfigError(f"{where}: {bound!r} is not a number") from e
    if not math.isfinite(b):
        raise ConfigError(f"{where}: {bound!r} is not a finite number")
    return Constraint(figure, op, b)


def _grid(t: Table) -> tuple[tuple[K.Key, ...], list[dict[K.Key, Any]]]:
    if not t.keys():
        raise ConfigError("grid: empty; add a key with a list of values, e.g. ambient = [25, 35]")
    keys, lists = [], []
    names = t.keys()
    for name in names:
        key = K.resolve(name, "grid")
        vals = t.raw(name)
        if not isinstance(vals, list):
            raise ConfigError(f"grid.{name}: expected a list of values, got {vals!r}")
        if not vals:
            raise ConfigError(f"grid.{name}: empty list; give at least one value")
        lists.append([K.check_value(key, v, f"grid.{name}[{i}]") for i, v in enumerate(vals)])
        keys.append(key)
    _unique_paths(keys, "grid")
    total = math.prod(len(v) for v in lists)
    if total > MAX_POINTS:
        sizes = " x ".join(str(len(v)) for v in lists)
        raise ConfigError(
            f"grid: {sizes} = {total} points, more than {MAX_POINTS}; use fewer values or split the sweep"
        )
    return tuple(keys), [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*lists)]


def _points(items: list[Any]) -> tuple[tuple[K.Key, ...], list[dict[K.Key, Any]]]:
    if not items:
        raise ConfigError("points: empty; add at least one [[points]] table")
    if len(items) > MAX_POINTS:
        raise ConfigError(f"points: {len(items)} points, more than {MAX_POINTS}; split the sweep")
    order: dict[str, K.Key] = {}
    out = []
    for i, item in enumerate(items):
        where = f"points[{i}]"
        if not isinstance(item, dict) or not item:
            raise ConfigError(f"{where}: expected a non-empty table of key = value")
        values: dict[K.Key, Any] = {}
        for name, v in item.items():
            key = order.get(name) or K.resolve(name, where)
            order[name] = key
            values[key] = K.check_value(key, v, f"{where}.{name}")
        _unique_paths(list(values), where)
        out.append(values)
    return tuple(order.values()), out


def _random(t: Table) -> tuple[tuple[K.Key, ...], list[dict[K.Key, Any]]]:
    n = t.integer("n", minimum=1, maximum=MAX_POINTS)
    seed = t.integer("seed", minimum=0)
    dists: list[tuple[K.Key, str, list[Any]]] = []
    names = t.keys()
    for name in names:
        if name in ("n", "seed"):
            continue
        key = K.resolve(name, "random")
        spec = t.mapping(name)
        where = f"random.{name}"
        if len(spec) != 1 or next(iter(spec)) not in DISTRIBUTIONS:
            raise ConfigError(
                f"{where}: give exactly one of {', '.join(DISTRIBUTIONS)} (e.g. {{uniform = [20, 40]}})"
            )
        kind, args = next(iter(spec.items()))
        dists.append((key, kind, _dist_args(key, kind, args, f"{where}.{kind}")))
    t.done()
    if not dists:
        raise ConfigError("random: no keys to sample; add e.g. ambient = {uniform = [20, 40]}")
    _unique_paths([d[0] for d in dists], "random")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        values: dict[K.Key, Any] = {}
        for key, kind, args in dists:
            values[key] = K.check_value(key, _draw(rng, kind, args), f"random.{key.name}")
        out.append(values)
    return tuple(d[0] for d in dists), out


def _dist_args(key: K.Key, kind: str, args: Any, where: str) -> list[Any]:
    if not isinstance(args, list) or not args:
        raise ConfigError(f"{where}: expected a non-empty list")
    if kind == "choice":
        return [K.check_value(key, v, f"{where}[{i}]") for i, v in enumerate(args)]
    if len(args) != 2:
        raise ConfigError(f"{where}: expected [low, high]")
    want_int = kind == "integers"
    for v in args:
        bad = isinstance(v, bool) or not isinstance(v, int if want_int else int | float)
        if bad or (isinstance(v, float) and not math.isfinite(v)):
            raise ConfigError(
                f"{where}: expected {'whole numbers' if want_int else 'finite numbers'}, got {v!r}"
            )
    lo, hi = args
    if lo > hi:
        raise ConfigError(f"{where}: low {lo} is above high {hi}")
    if kind == "loguniform" and lo <= 0:
        raise ConfigError(f"{where}: low must be > 0 for a log-uniform draw")
    # numpy's generator draws integers as int64 and a uniform over a finite width: beyond either
    # the draw itself failed (an internal error), so the bounds are checked here with the key
    if kind == "integers" and not (lo >= _INT64_MIN and hi < _INT64_MAX):
        raise ConfigError(f"{where}: [{lo}, {hi}] goes beyond a 64-bit integer; use bounds within ±9.2e18")
    if kind == "uniform" and not math.isfinite(float(hi) - float(lo)):
        raise ConfigError(f"{where}: [{lo:g}, {hi:g}] is wider than a number can hold; narrow the range")
    if kind == "integers" and key.kind not in (K.INTEGER, K.NUMBER, K.SCALAR):
        raise ConfigError(f"{where}: {key.name} takes {key.kind} values, not integers")
    if kind in ("uniform", "loguniform") and key.kind not in (K.NUMBER, K.SCALAR):
        raise ConfigError(f"{where}: {key.name} takes {key.kind} values; use choice = [...]")
    return list(args)


def _draw(rng: np.random.Generator, kind: str, args: Sequence[Any]) -> Any:
    if kind == "uniform":
        return float(rng.uniform(args[0], args[1]))
    if kind == "loguniform":
        return float(math.exp(rng.uniform(math.log(args[0]), math.log(args[1]))))
    if kind == "integers":
        return int(rng.integers(args[0], args[1] + 1))
    return args[int(rng.integers(len(args)))]


def _unique_paths(keys: Sequence[K.Key], where: str) -> None:
    seen: dict[tuple[str, ...], str] = {}
    for k in keys:
        if k.path in seen:
            raise ConfigError(f"{where}.{k.name}: the same setting as {seen[k.path]}; keep one")
        seen[k.path] = k.name


def _validate(world: K.World, where: str) -> None:
    """What a run checks before it starts, done for every point before the first one runs."""
    try:
        world.config.sensor_specs(world.board)
        validate_events(world.config, world.board)
        build_policy(world.config, world.board)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from e
