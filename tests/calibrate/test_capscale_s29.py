"""One scale on the capacitance of the main path to ambient (sim/calibration/capscale.py, Session 29f).

On a sparse fit (capacitances and internal links held) whose training part holds no load step
and enough readings, the fit frees one factor on the capacitance of the free path to ambient
with the profile's largest conductance.  These tests pin where it applies, that the model and
its analytic Jacobian both see it, and that a real report's fit carries it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tests.calibrate.jacobian import central_differences
from thermogov.board import BoardProfile, load_board
from thermogov.sim.calibration.calibrate import LogData, calibrate, load_log_data
from thermogov.sim.calibration.capscale import (
    KIND,
    scale_as_in_final_fit,
    shared_capacitance_scale,
    steps_in_training,
)
from thermogov.sim.calibration.fit import FitProblem
from thermogov.sim.calibration.inputs import derive_inputs
from thermogov.sim.calibration.model import ParamSpec, apply_params, param_specs

EXTERNAL = Path(__file__).resolve().parents[1] / "data" / "logs" / "external"


def _sparse_specs(board: BoardProfile) -> list[ParamSpec]:
    """The board's specs as a sparse fit holds them: capacitances and internal links fixed."""
    specs = param_specs(board, [d.name for d in board.domains], True, 25.0)
    return [dataclasses.replace(s, fixed=True) if s.kind in ("capacitance", "link") else s for s in specs]


def _free(specs: list[ParamSpec]) -> int:
    return sum(not s.fixed for s in specs)


def _scales(specs: list[ParamSpec]) -> list[ParamSpec]:
    return [s for s in specs if s.kind == KIND]


def test_one_scale_on_the_largest_path_to_ambient() -> None:
    """The AGX Xavier's heatsink path (1.0 W/K) is its main one, its board path (0.2) is not."""
    board = load_board("jetson-agx-xavier")
    out = shared_capacitance_scale(_sparse_specs(board), sparse=True, stepped=False, readings=1000)
    (scale,) = _scales(out)
    biggest = max((n for n in board.thermal.nodes), key=lambda n: n.to_ambient_w_per_k)
    assert scale.key == (biggest.name,)
    assert not scale.fixed and scale.prior == 1.0 and scale.log


@pytest.mark.parametrize(
    ("sparse", "stepped"),
    [(False, False), (True, True), (False, True)],
    ids=["dense", "stepped", "dense-stepped"],
)
def test_not_applied_to_a_dense_or_stepped_fit(sparse: bool, stepped: bool) -> None:
    specs = _sparse_specs(load_board("jetson-agx-xavier"))
    assert shared_capacitance_scale(specs, sparse=sparse, stepped=stepped, readings=1000) == specs


def test_needs_as_many_readings_as_free_parameters() -> None:
    """With the scale the fit has one more free parameter: it needs that many training readings."""
    specs = _sparse_specs(load_board("jetson-agx-xavier"))
    n = _free(specs) + 1
    assert not _scales(shared_capacitance_scale(specs, sparse=True, stepped=False, readings=n - 1))
    assert len(_scales(shared_capacitance_scale(specs, sparse=True, stepped=False, readings=n))) == 1


def test_a_held_path_passes_to_the_next_and_a_tie_shares_one_scale() -> None:
    """A path held (a fan that never ran, fanoff.py) is not scaled; the next largest is.  Equal
    largest paths share the one factor."""
    xavier = _sparse_specs(load_board("jetson-agx-xavier"))
    main = _scales(shared_capacitance_scale(xavier, sparse=True, stepped=False, readings=1000))[0].key[0]
    held = [
        dataclasses.replace(s, fixed=True) if s.kind == "ambient_link" and s.key == (main,) else s
        for s in xavier
    ]
    (scale,) = _scales(shared_capacitance_scale(held, sparse=True, stepped=False, readings=1000))
    assert main not in scale.key and len(scale.key) == 1

    tied = _sparse_specs(load_board("jetson-xavier-nx"))
    paths = [s for s in tied if s.kind == "ambient_link"]
    top = max(s.prior for s in paths)
    tied = [
        dataclasses.replace(s, prior=top) if s.kind == "ambient_link" else s for s in tied
    ]  # every path as large as the largest
    (scale,) = _scales(shared_capacitance_scale(tied, sparse=True, stepped=False, readings=1000))
    assert set(scale.key) == {s.key[0] for s in paths}


def test_a_hidden_node_is_never_scaled_and_the_rule_reapplies() -> None:
    specs = _sparse_specs(load_board("jetson-agx-xavier"))
    once = shared_capacitance_scale(specs, sparse=True, stepped=False, readings=1000)
    main = _scales(once)[0].key[0]
    assert not _scales(
        shared_capacitance_scale(specs, sparse=True, stepped=False, readings=1000, hidden={main})
    )
    twice = shared_capacitance_scale(once, sparse=True, stepped=False, readings=1000)
    assert len(_scales(twice)) == 1
    assert shared_capacitance_scale(once, sparse=True, stepped=True, readings=1000) == specs


def test_inner_validation_takes_the_final_fits_scale() -> None:
    specs = _sparse_specs(load_board("jetson-agx-xavier"))
    final = shared_capacitance_scale(specs, sparse=True, stepped=False, readings=1000)
    assert _scales(scale_as_in_final_fit(specs, final)) == _scales(final)
    assert not _scales(scale_as_in_final_fit(final, specs))


def test_apply_params_multiplies_only_the_scaled_capacitances() -> None:
    board = load_board("jetson-agx-xavier")
    specs = shared_capacitance_scale(_sparse_specs(board), sparse=True, stepped=False, readings=1000)
    values = [0.5 if s.kind == KIND else s.prior for s in specs]
    fitted, _amb, _off = apply_params(board, specs, values)
    (scale,) = _scales(specs)
    for before, after in zip(board.thermal.nodes, fitted.thermal.nodes, strict=True):
        want = before.capacitance_j_per_k * (0.5 if before.name in scale.key else 1.0)
        assert after.capacitance_j_per_k == pytest.approx(want)


def _steady_log(board: BoardProfile, n: int = 300, step_at: float | None = None) -> LogData:
    """A 1 Hz log cooling at one steady load (or stepping at ``step_at``), readings noisy."""
    rng = np.random.default_rng(5)
    t = np.arange(float(n))
    freq, load = {}, {}
    for d in board.domains:
        top, low = float(max(d.opp_hz)), float(min(d.opp_hz))
        on = t >= step_at if step_at is not None else np.zeros(n, dtype=bool)
        freq[d.name] = np.where(on, top, low)
        load[d.name] = np.where(on, 0.9, 0.12)
    temp = 35.0 + 8.0 * np.exp(-t / 150.0) + rng.normal(0, 0.2, n)
    return LogData(t, {"cpu": temp}, freq, load, None, "synthetic")


def test_steps_in_training() -> None:
    board = load_board("jetson-agx-xavier")
    for step_at, holdout, want in ((None, 0.6, False), (50.0, 0.6, True), (250.0, 0.6, False)):
        data = _steady_log(board, step_at=step_at)
        train = data.t_s <= data.t_s[-1] * (1.0 - holdout)
        assert steps_in_training(derive_inputs(data, board), train) is want, step_at


def test_analytic_jacobian_of_the_scale_matchescentral_differences() -> None:
    """The model sees the scale (its column is not zero) and the analytic Jacobian is exact."""
    board = load_board("jetson-agx-xavier")
    prob = FitProblem.build(_steady_log(board, step_at=50.0), board, holdout=0.3, ambient_c=25.0)
    prob.specs = shared_capacitance_scale(
        [dataclasses.replace(s, fixed=True) if s.kind in ("capacitance", "link") else s for s in prob.specs],
        sparse=True,
        stepped=False,
        readings=1000,
    )
    assert prob.analytic_jacobian
    col = [j for j, i in enumerate(prob.free) if prob.specs[i].kind == KIND]
    assert len(col) == 1
    x = np.random.default_rng(11).normal(0.0, 0.5, len(prob.free))
    jac, ref = prob.jacobian(x)[:, col[0]], central_differences(prob, x)[:, col[0]]
    assert np.abs(ref).max() > 0
    assert np.max(np.abs(jac - ref)) / np.abs(ref).max() < 1e-5


def test_a_real_report_at_one_steady_load_fits_the_scale() -> None:
    """An external Pi 4 sbc-bench report fitted on its first 40 %: sparse, no load step in it."""
    path = EXTERNAL / "sbcbench_rpi4_3KVs.txt"
    r = calibrate(load_log_data(path), load_board("rpi4"), holdout=0.6)
    scales = [p for p in r.params if p.name.startswith("C_scale[")]
    assert len(scales) == 1 and scales[0].name == "C_scale[board]"
    assert any("capscale.py" in n for n in r.notes)
    held = next(p for p in r.params if p.name == "C[board]")  # held at the housing's figure
    node = next(n for n in r.board.thermal.nodes if n.name == "board")
    assert node.capacitance_j_per_k == pytest.approx(held.value * scales[0].value, rel=1e-6)
