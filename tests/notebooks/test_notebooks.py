"""Every notebook executes headless (nbclient + ipykernel) in a temporary folder without an
error, is stored without outputs exactly as tests/notebooks/build_notebooks.py writes it, and
says what it did: each writes the figures it computed to ``runs/figures-NN.json`` and the
claims of its text (which policy ran, which one wins, what the fit recovered) are checked
against them."""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest

from thermogov.policies import DEFAULT_POLICY, policy_names

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
    number = path.name.split("_")[0]
    figures = json.loads((tmp_path / "runs" / f"figures-{number}.json").read_text(encoding="utf-8"))
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    CLAIMS[number](figures, text, _builder())


# --- what each notebook's text claims, against what it computed ------------------------------


def named_policies(text: str) -> set[str]:
    """Registered policy names the text writes in backticks (`fixed:960` counts as `fixed`)."""
    return {m.split(":")[0] for m in re.findall(r"`([a-z_]+(?::[^`]*)?)`", text)} & set(policy_names())


def check_01(figures: dict[str, Any], text: str, builder: Any) -> None:
    # the policy the text names is the one the run used, and it is the default
    assert figures["policy"] == DEFAULT_POLICY
    assert named_policies(text) == {figures["policy"]}, "01 names a policy it does not run"


def check_02(figures: dict[str, Any], text: str, builder: Any) -> None:
    runs = figures["policies"]
    assert list(runs) == list(builder.NB02_POLICIES)
    assert DEFAULT_POLICY in runs, "the comparison leaves the default policy out"
    assert all(r["policy"] == p for p, r in runs.items())
    assert named_policies(text) == {p.split(":")[0] for p in runs}
    for p in runs:
        assert f"`{p}`" in text, f"02 runs {p} without saying so"
    # "of the policies that stay under the trip, the default sustains the most"
    under = {p: r for p, r in runs.items() if r["time_above_trip_s"] <= builder.NB02_UNDER_TRIP_S}
    assert DEFAULT_POLICY in under
    assert max(under, key=lambda p: under[p]["sustained_ips"]) == DEFAULT_POLICY
    # "the policies without a software trip spend minutes above it"
    for p in ("performance", "fixed:1267", "fixed:960"):
        assert runs[p]["time_above_trip_s"] >= 60.0, p


def check_03(figures: dict[str, Any], text: str, builder: Any) -> None:
    rows = figures["rows"]
    assert {r["policy"] for r in rows} == {DEFAULT_POLICY}
    assert named_policies(text) == {DEFAULT_POLICY}
    ips = {(r["ambient_c"], r["lid_factor"]): r["sustained_ips"] for r in rows}
    ambients = sorted({a for a, _ in ips})
    lids = sorted({lid for _, lid in ips})
    for lid in lids:  # "never rises when the room warms"
        col = [ips[a, lid] for a in ambients]
        assert all(b <= a + 1e-9 for a, b in itertools.pairwise(col)), (lid, col)
    for a in ambients:  # "never falls when the lid sheds more heat"
        row = [ips[a, lid] for lid in lids]
        assert all(b >= x - 1e-9 for x, b in itertools.pairwise(row)), (a, row)


def check_04(figures: dict[str, Any], text: str, builder: Any) -> None:
    truth, fitted = figures["truth"], figures["fitted"]
    assert truth == builder.NB04_TRUTH
    for name, value in truth.items():  # the truth table in the text is the truth used
        assert re.search(rf"\| `{re.escape(name)}` \| {value:g} ", text), name
        p = fitted[name]
        assert p["prior"] != pytest.approx(value, rel=0.05), f"{name}: the truth must differ from the prior"
        if not name.startswith("dyn_scale"):  # the power scale trades with the path to air (see the text)
            assert p["by"] == "data", name
        assert abs(p["value"] - value) <= builder.NB04_WITHIN_REL * value, (name, p)
        assert abs(p["value"] - value) <= builder.NB04_WITHIN_SD * p["sd"], (name, p)
    assert fitted["C[cpu]"]["by"] == "prior"  # "the die node ... stays at its prior"
    assert figures["rmse_holdout_c"] < builder.NB04_HOLDOUT_RMSE_C
    assert f"{builder.NB04_WITHIN_REL:.0%}" in text and f"{builder.NB04_HOLDOUT_RMSE_C:g} °C" in text


CLAIMS = {"01": check_01, "02": check_02, "03": check_03, "04": check_04}
