"""The test folders have no ``__init__.py``, so pytest imports each test file as a top-level module
named by its file name: two files of one name in two folders stop the collection of the whole suite
("import file mismatch"), which a run of either folder alone never shows."""

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_files_share_a_name() -> None:
    folders: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        folders[path.name].append(str(path.parent.relative_to(TESTS)))
    shared = {name: where for name, where in folders.items() if len(where) > 1}
    assert not shared, f"test files sharing a name (rename one): {shared}"
