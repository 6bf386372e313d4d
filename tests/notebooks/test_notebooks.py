"""Every notebook executes headless (nbclient + ipykernel) in a temporary folder without an
error, and is stored without outputs exactly as tests/notebooks/build_notebooks.py writes it."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import nbformat
import pytest

HERE = Path(__file__).resolve().parent
NOTEBOOKS = sorted((HERE.parents[1] / "notebooks").glob("*.ipynb"))


def _builder():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("build_notebooks", HERE / "build_notebooks.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_all_four_notebooks_exist_and_match_their_builder() -> None:
    built = _builder().build()
    assert [p.name for p in NOTEBOOKS] == sorted(built)
    for path in NOTEBOOKS:
        stored = nbformat.read(path, as_version=4)
        assert [c.source for c in stored.cells] == [c.source for c in built[path.name].cells], path.name
        for cell in stored.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{path.name} stored with outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(path: Path, tmp_path: Path) -> None:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    started = time.monotonic()
    client.execute()  # raises CellExecutionError on the first failing cell
    elapsed = time.monotonic() - started
    print(f"{path.name}: {elapsed:.1f} s")
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    # the figures were rendered, not just built
    images = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})
    ]
    assert images, f"{path.name} displayed no figure"
    assert (tmp_path / "runs").is_dir()
