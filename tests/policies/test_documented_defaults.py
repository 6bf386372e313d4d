"""The defaults the docs and the example config quote are the code's, so they cannot drift.

Each policy factory is run on an empty ``[policies.<name>]`` table through a table that records
every default it falls back to.  docs/policies.md quotes them in one ``Parameters (defaults):``
paragraph per policy, as TOML (`` `key = value` ``); a key whose default depends on the board
(``domains``) or that has none (estimated when absent) is named without a value.  The example
config's commented-out ``#key = value`` lines under ``[policies.<name>]`` must show the same.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.policies.helpers import ctx_for
from thermogov import tomlread
from thermogov.policies import _REGISTRY, policy_names
from thermogov.tomlcheck import _MISSING, Table

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "policies.md"
EXAMPLE = REPO / "thermogov" / "examples" / "thermogov.toml"
BOARD_DEPENDENT = {"domains"}  # the default is every domain of the board: named, never quoted
NO_DEFAULT = object()  # asked with has(): optional, the policy estimates it when absent


class RecordingTable(Table):
    """A Table that remembers the default of every key the factory reads."""

    def __init__(self, data: Any, where: str) -> None:
        super().__init__(data, where)
        self.defaults: dict[str, Any] = {}

    def _get(self, key: str, default: Any) -> Any:
        if default is not _MISSING:
            self.defaults[key] = default
        return super()._get(key, default)

    def has(self, key: str) -> bool:
        self.defaults.setdefault(key, NO_DEFAULT)
        return super().has(key)


def code_defaults(name: str) -> dict[str, Any]:
    t = RecordingTable({}, f"policies.{name}")
    _REGISTRY[name](t, ctx_for("jetson-orin-nano"), "50%" if name == "fixed" else "")
    return t.defaults


PARAMETERISED = [n for n in policy_names() if code_defaults(n)]


def documented(name: str) -> tuple[dict[str, Any], set[str]]:
    """(quoted `key = value` pairs, keys named without a value) of the policy's section."""
    sections = re.split(r"^#+ ", DOC.read_text(), flags=re.M)
    mine = [s for s in sections if s.startswith(f"`{name}`")]
    assert len(mine) == 1, f"docs/policies.md: one section headed `{name}`"
    paras = [p for p in re.split(r"\n\s*\n", mine[0]) if p.startswith("Parameters (defaults):")]
    assert len(paras) == 1, f"docs/policies.md `{name}`: one 'Parameters (defaults):' paragraph"
    text = " ".join(paras[0].split())
    quoted = {}
    for key, value in re.findall(r"`(\w+) = ([^`]+)`", text):
        quoted[key] = tomlread.loads(f"v = {value}")["v"]
    named = set(re.findall(r"`(\w+)`", text))
    return quoted, named


def test_the_recorder_sees_the_defaults() -> None:
    """A known default of each kind, so an empty record cannot pass the comparisons."""
    d = code_defaults("stepped")
    assert d["limit_margin_c"] == 1.5 and d["window_s"] == 30.0
    assert code_defaults("power_allocator")["sustainable_power_mw"] is NO_DEFAULT
    assert set(PARAMETERISED) >= {"stepped", "hysteresis", "step_wise", "bang_bang", "power_allocator"}


@pytest.mark.parametrize("name", PARAMETERISED)
def test_docs_quote_every_default_as_the_code_has_it(name: str) -> None:
    code = code_defaults(name)
    quoted, named = documented(name)
    wrong = {k: (v, code.get(k, "not a parameter")) for k, v in quoted.items() if code.get(k) != v}
    assert not wrong, f"docs/policies.md `{name}`: documented (doc, code): {wrong}"
    valued = {k for k, v in code.items() if v is not NO_DEFAULT and k not in BOARD_DEPENDENT}
    assert valued - set(quoted) == set(), f"docs/policies.md `{name}`: defaults not quoted"
    assert set(code) - valued - named == set(), f"docs/policies.md `{name}`: parameters not named"


def test_the_board_dependent_default_is_every_domain() -> None:
    ctx = ctx_for("jetson-orin-nano")
    for name in PARAMETERISED:
        code = code_defaults(name)
        if "domains" in code:
            assert code["domains"] == list(ctx.tables_hz), name


def _example_sections() -> dict[str, dict[str, Any]]:
    """``#key = value`` lines under each ``[policies.<name>]`` of the example, parsed as TOML."""
    out: dict[str, dict[str, Any]] = {}
    current = None
    for line in EXAMPLE.read_text().splitlines():
        if m := re.match(r"^\[policies\.(\w+)\]", line):
            current = out.setdefault(m.group(1), {})
        elif line.startswith("["):
            current = None
        elif current is not None and (m := re.match(r"^#(\w+) = (.+)$", line)):
            current[m.group(1)] = tomlread.loads(f"v = {m.group(2)}")["v"]
    return out


def test_the_example_config_shows_the_code_defaults() -> None:
    sections = _example_sections()
    assert sections.get("stepped")
    for name, shown in sections.items():
        code = code_defaults(name)
        # hysteresis shows an example cap table ({ cpu = "min" }), not its empty default
        scalar = {k: v for k, v in shown.items() if not isinstance(v, dict | list)}
        wrong = {k: (v, code.get(k, "not a parameter")) for k, v in scalar.items() if code.get(k) != v}
        assert not wrong, f"examples/thermogov.toml [policies.{name}] (shown, code): {wrong}"
    # every default of the default policy is shown
    assert {k for k in code_defaults("stepped")} == set(sections["stepped"])
