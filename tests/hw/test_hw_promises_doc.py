"""docs/hardware.md "What it promises" names tests that exist (a renamed test breaks this)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_test_the_promises_name_exists() -> None:
    text = (REPO / "docs" / "hardware.md").read_text()
    section = text.split("## What it promises", 1)[1].split("\n## ", 1)[0]
    section = re.sub(r"`\s*\n\s*", "`", section)  # names wrapped across lines
    files = set(re.findall(r"(tests/[\w/]+\.py)", section))
    short = set(re.findall(r"`(test_hw_\w+\.py)", section))
    for name in short:
        files.add(f"tests/hw/{name}")
    assert len(files) >= 8
    for f in files:
        assert (REPO / f).is_file(), f
    named = re.findall(r"(test_hw_\w+\.py)::\s*(\w+)", section.replace("::\n", "::"))
    assert named
    for f, fn in named:
        assert f"def {fn}(" in (REPO / "tests" / "hw" / f).read_text(), (f, fn)
    for promise in ("**Restore.**", "**Confinement.**", "**Failsafe", "**Exit codes.**"):
        assert promise in section
