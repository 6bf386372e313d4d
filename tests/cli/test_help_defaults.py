"""The defaults `thermogov sim --help` states are the config's, so the help cannot drift."""

from __future__ import annotations

import re

from thermogov.config import Config
from thermogov.sim.cli import sim_command
from thermogov.units import parse_duration_s


def _stated_default(option: str) -> str:
    params = {p.opts[0]: p for p in sim_command.params if getattr(p, "opts", None)}
    m = re.search(r"Default: ([^.\s]+(?:\.\d+)?)\.?", params[option].help or "")
    assert m, f"{option}: the help names no default"
    return m.group(1)


def test_sim_help_states_the_config_defaults() -> None:
    cfg = Config()
    assert parse_duration_s(_stated_default("--duration"), "--duration") == cfg.sim.duration_s
    assert float(_stated_default("--ambient")) == cfg.sim.ambient_c
    assert int(_stated_default("--seed")) == cfg.seed
    assert _stated_default("--out") == cfg.out
    assert _stated_default("--board") == cfg.board
