"""docs/architecture.md's module tables are the tree as it is.

The page is the one description of the architecture to maintain, so a module added without a
row, or a row left behind by a move, is a word that disagrees with the code.  Each section
names the modules of one folder by their path below it (``model/plant.py``) or, for the
policies, by a policy's registered name; a folder described as one capability (the importers,
the sweep) is named as a whole.  Here every module of ``thermogov/``, ``sim/`` and ``hw/`` must
be named in its section, and every path a section names must exist.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "architecture.md"
# Heading -> the folder its module names are relative to.
SECTIONS = {
    "## Core modules": "thermogov",
    "## The policy interface": "thermogov/policies",
    "## The simulated world": "sim",
    "## The real world": "hw",
}
WHOLE = ("thermogov/importers", "sim/sweep")  # named as one capability, not module by module
_TOKEN = re.compile(r"`([^`\s]+)`")


def _named() -> dict[str, set[str]]:
    """Per folder of SECTIONS, every backticked token of its section."""
    out: dict[str, set[str]] = {root: set() for root in SECTIONS.values()}
    root = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            root = next((r for h, r in SECTIONS.items() if line.startswith(h)), None)
        elif root is not None:
            out[root].update(_TOKEN.findall(line))
    return out


def _modules(root: str) -> list[Path]:
    return sorted(p for p in (REPO / root).glob("*.py") if p.name != "__init__.py")


def test_every_module_is_named_in_its_section() -> None:
    named = _named()
    missing = []
    for base in ("thermogov", "sim", "hw"):
        for path in sorted((REPO / base).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if path.name == "__init__.py" or rel.startswith(WHOLE) or "/boards/" in rel:
                continue
            policy = rel.startswith("thermogov/policies/")
            tokens = named["thermogov/policies"] if policy else named[base]
            below = {rel[len(base) + 1 :], path.name if policy else ""}
            if not below & tokens and not (policy and path.stem in tokens):
                missing.append(rel)
    assert not missing, f"modules with no row in docs/architecture.md: {missing}"


def test_every_path_a_section_names_exists() -> None:
    absent = []
    for root, tokens in _named().items():
        for token in tokens:
            # Relative to the section's folder, to the core's, or (a cross-reference) to the repo.
            bases = (REPO / root, REPO / "thermogov", REPO)
            if (
                token.endswith((".py", "/"))
                and "*" not in token
                and not any((b / token).exists() for b in bases)
            ):
                absent.append(f"{root}/{token}")
    assert not absent, f"docs/architecture.md names paths that do not exist: {absent}"


def test_every_package_folder_is_named() -> None:
    named = _named()
    unnamed = []
    for base in ("thermogov", "sim", "hw"):
        tokens = named[base] | (named["thermogov/policies"] if base == "thermogov" else set())
        for init in sorted((REPO / base).rglob("*/__init__.py")):
            folder = init.parent.relative_to(REPO / base).as_posix() + "/"
            if not any(t.startswith(folder) for t in tokens):
                unnamed.append(f"{base}/{folder}")
    assert not unnamed, f"package folders docs/architecture.md does not name: {unnamed}"
