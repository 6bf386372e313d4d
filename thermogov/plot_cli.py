"""``thermogov plot RUN_OR_TRACE [RUN ...]``: the standard four-panel figure as a PNG.

All inputs are loaded and checked before anything is drawn or written, so a typo in the third
path costs one line on stderr and exit status 2, not a half-written figure.  The default output
sits next to the first run (``<run>/plot.png``) because that is where someone looking at the
run will look for it.
"""

from __future__ import annotations

from pathlib import Path

import click

from thermogov.interfaces import ConfigError


def default_output(first: str) -> Path:
    p = Path(first)
    return (p if p.is_dir() else p.parent) / "plot.png"


@click.command("plot")
@click.argument("runs", nargs=-1, required=True, type=click.Path())
@click.option(
    "--out", type=click.Path(dir_okay=False), help="Image file to write. Default: <first run>/plot.png."
)
@click.option(
    "--label", "labels", multiple=True, help="Legend label per run, in order (default: the policy)."
)
@click.option("--window", type=float, default=10.0, show_default=True, help="Throughput window in s.")
@click.option("--title", help="Figure title (default: the run labels).")
def plot_command(
    runs: tuple[str, ...], out: str | None, labels: tuple[str, ...], window: float, title: str | None
) -> None:
    """Plot runs (run folders or trace CSVs) on one time axis: temperatures, clocks, throughput, power."""
    from thermogov.plot import load_run, plot_runs, save_figure

    if labels and len(labels) != len(runs):
        raise ConfigError(f"--label: {len(labels)} label(s) for {len(runs)} run(s); give one per run or none")
    if window <= 0:
        raise ConfigError("--window: must be > 0 seconds")
    target = Path(out) if out else default_output(runs[0])
    if not target.parent.is_dir():
        raise ConfigError(f"--out: folder {target.parent} does not exist; create it or choose another path")
    data = [load_run(r) for r in runs]
    import matplotlib

    matplotlib.use("Agg")  # headless: a board or CI has no display
    fig = plot_runs(data, list(labels) if labels else None, throughput_window_s=window, title=title)
    save_figure(fig, target)
    click.echo(f"wrote {target}")
