"""Session 31h: every process pool of the project starts its workers with ``pool_context``.

Session 30i moved ``sweep``'s and ``compare``'s pools off a plain ``fork()`` of a process that may
hold threads (only the calling thread is copied, so a lock another thread held stays held in the
child; Python 3.12+ warns of it).  The benches ``control_quality.py`` and ``stepped_seeds.py``
kept the default start method.  This reads the source (no pool is started, so it costs
milliseconds): every ``ProcessPoolExecutor(...)`` call passes ``mp_context=pool_context()``.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("bench", "sim", "thermogov", "hw", "tools")


def pool_calls(path: Path) -> list[ast.Call]:
    """The ``ProcessPoolExecutor(...)`` calls of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name == "ProcessPoolExecutor":
                out.append(node)
    return out


def started_by_pool_context(call: ast.Call) -> bool:
    for kw in call.keywords:
        if kw.arg == "mp_context":
            v = kw.value
            return isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "pool_context"
    return False


@functools.cache
def all_calls() -> list[tuple[str, int, ast.Call]]:
    """Read once per process (the parametrization and every case share it; nothing writes)."""
    out = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "ProcessPoolExecutor" not in path.read_text(encoding="utf-8"):
                continue  # most files: no need to parse them
            out.extend((str(path.relative_to(ROOT)), c.lineno, c) for c in pool_calls(path))
    return out


def test_the_benches_named_in_the_brief_make_pools() -> None:
    """A guard for the test below: it does find the benches' pools (six calls on BASE)."""
    files = {f for f, _, _ in all_calls()}
    assert {"bench/control_quality.py", "bench/stepped_seeds.py"} <= files


@pytest.mark.parametrize("where", [f"{f}:{n}" for f, n, _ in all_calls()])
def test_every_process_pool_is_started_by_pool_context(where: str) -> None:
    calls = {f"{f}:{n}": c for f, n, c in all_calls()}
    assert started_by_pool_context(calls[where]), (
        f"{where}: ProcessPoolExecutor without mp_context=pool_context() forks a possibly multi-threaded process"
    )
