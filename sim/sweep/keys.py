"""Sweep keys: the dotted names a sweep file varies, applied to a copy of a point's world.

Two families.  *Config keys* are paths into :meth:`Config.to_dict` (``sim.ambient_c``,
``run.policy``, ``sensors.cpu.weight``, ``policies.stepped.trip_c``); a point applies them to
the dictionary and re-parses it with :func:`parse_config`, so every swept value meets exactly
the checks a hand-written config file would.  *Board keys* (``board.thermal.links.cpu.package``,
``board.domains.gpu.max_mhz``, ``heatsink``) edit the raw tables of the board profile, which
:func:`parse_board` then validates; the edited profile is written into the point's run folder,
so the run's ``config.toml`` still reproduces it.

A value's type is checked here, before any parsing, so ``ambient = ["hot"]`` names the sweep
key rather than an internal config path; NaN and infinity are refused everywhere.
"""

from __future__ import annotations

import copy
import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thermogov.board import BoardProfile, board_file_data, builtin_board_data, parse_board
from thermogov.config import Config, parse_config
from thermogov.interfaces import ConfigError
from thermogov.policies import split_policy_name
from thermogov.variant import is_variant, parse_variant

#: Short names for the keys users vary most.
ALIASES: dict[str, str] = {
    "ambient": "sim.ambient_c",
    "duration": "sim.duration_s",
    "seed": "run.seed",
    "policy": "run.policy",
    "board": "run.board",
    "rate": "sim.workload.rate_ips",
    "workload": "sim.workload.kind",
    "batch": "sim.workload.batch_size",
    "heatsink": "board.thermal.to_ambient_scale",
    "trip": "policy.trip_c",
    "release": "policy.release_c",
}

NUMBER, INTEGER, STRING, BOOLEAN, SCALAR = "number", "integer", "string", "boolean", "scalar"

#: Config keys with a fixed path: path -> value type.
_CONFIG_KEYS: dict[str, str] = {
    "run.seed": INTEGER,
    "run.policy": STRING,
    "run.board": STRING,
    "sim.duration_s": NUMBER,
    "sim.ambient_c": NUMBER,
    "sim.steady_fraction": NUMBER,
    "sim.initial_temp_c": NUMBER,
    "sim.workload.kind": STRING,
    "sim.workload.rate_ips": NUMBER,
    "sim.workload.burst_factor": NUMBER,
    "sim.workload.burst_period_s": NUMBER,
    "sim.workload.burst_duty": NUMBER,
    "sim.workload.batch_size": INTEGER,
    "sim.workload.max_wait_ms": NUMBER,
    "sim.workload.queue_limit": INTEGER,
    "sim.workload.batching": STRING,
    "sim.workload.service_spread": STRING,
    "sim.workload.service_cv": NUMBER,
    "sim.workload.service_tail_prob": NUMBER,
    "sim.workload.service_tail_factor": NUMBER,
    "governor.control_period_ms": INTEGER,
    "governor.stale_periods": NUMBER,
    "governor.unknown_grace_ms": INTEGER,
    "governor.max_write_failures": INTEGER,
    "governor.stuck_after_s": NUMBER,
}
_SENSOR_OVERRIDES = {"weight": NUMBER, "period_ms": INTEGER, "hard_limit_c": NUMBER, "enabled": BOOLEAN}
_SENSOR_MODEL = ("noise_c", "quant_c", "lag_s")
_NODE_ATTRS = ("capacitance_j_per_k", "to_ambient_w_per_k")
_DOMAIN_ATTRS = ("max_mhz", "c_dyn_uw_per_mhz_v2", "idle_w", "leak_w_ref", "leak_beta_per_k")

#: The key families, for error messages.
PATTERNS = (
    "sensors.<sensor>.{weight,period_ms,hard_limit_c,enabled}",
    "policy.<param> (the point's policy)",
    "policies.<policy>.<param>",
    "board.thermal.links.<node_a>.<node_b>",
    "board.thermal.nodes.<node>.{capacitance_j_per_k,to_ambient_w_per_k}",
    "board.thermal.rest_of_board_w",
    "board.thermal.to_ambient_scale",
    "board.domains.<domain>.{max_mhz,c_dyn_uw_per_mhz_v2,idle_w,leak_w_ref,leak_beta_per_k}",
    "board.sensors.<sensor>.{weight,period_ms,hard_limit_c,noise_c,quant_c,lag_s}",
)


def valid_keys_text() -> str:
    return ", ".join([*ALIASES, *_CONFIG_KEYS, *PATTERNS])


@dataclass(frozen=True, slots=True)
class Key:
    """A resolved sweep key: the name as written, its canonical path, value type and target."""

    name: str
    path: tuple[str, ...]
    kind: str
    target: str  # config | policy | board

    @property
    def canonical(self) -> str:
        return ".".join(self.path)


def resolve(name: str, where: str) -> Key:
    """The key ``name`` (an alias or a dotted path); unknown names fail naming the valid ones."""
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{where}: a key must be a non-empty string")
    canon = ALIASES.get(name, name)
    parts = tuple(canon.split("."))
    if canon in _CONFIG_KEYS:
        return Key(name, parts, _CONFIG_KEYS[canon], "config")
    n = len(parts)
    if n == 3 and parts[0] == "sensors" and parts[2] in _SENSOR_OVERRIDES:
        return Key(name, parts, _SENSOR_OVERRIDES[parts[2]], "config")
    if n == 2 and parts[0] == "policy" and parts[1]:
        return Key(name, parts, SCALAR, "policy")
    if n == 3 and parts[0] == "policies" and all(parts[1:]):
        return Key(name, parts, SCALAR, "config")
    if n >= 2 and parts[0] == "board":
        key = _board_key(name, parts)
        if key is not None:
            return key
    hint = difflib.get_close_matches(name, [*ALIASES, *_CONFIG_KEYS], n=1)
    fix = f"did you mean {hint[0]!r}? " if hint else ""
    raise ConfigError(f"{where}.{name}: unknown key; {fix}valid keys: {valid_keys_text()}")


def _board_key(name: str, parts: tuple[str, ...]) -> Key | None:
    n = len(parts)
    if n == 5 and parts[1:3] == ("thermal", "links") and all(parts[3:]):
        return Key(name, parts, NUMBER, "board")
    if n == 5 and parts[1:3] == ("thermal", "nodes") and parts[4] in _NODE_ATTRS:
        return Key(name, parts, NUMBER, "board")
    if n == 3 and parts[1] == "thermal" and parts[2] in ("rest_of_board_w", "to_ambient_scale"):
        return Key(name, parts, NUMBER, "board")
    if n == 4 and parts[1] == "domains" and parts[3] in _DOMAIN_ATTRS:
        return Key(name, parts, NUMBER, "board")
    if n == 4 and parts[1] == "sensors" and parts[3] in _SENSOR_MODEL:
        return Key(name, parts, NUMBER, "board")
    if n == 4 and parts[1] == "sensors" and parts[3] in _SENSOR_OVERRIDES:
        # The fusion weight / period / hard limit a config overrides: one place holds them.
        return Key(name, ("sensors", parts[2], parts[3]), _SENSOR_OVERRIDES[parts[3]], "config")
    return None


def check_value(key: Key, value: Any, where: str) -> Any:
    """``value`` if it has ``key``'s type (ints widen to floats for numbers), else a ConfigError."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: {value!r} is not a finite number; use a real value")
    ok = {
        NUMBER: isinstance(value, int | float) and not isinstance(value, bool),
        INTEGER: isinstance(value, int) and not isinstance(value, bool),
        STRING: isinstance(value, str),
        BOOLEAN: isinstance(value, bool),
        SCALAR: isinstance(value, str | int | float | bool),
    }[key.kind]
    if not ok:
        want = {
            NUMBER: "a number",
            INTEGER: "a whole number",
            STRING: "a string",
            BOOLEAN: "true or false",
            SCALAR: "a number, string or boolean",
        }[key.kind]
        raise ConfigError(f"{where}: expected {want}, got {value!r}")
    return float(value) if key.kind == NUMBER else value


@dataclass(frozen=True, slots=True)
class World:
    """One point's resolved world: its config, and the edited board tables when any were swept."""

    config: Config
    board: BoardProfile
    board_data: dict[str, Any] | None


def apply(base: Config, values: Mapping[Key, Any], where: str) -> World:
    """``base`` with every key set; errors are prefixed with ``where`` (the point)."""
    d = base.to_dict()
    policy_keys: list[tuple[Key, Any]] = []
    board_keys: list[tuple[Key, Any]] = []
    for key, v in values.items():
        if key.target == "policy":
            policy_keys.append((key, v))
        elif key.target == "board":
            board_keys.append((key, v))
        else:
            _set(d, key.path, v)
            if key.path == ("run", "board"):
                d["run"]["board_file"] = ""  # a named board replaces a base profile file
    # A variant on the policy axis (stepped+release_frontier=true) sets its keys as the file's
    # [policies.NAME] would; a point's policy.<param> axes then go on top.
    if is_variant(policy := str(d["run"]["policy"])):
        try:
            variant = parse_variant(policy, "run.policy")
        except ConfigError as e:
            raise ConfigError(f"{where}: {e}") from e
        d["run"]["policy"] = variant.spec
        for k, v in variant.overrides:
            _set(d, ("policies", variant.name, k), v)
    policy_name = split_policy_name(str(d["run"]["policy"]))[0]
    for key, v in policy_keys:
        _set(d, ("policies", policy_name, key.path[1]), v)
    try:
        cfg = parse_config(d, where)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from e
    if not board_keys:
        return World(cfg, cfg.load_board(), None)
    data = copy.deepcopy(raw_board_data(cfg))
    for key, v in board_keys:
        _edit_board(data, key, v, f"{where}: {key.name}")
    return World(cfg, parse_board(data, f"{where}: board"), data)


def raw_board_data(cfg: Config) -> dict[str, Any]:
    if cfg.board_file:
        return board_file_data(Path(cfg.board_file))
    return builtin_board_data(cfg.board)


def _set(d: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for p in path[:-1]:
        nxt = d.get(p)
        if not isinstance(nxt, dict):
            nxt = {}
            d[p] = nxt
        d = nxt
    d[path[-1]] = value


def _names(items: Any) -> str:
    return ", ".join(sorted(items))


def _edit_board(data: dict[str, Any], key: Key, v: Any, where: str) -> None:
    """Apply one board key to the raw profile tables (validated afterwards by parse_board)."""
    p = key.path
    thermal = data.get("thermal", {})
    nodes = thermal.get("nodes", {})
    name = data.get("board", {}).get("name", "?")
    if p[1] == "thermal" and p[2] == "links":
        a, b = p[3], p[4]
        for link in thermal.get("links", []):
            if isinstance(link, list) and len(link) == 3 and {link[0], link[1]} == {a, b}:
                link[2] = v
                return
        links = _names(f"{lk[0]}.{lk[1]}" for lk in thermal.get("links", []) if isinstance(lk, list))
        raise ConfigError(f"{where}: board {name} has no link between {a} and {b}; links: {links}")
    if p[1] == "thermal" and p[2] == "nodes":
        if p[3] not in nodes:
            raise ConfigError(f"{where}: board {name} has no thermal node {p[3]!r}; nodes: {_names(nodes)}")
        nodes[p[3]][p[4]] = v
        return
    if p[1:] == ("thermal", "to_ambient_scale"):
        if v <= 0:
            raise ConfigError(f"{where}: {v:g} must be > 0 (1 is the profile's heatsink, 0.5 half of it)")
        for node in nodes.values():
            if "to_ambient_w_per_k" in node:
                node["to_ambient_w_per_k"] = node["to_ambient_w_per_k"] * v
        return
    if p[1:] == ("thermal", "rest_of_board_w"):
        thermal["rest_of_board_w"] = v
        return
    if p[1] == "domains":
        domains = data.get("domains", {})
        if p[2] not in domains:
            raise ConfigError(f"{where}: board {name} has no domain {p[2]!r}; domains: {_names(domains)}")
        dom = domains[p[2]]
        if p[3] == "max_mhz":
            _cap_opps(dom, v, where)
        else:
            dom[p[3]] = v
        return
    if p[1] == "sensors":
        sensors = data.get("sensors", {})
        if p[2] not in sensors:
            raise ConfigError(f"{where}: board {name} has no sensor {p[2]!r}; sensors: {_names(sensors)}")
        sensors[p[2]][p[3]] = v
        return
    raise AssertionError(f"unhandled board key {key.canonical}")  # resolve() admits no other


def _cap_opps(dom: dict[str, Any], max_mhz: float, where: str) -> None:
    """Drop the OPPs above ``max_mhz``: the domain is capped in hardware (a lower-rated part, a
    vendor power mode), which a governor cannot undo, unlike a policy's cap."""
    opps, volts = dom.get("opp_mhz", []), dom.get("volt_v", [])
    keep = [i for i, f in enumerate(opps) if isinstance(f, int | float) and f <= max_mhz + 1e-9]
    if not keep:
        low = min(opps) if opps else 0
        raise ConfigError(f"{where}: {max_mhz:g} MHz is below the lowest OPP ({low:g} MHz); raise it")
    dom["opp_mhz"] = [opps[i] for i in keep]
    if len(volts) == len(opps):
        dom["volt_v"] = [volts[i] for i in keep]
