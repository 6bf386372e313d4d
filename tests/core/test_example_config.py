"""The example configuration (``thermogov service install`` copies it) shows the code's defaults.

Every key of ``thermogov/examples/thermogov.toml`` is written commented out at its default
(``#key = value``), so a user who uncomments a line changes nothing until they edit the value.
That promise breaks silently when a default moves in the code and not in the example (the
issue's "words that disagree with the code").  Here the example is loaded with every commented
key and table uncommented, through a table that records the default each key falls back to:
the file must load (every key known, every value in range) and every shown value must be the
default.  Policies' tables are left to ``tests/policies/test_documented_defaults.py``; a key
without a default in the code (``fan.start_c``: from the trip; ``sim.initial_temp_c``: unset)
shows an example value, as does the sample ``[[sim.events]]`` entry.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from thermogov.config import parse_config
from thermogov.tomlcheck import _MISSING, Table
from thermogov.tomlread import loads

EXAMPLE = Path(__file__).resolve().parents[2] / "thermogov" / "examples" / "thermogov.toml"
_UNCOMMENT = re.compile(r"^#(?=\[|[a-z_]+ = )")
_HEADER = re.compile(r"^#?(\[\[?)([a-z_.]+)\]\]?\s*$")
_KEY = re.compile(r"^#([a-z_]+) = (.+)$")


def _shown() -> list[tuple[str, str, Any]]:
    """(table, key, value) of every ``#key = value`` line outside array tables and policies."""
    out = []
    table, skip = "", False
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        if h := _HEADER.match(line):
            table, skip = h.group(2), h.group(1) == "[[" or h.group(2).startswith("policies")
        elif (k := _KEY.match(line)) and not skip:
            out.append((table, k.group(1), loads(f"v = {k.group(2)}")["v"]))
    return out


@pytest.fixture
def loaded_defaults(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The example, every commented line uncommented, loaded; the default each key fell back to."""
    seen: dict[str, Any] = {}
    get = Table._get

    def recording(self: Table, key: str, default: Any) -> Any:
        seen[f"{self.where}.{key}"] = default
        return get(self, key, default)

    monkeypatch.setattr(Table, "_get", recording)
    text = "\n".join(_UNCOMMENT.sub("", line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines())
    parse_config(loads(text)).load_board()
    return seen


def test_every_value_the_example_shows_is_the_codes_default(loaded_defaults: dict[str, Any]) -> None:
    shown = _shown()
    checked, wrong = 0, []
    for table, key, value in shown:
        where = f"{table}.{key}"
        assert where in loaded_defaults, f"{where}: shown in the example but never read by the config"
        default = loaded_defaults[where]
        if default is _MISSING:
            continue  # no default in the code: the example shows a sample value
        checked += 1
        if value != default:
            wrong.append(f"{where}: example {value!r}, code {default!r}")
    assert not wrong, wrong
    assert checked >= 50, f"only {checked} of {len(shown)} shown keys have a default: the parse is broken"
