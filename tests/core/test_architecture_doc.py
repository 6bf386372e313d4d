"""docs/architecture.md's module tables are the tree as it is.

The page is the one description of the architecture to maintain, so a module added without a
row, a module described in two rows, or a row left behind by a move or a rename is a word that
disagrees with the code.  Each package section holds a ``| module | job |`` table whose first
cell names the modules of one folder by their path below it (``model/plant.py``).  Here every
module of ``thermogov/``, ``sim/`` and ``hw/`` must be the first cell of exactly one row of its
section, every path the page names must exist, and every function, class or constant a row
names (``MultiRatePlan``, ``Governor.sample``, ``instants()``) must still be defined in the code.
"""

from __future__ import annotations

import re
from functools import cache
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
_TOKEN = re.compile(r"`([^`\s]+)`")
# Code-like names a row cites from outside this repository (SimPy, the standard library).
EXTERNAL = {"env.peek", "csv.DictWriter"}
_EXTENSIONS = {"py", "toml", "md", "csv", "json", "sh", "gz", "service", "conf", "log", "txt"}


def _sections() -> dict[str, list[str]]:
    """Per folder of SECTIONS, the lines of its section."""
    out: dict[str, list[str]] = {root: [] for root in SECTIONS.values()}
    root = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            root = next((r for h, r in SECTIONS.items() if line.startswith(h)), None)
        elif root is not None:
            out[root].append(line)
    return out


def _rows() -> dict[str, list[tuple[list[str], str]]]:
    """Per folder, each table row as (the paths of its first cell, the rest of the row)."""
    out: dict[str, list[tuple[list[str], str]]] = {}
    for root, lines in _sections().items():
        out[root] = []
        for line in lines:
            if not line.startswith("| ") or line.startswith(("| module |", "|---")):
                continue
            first, _, rest = line[2:].partition(" | ")
            out[root].append((_TOKEN.findall(first), rest))
    return out


def _named() -> dict[str, set[str]]:
    """Per folder of SECTIONS, every backticked token of its section (rows and prose)."""
    return {root: {t for line in lines for t in _TOKEN.findall(line)} for root, lines in _sections().items()}


def _home(rel: str) -> tuple[str, str]:
    """The section folder a module belongs to, and its path below that folder."""
    for root in sorted(SECTIONS.values(), key=len, reverse=True):
        if rel.startswith(root + "/"):
            return root, rel[len(root) + 1 :]
    raise AssertionError(rel)


def test_every_module_has_exactly_one_row() -> None:
    rows = _rows()
    wrong = []
    for base in ("thermogov", "sim", "hw"):
        for path in sorted((REPO / base).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            root, below = _home(rel)
            count = sum(below in first for first, _ in rows[root])
            if count > 1 or (count == 0 and path.name != "__init__.py"):
                wrong.append(f"{rel} ({count} rows)")
    assert not wrong, f"modules without exactly one row in docs/architecture.md: {wrong}"


def test_every_path_a_row_names_exists() -> None:
    absent = [
        f"{root}/{token}"
        for root, rows in _rows().items()
        for first, _ in rows
        for token in first
        if not (list((REPO / root).glob(token)) if "*" in token else (REPO / root / token).exists())
    ]
    assert not absent, f"docs/architecture.md has rows for paths that do not exist: {absent}"


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


@cache
def _code() -> tuple[frozenset[str], frozenset[str]]:
    """Names the code defines (functions, classes, assigned names, modules), and every word of it."""
    text = []
    names: set[str] = set()
    for folder in ("thermogov", "sim", "hw", "bench", "tools", "tests"):
        for path in (REPO / folder).rglob("*"):
            if path.suffix in (".py", ".toml", ".service"):
                text.append(path.read_text(encoding="utf-8", errors="replace"))
            if path.suffix == ".py" or path.is_dir():
                names.add(path.stem)
    source = "\n".join(text)
    names.update(re.findall(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", source, re.M))
    names.update(re.findall(r"^\s*(?:self\.)?(\w+)\s*(?::[^=\n]*)?=", source, re.M))
    names.update(re.findall(r"^\s+(\w+)\s*:\s*\S", source, re.M))  # dataclass and Protocol fields
    return frozenset(names), frozenset(re.findall(r"\w+", source))


def _stale(token: str) -> bool:
    """Whether a backticked token of a row is a code name the code no longer has."""
    match = re.fullmatch(r"(\w+(?:\.\w+)*)(\(\))?", token)
    if not match or match.group(1) in EXTERNAL:
        return False
    parts = match.group(1).split(".")
    last = parts[-1]
    if len(parts) > 1 and last in _EXTENSIONS:
        return False  # a file name (`bcmstat.sh`), checked as a path where it is one
    defined, words = _code()
    if match.group(2) or len(parts) > 1 or re.search(r"[a-z][A-Z]", last):
        return last not in defined  # called, dotted or CamelCase: a function, class or attribute
    return "_" in last and last not in words  # a snake_case key or constant: still in the code


def test_every_code_name_a_row_names_exists() -> None:
    stale = sorted(
        {
            f"{root}: {token}"
            for root, rows in _rows().items()
            for first, rest in rows
            for token in _TOKEN.findall(rest)
            if _stale(token)
        }
    )
    assert not stale, f"docs/architecture.md's rows name what the code no longer has: {stale}"
