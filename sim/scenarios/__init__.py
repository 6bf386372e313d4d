"""The scenario suite: named worlds as data (``sim/scenarios/*.toml``).

A scenario file is an ordinary configuration (the schema of :func:`thermogov.config.parse_config`)
plus an optional ``[scenario]`` table (``description``, ``tags``), strictly validated like the
rest.  A scenario describes the *world*: which board, the ambient, the load, the events.  It
does not choose the policy, seed or output folder; those come from the base configuration, so
``thermogov compare`` can run every policy on identical worlds.

Merging rule (``load_scenario(name, base)``): the scenario's ``[sim]`` replaces the base's
entirely (a scenario's world must not inherit a stray event or ambient from a user config);
``[run]``, ``[governor]``, ``[sensors]`` and ``[policies]`` are merged key by key with the
scenario winning.  If the scenario names a board, a base ``board_file`` is dropped, because a
calibrated Jetson profile must not silently stand in for the scenario's Raspberry Pi.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any

from thermogov import tomlread
from thermogov.config import Config, parse_config
from thermogov.interfaces import ConfigError
from thermogov.tomlcheck import Table

_PACKAGE = "thermogov.sim.scenarios"


@dataclass(frozen=True, slots=True)
class ScenarioInfo:
    name: str
    description: str
    tags: tuple[str, ...]


def scenario_names() -> list[str]:
    root = resources.files(_PACKAGE)
    return sorted(p.name[: -len(".toml")] for p in root.iterdir() if p.name.endswith(".toml"))


def _read(name: str) -> dict[str, Any]:
    names = scenario_names()
    if name not in names:
        raise ConfigError(f"scenario: unknown scenario {name!r}; choose one of {', '.join(names)}")
    text = resources.files(_PACKAGE).joinpath(f"{name}.toml").read_text(encoding="utf-8")
    try:
        return tomlread.loads(text)
    except tomlread.TOMLDecodeError as e:
        raise ConfigError(f"scenarios/{name}.toml: malformed TOML ({e}); fix the syntax") from e


def _info(name: str, data: dict[str, Any], where: str = "") -> ScenarioInfo:
    t = Table(data.get("scenario", {}), f"{where or f'scenarios/{name}.toml'}: scenario")
    info = ScenarioInfo(name, t.string("description", ""), tuple(t.strings("tags", [])))
    t.done()
    return info


def scenario_info(name: str) -> ScenarioInfo:
    return _info(name, _read(name))


def scenario_board(name: str) -> str | None:
    """The board a scenario is written for, or None when it leaves the board to the config."""
    board = _read(name).get("run", {}).get("board")
    return board if isinstance(board, str) else None


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def load_scenario(name: str, base: Config | None = None) -> Config:
    """The base configuration with the scenario's world in place (see the module docstring)."""
    return scenario_from_data(name, _read(name), base)


def scenario_from_data(
    name: str, data: dict[str, Any], base: Config | None = None, *, where: str = ""
) -> Config:
    """:func:`load_scenario` for an already-parsed file (``name`` labels the run; ``where``, the
    user's own file, labels errors: a path under ``scenarios/`` would send them to the suite)."""
    where = where or f"scenarios/{name}.toml"
    _info(name, data, where)
    world = {k: v for k, v in data.items() if k != "scenario"}
    try:
        parse_config(world, where)  # reject the file's own mistakes with its own name
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from e
    merged = (base or Config()).to_dict()
    run = dict(world.get("run", {}))
    if "board" in run and "board_file" not in run:
        run["board_file"] = ""
    merged["run"] = {**merged["run"], **run}
    for key in ("governor", "sensors", "policies"):
        if key in world:
            merged[key] = _merge(merged.get(key, {}), world[key])
    merged["sim"] = {**world.get("sim", {}), "scenario": name}
    try:
        return parse_config(merged, where)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from e


__all__ = [
    "ScenarioInfo",
    "load_scenario",
    "scenario_board",
    "scenario_from_data",
    "scenario_info",
    "scenario_names",
]
