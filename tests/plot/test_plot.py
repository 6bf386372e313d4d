"""Figure content of ``plot_runs`` and the ``thermogov plot`` command (content, not pixels)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.cliutil import run_cli
from thermogov.config import Config
from thermogov.plotting.figures import BAND_GID, PANELS, load_run, plot_runs, rolling_rate
from thermogov.trace import load_trace

PNG = b"\x89PNG\r\n\x1a\n"


def simulate_run(out: Path, policy: str, duration_s: float = 20.0) -> Path:
    from thermogov.sim.model.runner import simulate

    cfg = dataclasses.replace(Config(), policy=policy)
    cfg = dataclasses.replace(cfg, sim=dataclasses.replace(cfg.sim, duration_s=duration_s))
    result = simulate(cfg, None, out)
    assert result.run_dir is not None
    return result.run_dir


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("runs")
    return simulate_run(out, "hysteresis"), simulate_run(out, "fixed:1000")


def labels(ax: Any) -> list[str]:
    return [ln.get_label() for ln in ax.get_lines()]


def band(ax: Any) -> list[tuple[float, float]]:
    spans = [p for p in ax.patches if p.get_gid() == BAND_GID]
    # axhspan: a Rectangle in (axes x, data y) coordinates
    return [(round(p.get_y(), 6), round(p.get_y() + p.get_height(), 6)) for p in spans]


def test_one_run_has_every_series_in_its_panel(runs: tuple[Path, Path]) -> None:
    run, _ = runs
    fig = plot_runs([run])
    axes = fig.axes
    assert [a.get_title(loc="left") for a in axes] == [p for p in PANELS if p != "Load"]  # sim: no load
    assert [a.get_ylabel() for a in axes] == [
        "temperature (°C)",
        "frequency (MHz)",
        "throughput (inf/s)",
        "power (W)",
    ]
    assert axes[-1].get_xlabel() == "time (s)"
    assert labels(axes[0]) == [
        "hysteresis: cpu",
        "hysteresis: gpu",
        "hysteresis: battery",
        "hysteresis: fused",
    ]
    assert labels(axes[1]) == [
        "hysteresis: cpu cap",
        "hysteresis: cpu freq",
        "hysteresis: gpu cap",
        "hysteresis: gpu freq",
    ]
    assert labels(axes[2]) == ["hysteresis: throughput (10 s)"]
    assert labels(axes[3]) == ["hysteresis: power"]
    assert band(axes[0]) == [(70.0, 85.0)]
    assert fig.get_suptitle() == "hysteresis"
    # the cap line is the trace's cap in MHz, the time axis the trace's own
    trace = load_trace(run)
    cap = axes[1].get_lines()[0]
    assert np.allclose(cap.get_ydata(), np.array(trace["cpu_cap_hz"]) / 1e6)
    assert np.allclose(cap.get_xdata(), trace["t_s"])


def test_runs_overlay_with_labels_from_their_summaries(runs: tuple[Path, Path], tmp_path: Path) -> None:
    fig = plot_runs(list(runs))
    temp = fig.axes[0]
    assert len(temp.get_lines()) == 8
    assert {lab.rsplit(": ", 1)[0] for lab in labels(temp)} == {"hysteresis", "fixed:1000"}
    assert len(fig.axes[2].get_lines()) == 2 and len(fig.axes[3].get_lines()) == 2
    fig2 = plot_runs(list(runs), labels=["a", "b"], title="t")
    assert labels(fig2.axes[3]) == ["a: power", "b: power"] and fig2.get_suptitle() == "t"
    # one colour per run
    colours = {ln.get_label().rsplit(": ", 1)[0]: ln.get_color() for ln in fig.axes[3].get_lines()}
    assert colours["hysteresis"] != colours["fixed:1000"]
    out = tmp_path / "f.png"
    fig.savefig(out)
    assert out.read_bytes()[:8] == PNG


def test_band_follows_the_summary_trip(runs: tuple[Path, Path], tmp_path: Path) -> None:
    run, _ = runs
    copy = tmp_path / "run"
    copy.mkdir()
    (copy / "trace.csv").write_bytes((run / "trace.csv").read_bytes())
    summary = json.loads((run / "summary.json").read_text())
    summary["trip_c"] = 80.0
    (copy / "summary.json").write_text(json.dumps(summary))
    assert band(plot_runs([copy]).axes[0]) == [(70.0, 80.0)]
    # two runs with different trips: two bands
    assert band(plot_runs([run, copy]).axes[0]) == [(70.0, 80.0), (70.0, 85.0)]


def test_dict_of_columns_and_gaps() -> None:
    cols = {
        "t_s": [0.0, 1.0, 2.0, 3.0],
        "fused_c": [40.0, None, 42.0, 43.0],
        "cpu_c": [40.0, 41.0, 42.0, 43.0],
        "cpu_freq_hz": [1e9, 1e9, 5e8, 5e8],
        "power_w": [None, None, None, None],
    }
    fig = plot_runs([cols])
    assert labels(fig.axes[0]) == ["run 1: cpu", "run 1: fused"]
    assert np.isnan(fig.axes[0].get_lines()[1].get_ydata()[1])
    assert labels(fig.axes[1]) == ["run 1: cpu freq"]
    # an all-empty power column gets no panel, and nothing else is drawn empty
    assert [a.get_title(loc="left") for a in fig.axes] == ["Temperature", "Frequency"]


def test_draws_into_given_axes() -> None:
    from matplotlib.figure import Figure

    f = Figure()
    axes = f.subplots(2, 1)
    cols = {"t_s": [0.0, 1.0], "cpu_c": [1.0, 2.0], "power_w": [3.0, 4.0]}
    got = plot_runs([cols], ax=axes)
    assert got is f and labels(axes[0]) == ["run 1: cpu"] and labels(axes[1]) == ["run 1: power"]
    with pytest.raises(ValueError, match=r"need 2 axes \(Temperature, Power\)"):
        plot_runs([cols], ax=axes[:1])


def test_rolling_rate() -> None:
    t = np.arange(0.0, 60.0, 0.5)
    totals = 7.0 * t
    rate = rolling_rate(t, totals, 10.0)
    assert np.isnan(rate[0]) and np.allclose(rate[1:], 7.0)
    totals = np.where(t < 30, 5.0 * t, 150.0)  # stops at 30 s
    rate = rolling_rate(t, totals, 10.0)
    assert rate[t == 25.0][0] == pytest.approx(5.0) and rate[t == 45.0][0] == 0.0
    assert rate[t == 35.0][0] == pytest.approx(25.0 / 10.0)


@pytest.mark.parametrize("bad", [{"x": [1]}, {"t_s": []}, {"t_s": ["a"]}])
def test_not_a_trace_is_refused(bad: dict[str, list[Any]]) -> None:
    from thermogov.interfaces import LogFormatError

    with pytest.raises(LogFormatError):
        load_run(bad)


def test_cli_default_output_and_explicit_out(
    runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, other = runs
    code, out, _ = run_cli(["plot", str(run / "trace.csv"), str(other)], capsys)
    assert code == 0 and (run / "plot.png").read_bytes()[:8] == PNG
    folder = tmp_path / "figures"  # --out is a folder, created when missing
    code, out, _ = run_cli(
        ["plot", str(run), str(other), "--out", str(folder), "--label", "a", "--label", "b"], capsys
    )
    target = folder / "plot.png"
    assert code == 0 and out.strip() == f"wrote {target}" and target.read_bytes()[:8] == PNG
    code, out, _ = run_cli(["plot", str(run), str(other), "--out", str(folder), "--label", "c,d"], capsys)
    assert code == 0  # a comma list is the same as repeating the option


def test_cli_bad_input_one_line_exit_2_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], runs: tuple[Path, Path]
) -> None:
    notrace = tmp_path / "empty"
    notrace.mkdir()
    prose = tmp_path / "prose.txt"
    prose.write_text("hello\nworld, again\n")
    target = tmp_path / "figs"
    for argv in (
        ["plot", str(runs[0]), "--out", str(tmp_path / "x.png")],
        ["plot", str(runs[0]), "--out", str(prose / "sub")],
        ["plot", str(runs[0]), "--label", "a,b,c", "--out", str(target)],
        ["plot", str(tmp_path / "missing"), "--out", str(target)],
        ["plot", str(notrace), "--out", str(target)],
        ["plot", str(prose), "--out", str(target)],
        ["plot", str(runs[0]), str(tmp_path / "missing"), "--out", str(target)],
        ["plot", str(runs[0]), "--label", "a", "--label", "b", "--out", str(target)],
    ):
        code, out, err = run_cli(argv, capsys)
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, err)
    assert not target.exists()


def test_plot_module_imports_matplotlib_lazily() -> None:
    code = (
        "import sys, thermogov.plotting.figures, thermogov.plotting.cli; print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
