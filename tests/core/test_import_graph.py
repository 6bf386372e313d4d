"""The layer rules of docs/architecture.md, checked on the source's import graph.

Every ``import`` in thermogov/, sim/ and hw/ is read with :mod:`ast` (nothing is imported), and
tagged *top* (runs when the module is imported), *lazy* (inside a function: runs when that
function does) or *typing* (under ``if TYPE_CHECKING:``: never runs).  The rules:

* the core (thermogov/ without its faces) imports no world (sim, hw) and no face, even lazily;
  a heavy library (simpy, pandas, scipy, matplotlib) only lazily, and only where listed below;
* hw imports no sim, no face and none of the heavy libraries, even lazily;
* sim may import the core, never hw;
* nothing imports the root router (thermogov/cli.py) but the console script (entry.py);
* every command lives in its package's ``cli.py`` and the root registers it by dotted path.

tests/core/test_lean_imports.py checks the same at run time for the modules the daemon loads.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# folder -> the package it is installed as (pyproject.toml, [tool.setuptools] package-dir)
SOURCES = {"thermogov": "thermogov", "sim": "thermogov.sim", "hw": "thermogov.hw"}
HEAVY = ("simpy", "pandas", "scipy", "matplotlib")
ROOT = ("thermogov.cli", "thermogov.entry")
FACES = ("thermogov.plotting",)
# The only lazy imports of a heavy library the core may make, and why.
CORE_LAZY_HEAVY = {
    ("thermogov.trace", "pandas"),  # trace.to_pandas, for notebooks; the daemon never calls it
}


@dataclass(frozen=True)
class Edge:
    source: str  # importing module
    target: str  # imported module (``from a import b`` gives ``a``)
    when: str  # "top", "lazy" or "typing"
    where: str  # file:line, for the failure message


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = [SOURCES[rel.parts[0]], *rel.parts[1:]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _edges(path: Path) -> list[Edge]:
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    rel = path.relative_to(REPO)
    out: list[Edge] = []

    def visit(node: ast.AST, when: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = when
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and when == "top":
                inner = "lazy"
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for sub in child.body:
                    visit_stmt(sub, "typing")
                for sub in child.orelse:
                    visit_stmt(sub, when)
                continue
            visit_stmt(child, inner)

    def visit_stmt(child: ast.AST, when: str) -> None:
        where = f"{rel}:{getattr(child, 'lineno', 0)}"
        if isinstance(child, ast.Import):
            out.extend(Edge(module, a.name, when, where) for a in child.names)
        elif isinstance(child, ast.ImportFrom):
            if child.level:
                base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                target = ".".join([*base, *([child.module] if child.module else [])])
            else:
                target = child.module or ""
            # ``from pkg import mod`` imports pkg.mod when mod is a submodule
            out.extend(Edge(module, f"{target}.{a.name}", when, where) for a in child.names)
        visit(child, when)

    visit(ast.parse(path.read_text(), filename=str(path)), "top")
    return out


@pytest.fixture(scope="module")
def edges() -> list[Edge]:
    found = []
    for folder in SOURCES:
        for path in sorted((REPO / folder).rglob("*.py")):
            found.extend(_edges(path))
    return found


def _within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _layer(module: str) -> str:
    if _within(module, "thermogov.sim"):
        return "sim"
    if _within(module, "thermogov.hw"):
        return "hw"
    if _within(module, *ROOT):
        return "root"
    if _within(module, *FACES):
        return "face"
    return "core"


def _heavy(target: str) -> str | None:
    top = target.split(".")[0]
    return top if top in HEAVY else None


def _report(bad: list[Edge]) -> str:
    return "\n".join(f"{e.where}: {e.source} imports {e.target} ({e.when})" for e in bad)


def test_the_graph_sees_lazy_top_level_and_typing_imports(edges: list[Edge]) -> None:
    """The reader itself: known edges of each kind, so an empty graph cannot pass the rules."""
    seen = {(e.source, e.target.split(".")[0], e.when) for e in edges}
    assert ("thermogov.sim.model.runner", "simpy", "top") in seen
    assert ("thermogov.trace", "pandas", "lazy") in seen
    assert any(e.when == "typing" for e in edges)
    # a relative import resolves to the full name
    assert _module_name(REPO / "sim" / "sweep" / "cli.py") == "thermogov.sim.sweep.cli"


def test_core_imports_no_world_and_no_face(edges: list[Edge]) -> None:
    bad = [
        e
        for e in edges
        if _layer(e.source) in ("core", "root")
        and e.when != "typing"
        and _within(e.target, "thermogov.sim", "thermogov.hw", *FACES)
    ]
    assert not bad, "the core must not import a world or a face:\n" + _report(bad)


def test_core_imports_heavy_libraries_only_lazily_and_only_where_listed(edges: list[Edge]) -> None:
    core = [e for e in edges if _layer(e.source) in ("core", "root") and _heavy(e.target)]
    top = [e for e in core if e.when == "top"]
    assert not top, "the core must not import a heavy library at import time:\n" + _report(top)
    lazy = {(e.source, _heavy(e.target)) for e in core if e.when == "lazy"}
    unlisted = [e for e in core if e.when == "lazy" and (e.source, _heavy(e.target)) not in CORE_LAZY_HEAVY]
    assert not unlisted, "a lazy heavy import not in CORE_LAZY_HEAVY:\n" + _report(unlisted)
    assert lazy == CORE_LAZY_HEAVY, f"stale CORE_LAZY_HEAVY entries: {CORE_LAZY_HEAVY - lazy}"


def test_hw_imports_no_sim_no_face_and_no_data_stack(edges: list[Edge]) -> None:
    bad = [
        e
        for e in edges
        if _layer(e.source) == "hw"
        and e.when != "typing"
        and (_within(e.target, "thermogov.sim", *FACES) or _heavy(e.target))
    ]
    assert not bad, "hw must not import sim, a face, simpy, pandas, scipy or matplotlib:\n" + _report(bad)


def test_sim_never_imports_hw(edges: list[Edge]) -> None:
    bad = [
        e
        for e in edges
        if _layer(e.source) == "sim" and e.when != "typing" and _within(e.target, "thermogov.hw")
    ]
    assert not bad, "sim and hw never import each other:\n" + _report(bad)


def test_only_the_console_script_imports_the_root_router(edges: list[Edge]) -> None:
    bad = [e for e in edges if _within(e.target, "thermogov.cli") and e.source != "thermogov.entry"]
    assert not bad, "commands are registered by thermogov/cli.py, never imported from it:\n" + _report(bad)


def _defines_a_command(path: Path) -> list[str]:
    """Functions decorated ``@click.command``/``@click.group`` or ``@<group>.command``."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            func = dec.func if isinstance(dec, ast.Call) else dec
            if isinstance(func, ast.Attribute) and func.attr in ("command", "group"):
                names.append(node.name)
    return names


def test_every_command_lives_in_its_packages_cli_module() -> None:
    from thermogov.cli import LAZY_COMMANDS

    bad = []
    for folder in SOURCES:
        for path in sorted((REPO / folder).rglob("*.py")):
            if path.name != "cli.py" and _defines_a_command(path):
                bad.append(f"{path.relative_to(REPO)}: {', '.join(_defines_a_command(path))}")
    assert not bad, "commands belong in their package's cli.py:\n" + "\n".join(bad)
    not_cli = {name: mod for name, (mod, _attr) in LAZY_COMMANDS.items() if not mod.endswith(".cli")}
    assert not not_cli, f"LAZY_COMMANDS must point at cli modules: {not_cli}"


def test_every_registered_command_resolves_to_a_click_command() -> None:
    import importlib

    import click

    from thermogov.cli import LAZY_COMMANDS

    for name, (mod, attr) in LAZY_COMMANDS.items():
        cmd = getattr(importlib.import_module(mod), attr)
        assert isinstance(cmd, click.Command) and cmd.name == name, (name, mod, attr)
