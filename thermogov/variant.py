"""Policy variants: a registered policy with some ``[policies.<name>]`` parameters set on the command line.

``thermogov ab`` and ``thermogov compare`` take policies by name; a decision such as
``release_frontier`` (docs/policies.md, session 20a) needs the *same* policy twice, once with a
parameter changed.  A variant is written ``NAME[:ARG][+key=value]...``::

    stepped+release_frontier=true
    stepped+release_frontier=true+limit_margin_c=0.5

``+`` is the separator because it reads as "stepped plus this setting", needs no shell quoting,
and holds no comma, so ``compare``'s comma-separated ``--policy`` list still splits between arms
(``--policy stepped,stepped+release_frontier=true``).  A ``+`` splits only where a ``key=``
follows, so a value such as ``1e+3`` stays whole.  A value is read as a TOML value (``true``,
``0.5``, ``3``, ``"text"``); a bare word that is not TOML (``fast``) is a string.

A variant is applied to a config exactly as if the user had written the keys under
``[policies.NAME]`` in the config file (:meth:`Variant.apply`), so the overrides meet the same
checks as the file's policy table (unknown key, wrong type, range) when the policy is built;
:func:`check_variant` only re-words such an error to name the arm and its key.  The run folder's
``config.toml`` then records the merged table, so ``thermogov run --config`` reproduces an arm.
NaN and infinity are refused here, before any check, whatever the key's type.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.policies import check_policy_name, split_policy_name
from thermogov.tomlread import TOMLDecodeError, loads

SEPARATOR = "+"
EXAMPLE = "stepped+release_frontier=true"
_SPLIT = re.compile(r"\+(?=\s*[A-Za-z_][A-Za-z0-9_]*\s*=)")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Variant:
    """One arm: the registry's spec (``stepped``, ``fixed:50%``) and the overrides, in order."""

    spec: str
    overrides: tuple[tuple[str, Any], ...] = ()

    @property
    def name(self) -> str:
        return split_policy_name(self.spec)[0]

    @property
    def label(self) -> str:
        """The canonical text (``stepped+release_frontier=true``): rows, blocks and JSON use it."""
        return self.spec + "".join(f"{SEPARATOR}{k}={show_value(v)}" for k, v in self.overrides)

    def apply(self, config: Config) -> Config:
        """``config`` running this arm: its overrides merged into ``[policies.NAME]``.

        Without overrides this is exactly ``replace(config, policy=spec)`` (what a plain name
        always did), so a plain arm's run is unchanged bit for bit.
        """
        if not self.overrides:
            return dataclasses.replace(config, policy=self.spec)
        table = {**config.policies.get(self.name, {}), **dict(self.overrides)}
        return dataclasses.replace(config, policy=self.spec, policies={**config.policies, self.name: table})

    def effective(self, config: Config) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """What the arm runs on ``config``: its spec and the merged parameter table, sorted."""
        return self.spec, tuple(sorted(self.apply(config).policies.get(self.name, {}).items()))


def show_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v if _KEY.fullmatch(v) else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(v)


def _bad(field: str, text: str, why: str) -> ConfigError:
    return ConfigError(f"{field}: {text!r}: {why}; write NAME+key=value, e.g. {EXAMPLE}")


def _value(text: str) -> Any:
    try:
        return loads(f"v = {text}")["v"]
    except TOMLDecodeError:
        return text  # a bare word: a string, checked by the policy like the file's strings


def _finite(v: Any) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, list):
        return all(_finite(x) for x in v)
    if isinstance(v, dict):
        return all(_finite(x) for x in v.values())
    return True


def parse_variant(text: str, field: str = "--policy") -> Variant:
    """``NAME[:ARG][+key=value]...`` as a :class:`Variant`; bad text is one ConfigError naming it."""
    head, *parts = _SPLIT.split(text.strip())
    head = head.strip()
    if SEPARATOR in head:
        raise _bad(field, text, f"cannot read {head[head.index(SEPARATOR) :]!r} as +key=value")
    check_policy_name(head, field)
    overrides: dict[str, Any] = {}
    for part in parts:
        key, _, raw = part.partition("=")
        key, raw = key.strip(), raw.strip()
        if not raw:
            raise _bad(field, text, f"{key}= has no value")
        if key in overrides:
            raise _bad(field, text, f"{key} is given twice")
        value = _value(raw)
        if not _finite(value):
            raise ConfigError(f"{field}: {text!r}: {key}={raw} is not a finite number; give a plain number")
        overrides[key] = value
    return Variant(head, tuple(overrides.items()))


def check_variant(
    variant: Variant, config: Config, build: Callable[[Config], object], field: str = "--policy"
) -> None:
    """Build ``variant`` on ``config`` (``build`` makes the policy, e.g. against a board).

    An error in one of its keys is re-worded to name the arm and the key; any other error in
    the merged table (a rule across keys, or the file's own key) gets the arm in front and keeps
    the file's name; a plain arm's error is left as the config's checks wrote it."""
    try:
        build(variant.apply(config))
    except ConfigError as e:
        msg = str(e)
        where = f"policies.{variant.name}."
        for key, _ in variant.overrides:
            at = msg.find(f"{where}{key}:")
            if at >= 0:
                rest = msg[at + len(where) :]
                raise ConfigError(f"{field} {variant.label!r}: {rest}") from e
        if variant.overrides and f"policies.{variant.name}" in msg:  # a rule across keys
            raise ConfigError(f"{field} {variant.label!r}: {msg}") from e
        raise


def check_distinct(variants: list[Variant], config: Config, field: str = "--policy") -> None:
    """Two arms that run the same policy with the same parameters leave nothing to compare."""
    seen: dict[tuple[str, Any], Variant] = {}
    for v in variants:
        key = v.effective(config)
        if key in seen:
            raise ConfigError(
                f"{field}: {seen[key].label!r} and {v.label!r} run the same policy with the same "
                f"parameters; give two different arms, e.g. --policy stepped --policy {EXAMPLE}"
            )
        seen[key] = v


__all__ = ["EXAMPLE", "Variant", "check_distinct", "check_variant", "parse_variant", "show_value"]
