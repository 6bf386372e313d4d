"""Plots a reader can read: series of one run look different, legends fit beside their panels,
the band is the run's own release..trip, long runs get minutes/hours, imported logs get only
the panels they have data for (their load included).  Checked on the Figure objects."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.cli.script import thermogov
from thermogov.config import Config
from thermogov.plotting.figures import BAND_GID, MAX_LEGEND_ENTRIES, plot_runs, time_axis

DATA = Path(__file__).resolve().parents[1] / "data" / "logs"


def _many_sensors(n: int, offset: float = 0.0, span_s: float = 60.0) -> dict[str, list[float]]:
    t = np.linspace(0.0, span_s, 61)
    cols: dict[str, list[float]] = {"t_s": list(t)}
    for i in range(n):
        cols[f"s{i}_c"] = list(40.0 + i + offset + 0.1 * t)
    cols["fused_c"] = list(45.0 + offset + 0.1 * t)
    return cols


def _look(line: Any) -> tuple[Any, ...]:
    return (line.get_color(), str(line.get_linestyle()), line.get_marker())


def _sensor_lines(ax: Any, run: str) -> list[Any]:
    return [ln for ln in ax.get_lines() if ln.get_label().startswith(f"{run}: ")]


@pytest.mark.parametrize("n", [3, 12])
def test_series_of_one_run_are_distinguishable(n: int) -> None:
    alone = plot_runs([_many_sensors(n)]).axes[0]
    assert len({_look(ln) for ln in alone.get_lines()}) == n + 1
    both = plot_runs([_many_sensors(n), _many_sensors(n, 5.0)], labels=["a", "b"]).axes[0]
    for run in ("a", "b"):
        lines = _sensor_lines(both, run)
        assert len(lines) == n + 1 and len({_look(ln) for ln in lines}) == n + 1
    # and the runs differ by colour
    assert {ln.get_color() for ln in _sensor_lines(both, "a")}.isdisjoint(
        {ln.get_color() for ln in _sensor_lines(both, "b")}
    )


def _rendered(fig: Any) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    return fig.canvas.get_renderer()


@pytest.mark.parametrize("runs", [1, 3])
def test_legends_fit_in_the_figure_and_do_not_overlap(runs: int) -> None:
    fig = plot_runs([_many_sensors(10, 3.0 * k) for k in range(runs)])
    renderer = _rendered(fig)
    boxes = []
    for ax in fig.axes:
        leg = ax.get_legend()
        assert leg is not None
        assert len(leg.get_texts()) <= 2 * MAX_LEGEND_ENTRIES
        box = leg.get_window_extent(renderer)
        assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1 + 1
        assert fig.bbox.y0 <= box.y0 and box.y1 <= fig.bbox.y1 + 1
        assert not box.overlaps(ax.get_window_extent(renderer))  # beside the data, not on it
        boxes.append(box)
    for upper, lower in itertools.pairwise(boxes):
        assert not upper.overlaps(lower)


def test_overlay_legend_is_folded_to_runs_and_series() -> None:
    fig = plot_runs([_many_sensors(10, 3.0 * k) for k in range(3)], labels=["a", "b", "c"])
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert {"a", "b", "c", "fused", "s0", "s9"} <= set(texts)
    assert not any(t.startswith("a: ") for t in texts)


def test_band_is_the_runs_own_release_and_trip(tmp_path: Path) -> None:
    from thermogov.sim.model.runner import simulate

    cfg = dataclasses.replace(
        Config(), policy="hysteresis", policies={"hysteresis": {"trip_c": 80.0, "release_c": 60.0}}
    )
    cfg = dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, duration_s=5.0))
    run = simulate(cfg, None, tmp_path).run_dir
    ax = plot_runs([run]).axes[0]
    spans = [p for p in ax.patches if p.get_gid() == BAND_GID]
    assert [(round(p.get_y(), 6), round(p.get_y() + p.get_height(), 6)) for p in spans] == [(60.0, 80.0)]


@pytest.mark.parametrize(
    ("span", "unit", "top"), [(600.0, "s", 600.0), (7200.0, "min", 120.0), (36000.0, "h", 10.0)]
)
def test_long_runs_get_minutes_or_hours(span: float, unit: str, top: float) -> None:
    assert time_axis(span)[1] == unit
    fig = plot_runs([_many_sensors(1, span_s=span)])
    assert fig.axes[-1].get_xlabel() == f"time ({unit})"
    assert max(fig.axes[0].get_lines()[0].get_xdata()) == pytest.approx(top)


def test_imported_log_has_only_panels_with_data_and_its_load(tmp_path: Path) -> None:
    p = thermogov("import", str(DATA / "sbcbench_rpi5_8-NK_excerpt.txt"), "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    (run,) = [d for d in tmp_path.iterdir() if d.is_dir()]
    fig = plot_runs([run])
    titles = [a.get_title(loc="left") for a in fig.axes]
    assert titles == ["Temperature", "Frequency", "Load", "Power"]  # the log counts no inferences
    load = fig.axes[2]
    assert load.get_ylabel() == "utilisation (%)"
    from thermogov.trace import load_trace

    trace = load_trace(run)
    (line,) = load.get_lines()
    assert [a.get_lines() != [] for a in fig.axes] == [True] * 4
    got = np.asarray(line.get_ydata(), dtype=float)
    want = 100.0 * np.array([np.nan if v is None else v for v in trace["cpu_load"]], dtype=float)
    assert np.allclose(got, want, equal_nan=True) and np.nanmax(got) > 50.0
