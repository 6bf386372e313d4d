"""The two arms of ``thermogov ab``: each a policy (or variant) on a whole config.

Session 21a's arms are policy variants on one config; but what a user chooses is not only a
policy's table: the fusion weights and trips of ``[governor]``, ``[sensors]`` overrides, who
drives the fan (``[fan]``), the load lever.  ``--config-b FILE`` makes arm B run a second whole
config while arm A runs ``--config`` (or the defaults), on the same board, workload and block
schedule.  Each arm's policy is then, by how many ``--policy`` are given:

* none: each config's own ``[run] policy``;
* one: that policy (or variant) on both configs (e.g. ``stepped`` under two fusion weightings);
* two: the first on ``--config``, the second on ``--config-b``.

Without ``--config-b`` an A/B still needs exactly two ``--policy`` (both on ``--config``).

An arm is labelled by its policy and, with ``--config-b``, its file's name (``stepped [b.toml]``;
the whole path when both files share a name): the blocks, the report and ``--json`` use the
label.  Two arms that would run the same settings are refused before anything is written: the
same config (``out`` and ``[sim]`` aside: the daemon reads neither to govern) with the same
policy, including a policy that reads the same values once defaults are filled in
(:func:`thermogov.variant.effective_params`).  The cool-down between blocks runs on ``--config``
for both arms, so every block starts from the same board whatever the arm.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thermogov.config import Config, SimConfig
from thermogov.interfaces import ConfigError
from thermogov.policies import PolicyContext
from thermogov.variant import EXAMPLE, Variant, check_distinct, effective_params, parse_variant

DEFAULTS_TAG = "defaults"


@dataclass(frozen=True, slots=True)
class Arm:
    """One arm: its policy (a variant), the config it runs on and the label it is reported by."""

    variant: Variant
    config: Config  # before the variant's keys are merged in
    label: str
    config_file: str | None = None  # the file the config came from (None: the defaults)

    def run_config(self) -> Config:
        """The config a block of this arm runs: the variant merged into its config."""
        return self.variant.apply(self.config)


def _tag(config: Config) -> str:
    return Path(config.source).name if config.source else DEFAULTS_TAG


def check_count(given: int, with_config_b: bool) -> None:
    """How many ``--policy`` an A/B takes (the module docstring); checked before anything else."""
    if with_config_b and given > 2:
        raise ConfigError(
            "--policy: with --config-b give none (each config's own policy), one (on both configs) or two"
        )
    if not with_config_b and given != 2:
        raise ConfigError(f"--policy: give exactly two arms, e.g. --policy stepped --policy {EXAMPLE}")


def make_arms(policies: Sequence[str], config_a: Config, config_b: Config | None) -> tuple[Arm, Arm]:
    """The two arms from ``--policy`` (0-2 given) and the configs; bad input is one ConfigError."""
    check_count(len(policies), config_b is not None)
    if config_b is None:
        a, b = parse_variant(policies[0]), parse_variant(policies[1])
        check_distinct([a, b], config_a)
        return Arm(a, config_a, a.label, config_a.source or None), Arm(
            b, config_a, b.label, config_a.source or None
        )
    texts = list(policies) if len(policies) == 2 else [policies[0]] * 2 if policies else [None, None]
    variants = [
        Variant(cfg.policy) if text is None else parse_variant(text)
        for text, cfg in zip(texts, (config_a, config_b), strict=True)
    ]
    tags = [_tag(config_a), _tag(config_b)]
    if tags[0] == tags[1]:  # two files of the same name in different folders
        tags = [config_a.source or DEFAULTS_TAG, config_b.source]
    arms = tuple(
        Arm(v, cfg, f"{v.label} [{tag}]", cfg.source or None)
        for v, cfg, tag in zip(variants, (config_a, config_b), tags, strict=True)
    )
    first, second = arms
    if _settings(first.run_config()) == _settings(second.run_config()):
        raise _refuse_same(first, second, "")
    return first, second


def _settings(config: Config, *, without_policies: bool = False) -> Config:
    """What a block's daemon governs by: ``out`` (where the folders go) and ``[sim]`` (the
    simulator's world) play no part in it; with ``without_policies`` the policy choice and tables
    are left out too (compared separately, defaults filled in)."""
    cfg = dataclasses.replace(config, out="", sim=SimConfig())
    return dataclasses.replace(cfg, policy="", policies={}) if without_policies else cfg


def _refuse_same(first: Arm, second: Arm, how: str) -> ConfigError:
    return ConfigError(
        f"--config-b: {first.label!r} and {second.label!r} run the same settings{how}; give a second "
        "config that differs where you want to compare (e.g. [governor] or [policies.NAME])"
    )


def check_arms_differ(first: Arm, second: Arm, prepared: Sequence[tuple[Config, PolicyContext]]) -> None:
    """Refuse (one ConfigError naming both) arms of two configs that govern alike once resolved on
    the board (``prepared``: each arm's config as the daemon's ``prepare`` made it, and its policy
    context) and once every policy default is filled in: the same settings outside
    ``[policies.*]`` and the same values read by the policy (``stepped`` on one file,
    ``stepped+release_frontier=false`` on the other)."""
    (cfg_a, ctx_a), (cfg_b, ctx_b) = prepared
    outside = [
        _settings(arm.variant.apply(cfg), without_policies=True)
        for arm, cfg in ((first, cfg_a), (second, cfg_b))
    ]
    if outside[0] != outside[1]:
        return
    read: list[tuple[str, Any]] = [
        effective_params(first.variant, cfg_a, ctx_a),
        effective_params(second.variant, cfg_b, ctx_b),
    ]
    if read[0] == read[1]:
        raise _refuse_same(first, second, " once defaults are filled in")


__all__ = ["DEFAULTS_TAG", "Arm", "check_arms_differ", "check_count", "make_arms"]
