"""Adaptive inference modes: which model variant to run, from power state and thermal state.

A battery-powered camera trades inference quality against battery life and heat: the full
model while charging, an early-exit head on the move, a smaller input when the battery is low
or the board is hot.  The ``[modes]`` table maps each power state (``charging``, ``full``,
``mains``, ``discharging``, plus ``low_battery`` under ``low_battery_pct``) and the thermal
state (``hot`` at or above ``hot_c``) to a mode; the cheaper of the two wins.

Two rules keep it from flapping on a state oscillating at a threshold:

* hysteresis: low battery ends only above ``low_battery_release_pct``, hot only below
  ``hot_release_c``;
* a minimum dwell: a *costlier* mode is taken only ``min_dwell_s`` after the last change, while
  a cheaper one is taken at once (it lowers heat and drain, the direction safety wants).

What a mode costs and the accuracy it keeps come from a data table with provenance tags
(``thermogov/inference_modes.toml``, docs/power.md); a configuration may add its own modes
under ``[modes.costs.<name>]``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from thermogov import tomlread
from thermogov.interfaces import ConfigError, PowerStatus
from thermogov.tomlcheck import Table

TAGS = ("published", "derived", "estimated")
STATE_KEYS = ("charging", "full", "mains", "discharging", "low_battery")


@dataclass(frozen=True, slots=True)
class ModeCost:
    """One mode's inference cost relative to the reference model, and its accuracy."""

    name: str
    compute: float  # fraction of the reference model's compute cycles
    memory: float  # fraction of its memory-bound fixed time
    accuracy: float  # task accuracy (COCO mAP50-95 %, for the built-in modes)
    tag: str = "estimated"
    source: str = ""
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "compute": self.compute,
            "memory": self.memory,
            "accuracy": self.accuracy,
            "tag": self.tag,
            "source": self.source,
            "description": self.description,
        }


def _cost(name: str, t: Table) -> ModeCost:
    c = ModeCost(
        name=name,
        compute=t.number("compute", minimum=0.0, exclusive_min=True, maximum=10.0),
        memory=t.number("memory", minimum=0.0, maximum=10.0),
        accuracy=t.number("accuracy", minimum=0.0, exclusive_min=True, maximum=100.0),
        tag=t.choice("tag", TAGS, "estimated"),
        source=t.string("source", ""),
        description=t.string("description", ""),
    )
    t.done()
    return c


@functools.lru_cache(maxsize=1)
def _builtin() -> tuple[ModeCost, ...]:
    text = resources.files("thermogov").joinpath("inference_modes.toml").read_text(encoding="utf-8")
    data = tomlread.loads(text)
    return tuple(_cost(name, Table(t, f"inference_modes.toml: {name}")) for name, t in data.items())


def builtin_mode_costs() -> dict[str, ModeCost]:
    """The cited table shipped with the package (``thermogov/inference_modes.toml``)."""
    return {c.name: c for c in _builtin()}


@dataclass(frozen=True, slots=True)
class ModesConfig:
    enabled: bool = False
    order: tuple[str, ...] = ("full", "early_exit", "multires_320")  # costliest first
    charging: str = "full"
    full: str = "full"
    mains: str = "full"
    discharging: str = "early_exit"
    low_battery: str = "multires_320"
    low_battery_pct: float = 20.0
    low_battery_release_pct: float = 25.0
    hot: str = "multires_320"
    hot_c: float = 85.0  # the spec's trip: the clocks alone are at their limit
    hot_release_c: float = 80.0
    min_dwell_s: float = 10.0
    costs: dict[str, ModeCost] = field(default_factory=dict)  # the order's modes, resolved

    def cost(self, name: str) -> ModeCost:
        """A mode's cost: the configured one, else the built-in table's (a bare ``ModesConfig()``)."""
        c = self.costs.get(name)
        return c if c is not None else builtin_mode_costs()[name]

    def for_state(self, key: str) -> str:
        return str(getattr(self, key))

    def to_dict(self) -> dict[str, Any]:
        builtin = builtin_mode_costs()
        d: dict[str, Any] = {
            "enabled": self.enabled,
            "order": list(self.order),
            **{k: self.for_state(k) for k in STATE_KEYS},
            "low_battery_pct": self.low_battery_pct,
            "low_battery_release_pct": self.low_battery_release_pct,
            "hot": self.hot,
            "hot_c": self.hot_c,
            "hot_release_c": self.hot_release_c,
            "min_dwell_s": self.min_dwell_s,
        }
        own = {n: c.to_dict() for n, c in self.costs.items() if builtin.get(n) != c}
        if own:
            d["costs"] = own
        return d


def parse_modes(t: Table) -> ModesConfig:
    d = ModesConfig()
    known = builtin_mode_costs()
    for name, sub in t.tables("costs"):
        known[name] = _cost(name, sub)
    order = tuple(t.strings("order", list(d.order)))
    if not order:
        raise ConfigError(f"{t.where}.order: empty; list the modes costliest first, e.g. {list(d.order)}")
    for name in order:
        if name not in known:
            raise ConfigError(
                f"{t.where}.order: unknown mode {name!r}; use one of {', '.join(sorted(known))} "
                f"or define it under [{t.where}.costs.{name}]"
            )
    if len(set(order)) != len(order):
        raise ConfigError(f"{t.where}.order: a mode is listed twice; list each once")

    def mode(key: str, default: str) -> str:
        v = t.string(key, default if default in order else order[-1])
        if v not in order:
            raise ConfigError(f"{t.where}.{key}: {v!r} is not in {t.where}.order ({', '.join(order)})")
        return v

    def celsius(key: str, default: float) -> float:
        return t.number(key, default, minimum=-40.0, maximum=150.0)

    def pct(key: str, default: float) -> float:
        return t.number(key, default, minimum=0.0, maximum=100.0)

    cfg = ModesConfig(
        enabled=t.boolean("enabled", d.enabled),
        order=order,
        charging=mode("charging", order[0]),
        full=mode("full", order[0]),
        mains=mode("mains", order[0]),
        discharging=mode("discharging", d.discharging),
        low_battery=mode("low_battery", d.low_battery),
        low_battery_pct=pct("low_battery_pct", d.low_battery_pct),
        low_battery_release_pct=pct("low_battery_release_pct", d.low_battery_release_pct),
        hot=mode("hot", d.hot),
        hot_c=celsius("hot_c", d.hot_c),
        hot_release_c=celsius("hot_release_c", d.hot_release_c),
        min_dwell_s=t.number("min_dwell_s", d.min_dwell_s, minimum=0.0, maximum=3600.0),
        costs={n: known[n] for n in order},
    )
    if cfg.low_battery_release_pct < cfg.low_battery_pct:
        raise ConfigError(
            f"{t.where}.low_battery_release_pct: must be >= low_battery_pct ({cfg.low_battery_pct:g})"
        )
    if cfg.hot_release_c > cfg.hot_c:
        raise ConfigError(f"{t.where}.hot_release_c: must be <= hot_c ({cfg.hot_c:g})")
    t.done()
    return cfg


def default_modes() -> ModesConfig:
    return parse_modes(Table({}, "modes"))


class ModeSelector:
    """The mode the table asks for now, with hysteresis on both thresholds and a dwell."""

    def __init__(self, cfg: ModesConfig) -> None:
        self.cfg = cfg
        self.rank = {name: i for i, name in enumerate(cfg.order)}
        self.mode = cfg.order[0]
        self._changed_at = -math.inf
        self.low = False
        self.hot = False

    def cheaper(self, a: str, b: str) -> str:
        return a if self.rank[a] >= self.rank[b] else b

    def wanted(self, fused_c: float | None, status: PowerStatus | None) -> str:
        c = self.cfg
        if not c.enabled:
            return c.order[0]
        state = status.state if status is not None else "mains"
        pct = status.capacity_pct if status is not None else None
        if state != "discharging" or pct is None:
            self.low = False
        elif self.low:
            self.low = pct < c.low_battery_release_pct
        else:
            self.low = pct < c.low_battery_pct
        if fused_c is not None:  # unknown temperature: keep the thermal state in force
            self.hot = fused_c > c.hot_release_c if self.hot else fused_c >= c.hot_c
        key = "low_battery" if self.low else (state if state in STATE_KEYS else "mains")
        want = c.for_state(key)
        return self.cheaper(want, c.hot) if self.hot else want

    def select(self, now_s: float, fused_c: float | None, status: PowerStatus | None) -> str:
        want = self.wanted(fused_c, status)
        if want != self.mode:
            costlier = self.rank[want] < self.rank[self.mode]
            if not costlier or now_s - self._changed_at >= self.cfg.min_dwell_s - 1e-9:
                self.mode = want
                self._changed_at = now_s
        return self.mode
