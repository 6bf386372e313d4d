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
``0.5``, ``3``, ``"text"``); a bare word that is not TOML (``fast``) is a string.  A value meant
as a number is read as the numeric options read theirs (session 29i's one-word rule, 30l): one
word, any script's decimal digits, no TOML-only form such as ``0x55`` (:func:`_number_value`).
Every value is one word outside quotes (31h: ``mode= fast `` and ``levels=[1, 2]`` are refused
as ``trip_c=85 `` is; a string's own spaces go inside quotes), and each number in an array or
inline table is read as a lone number is (:func:`_compound`).

A variant is applied to a config exactly as if the user had written the keys under
``[policies.NAME]`` in the config file (:meth:`Variant.apply`), so the overrides meet the same
checks as the file's policy table (unknown key, wrong type, range) when the policy is built;
:func:`check_variant` only re-words such an error to name the arm and its key.  The run folder's
``config.toml`` then records the merged table, so ``thermogov run --config`` reproduces an arm.
NaN and infinity are refused here, before any check, whatever the key's type.

Two arms are the same arm when their built policies read the same parameters (session 21c):
:func:`effective_params` builds the policy through a :class:`Table` that records every value the
policy's factory read, defaults included, so ``stepped+release_frontier=false`` is seen to be
``stepped``.  A factory is a function of (spec, the values it read, the board's context), so equal
records mean equal policies; a branch on whether a key is *present* (``Table.has``) is recorded
too, so a policy that treats a given default differently from an absent key stays distinct.
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
from thermogov.policies import PolicyContext, check_policy_name, make_policy, split_policy_name
from thermogov.tomlcheck import Table
from thermogov.tomlread import TOMLDecodeError, loads
from thermogov.units import ascii_digits, blank

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


def _plain_number(text: str) -> int | float | None:
    """``text`` as the numeric options read it (Python's ``int``, else ``float``, after
    :func:`~thermogov.units.ascii_digits`), or None when it is no plain decimal number."""
    digits = ascii_digits(text)
    for read in (int, float):
        try:
            return read(digits)
        except ValueError as e:  # int()'s limit (session 25l): Python's hint is no fix for a user
            if "integer string conversion" in str(e):
                raise
    return None


def _number_value(field: str, text: str, key: str, raw: str) -> int | float | None:
    """A value meant as a number, by the numeric options' one-word rule (session 29i): one word
    (``trip_c=85 `` was 85 after a strip while ``--ambient "85 "`` is refused), decimal digits
    of any script (``trip_c=٨٥`` was refused, ``--ambient ٨٥`` is 85), no TOML-only form
    (``0x55``, ``0o125``, ``0b1010101`` were 85: no numeric option reads them); None when
    ``raw`` is no number at all (a word, a boolean, a quoted string, an array)."""
    word = raw.strip()
    number = _plain_number(word)
    if number is None:
        toml = _value(word)
        if isinstance(toml, bool) or not isinstance(toml, int | float):
            return None
        shown = toml if abs(toml) < 1e15 else 85  # a 4000-digit hex value: no 4000-digit example
        raise ConfigError(
            f"{field}: {text!r}: {key}={word} is not a decimal number; write it in decimal digits, "
            f"e.g. {key}={shown}"
        )
    if blank(raw):
        raise ConfigError(
            f"{field}: {text!r}: {key}={raw!r} holds a space or a control character; give the "
            f"number as one word, e.g. {key}={word}"
        )
    return number


# A value's text in TOML's pieces: a quoted string, a bracket/brace/comma/equals sign, a bare run
# (a number, a boolean, a word, a key of an inline table), or blanks.
_PIECE = re.compile(r'"(?:[^"\\]|\\.)*"?|\'[^\']*\'?|[\[\]{},=]|[^\[\]{},="\'\s]+|\s+')


def _pieces(text: str) -> list[str]:
    return _PIECE.findall(text)


def _quoted(piece: str) -> bool:
    return piece[:1] in ("'", '"')


def _one_word(field: str, text: str, key: str, given: str) -> None:
    """Any value is one word (session 29i's rule, 30l's for numbers): no space, line break or
    control/format character outside a quoted string.  ``mode= fast `` was ``fast`` after a
    strip and ``levels=[1, 2]`` a list while ``trip_c=85 `` is refused; a space meant as part
    of a string is written inside quotes (``mode=" fast "``), where TOML keeps it."""
    pieces = _pieces(given)
    if any(blank(p) for p in pieces if not _quoted(p)):
        shown = "".join(p for p in pieces if _quoted(p) or not blank(p))
        raise ConfigError(
            f"{field}: {text!r}: {key}={given!r} holds a space or a control character outside "
            f"quotes; give the value as one word, e.g. {key}={shown} (a string's own spaces go "
            f'inside quotes, {key}="..."'
            ")"
        )


def _compound(field: str, text: str, key: str, given: str) -> Any:
    """An array or inline table (``levels=[1,2]``, ``trips=[{temp_c=85,hyst_c=2}]``) read by
    TOML after each number in it is read by the numeric options' rule, as a lone number is
    (:func:`_number_value`): any script's decimal digits, no TOML-only form (``[85,0x55]``
    was ``[85, 85]``, ``[٨٥]`` was refused)."""
    pieces = _pieces(given)
    out = []
    for i, p in enumerate(pieces):
        is_key = i + 1 < len(pieces) and pieces[i + 1] == "="
        if _quoted(p) or p in "[]{},=" or is_key:
            out.append(p)
            continue
        number = _plain_number(p)
        if number is None:
            toml = _value(p)
            if isinstance(toml, int | float) and not isinstance(toml, bool):
                raise ConfigError(
                    f"{field}: {text!r}: {key}={given} holds {p}, which is not a decimal number; "
                    "write every number in decimal digits"
                )
        out.append(p if number is None else repr(number))
    value = _value("".join(out))
    return given if isinstance(value, str) else value  # not TOML: the text, as before


def parse_variant(text: str, field: str = "--policy") -> Variant:
    """``NAME[:ARG][+key=value]...`` as a :class:`Variant`; bad text is one ConfigError naming it."""
    head, *parts = _SPLIT.split(text)
    head = head.strip()
    if SEPARATOR in head:
        raise _bad(field, text, f"cannot read {head[head.index(SEPARATOR) :]!r} as +key=value")
    check_policy_name(head, field)
    overrides: dict[str, Any] = {}
    for part in parts:
        key, _, given = part.partition("=")
        key, raw = key.strip(), given.strip()
        if not raw:
            raise _bad(field, text, f"{key}= has no value")
        if key in overrides:
            raise _bad(field, text, f"{key} is given twice")
        try:
            number = _number_value(field, text, key, given)
            if number is not None:
                value = number
            else:
                _one_word(field, text, key, given)
                value = _compound(field, text, key, raw) if raw[0] in "[{" else _value(raw)
        except ValueError as e:  # int()'s limit (session 25l): Python's hint is no fix for a user
            if "integer string conversion" not in str(e):
                raise
            raise ConfigError(
                f"{field}: {key}= is a number of more than 4300 digits; give a plain number"
            ) from None
        if not _finite(value):
            raise ConfigError(f"{field}: {text!r}: {key}={raw} is not a finite number; give a plain number")
        overrides[key] = value
    return Variant(head, tuple(overrides.items()))


def is_variant(text: str) -> bool:
    """Whether ``text`` is meant as a variant (a ``+key=`` anywhere, or a ``+`` in the name part)
    rather than a plain name; ``fixed:1e+3`` stays a plain name with its argument."""
    return _SPLIT.search(text) is not None or SEPARATOR in split_policy_name(text)[0]


def policy_or_variant(text: str, field: str = "--policy") -> Variant:
    """``--policy`` of ``sim``/``run`` and a sweep's policy axis: text without a ``+key=`` is a
    plain name, checked and applied as before variants (``replace(config, policy=name)``), its
    name and argument without the blanks around them as a variant's name is read (31h): ``--policy
    " hysteresis"`` ran, but as policy ``" hysteresis"``, in a run folder named with the space
    (session 32h); anything else is parsed as a variant."""
    if not is_variant(text):
        check_policy_name(text, field)
        name, arg = split_policy_name(text)
        return Variant(f"{name}:{arg}" if ":" in text else name)
    return parse_variant(text, field)


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


def _norm(v: Any) -> Any:
    """A hashable form in which ``1 == 1.0`` (a number is read as a float) but ``true != 1``."""
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, list | tuple):
        return tuple(_norm(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((str(k), _norm(x)) for k, x in v.items()))
    return v


class _Recording(Table):
    """A policy table that logs each value the factory read (given or default) and each ``has``."""

    def __init__(self, data: Any, where: str, log: list[tuple[str, Any]]) -> None:
        super().__init__(data, where)
        self._log = log

    def _get(self, key: str, default: Any) -> Any:
        v = super()._get(key, default)
        self._log.append((self._path(key), _norm(v)))  # a table as given, then its reads (``table``)
        return v

    def has(self, key: str) -> bool:
        present = super().has(key)
        self._log.append((f"{self._path(key)}?", present))
        return present

    def table(self, key: str, *default: Any) -> Table:
        sub = super().table(key, *default)
        return _Recording(sub._data, sub.where, self._log)


def effective_params(variant: Variant, config: Config, ctx: PolicyContext) -> tuple[str, tuple[Any, ...]]:
    """What ``variant`` runs on ``config`` against the board ``ctx`` describes: its spec and every
    parameter value its policy read, in reading order, defaults included.  Call it after
    :func:`check_variant` (a bad table raises the config's own error here)."""
    name = variant.name
    log: list[tuple[str, Any]] = []
    table = _Recording(dict(variant.apply(config).policies.get(name, {})), f"policies.{name}", log)
    make_policy(variant.spec, table, ctx)
    return variant.spec, tuple(log)


def _refuse_same(first: Variant, second: Variant, field: str, how: str) -> ConfigError:
    return ConfigError(
        f"{field}: {first.label!r} and {second.label!r} run the same policy with the same "
        f"parameters{how}; give two different arms, e.g. --policy stepped --policy {EXAMPLE}"
    )


def check_same_policy(
    variants: list[Variant], config: Config, ctx: PolicyContext, field: str = "--policy"
) -> None:
    """Arms whose built policies read the same values (a key set to its default is the plain
    arm) leave nothing to compare: one ConfigError naming both."""
    seen: dict[tuple[str, Any], Variant] = {}
    for v in variants:
        key = effective_params(v, config, ctx)
        if key in seen:
            raise _refuse_same(seen[key], v, field, " once defaults are filled in")
        seen[key] = v


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


__all__ = [
    "EXAMPLE",
    "Variant",
    "check_distinct",
    "check_same_policy",
    "check_variant",
    "effective_params",
    "is_variant",
    "parse_variant",
    "policy_or_variant",
    "show_value",
]
