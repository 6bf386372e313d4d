"""``thermogov plot RUN_OR_TRACE [RUN ...]``: the standard stacked-panel figure as a PNG.

All inputs are loaded and checked before anything is drawn or written, so a typo in the third
path costs one line on stderr and exit status 2, not a half-written figure.  ``--out`` is a folder as in
every command; the default sits next to the first run (``<run>/plot.png``) because that is where someone looking at the
run will look for it.
"""

from __future__ import annotations

import math
from pathlib import Path

import click

from thermogov.cliopts import check_out_dir, list_option
from thermogov.interfaces import ConfigError
from thermogov.printable import printable

PLOT_FILE = "plot.png"


def default_folder(first: str) -> Path:
    p = Path(first)
    return p if p.is_dir() else p.parent


@click.command(
    "plot",
    epilog="""\b
Example:
  thermogov plot traces/<run A> traces/<run B> --label hysteresis,stepped --out figures""",
)
@click.argument("runs", nargs=-1, required=True, type=click.Path())
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help=f"Folder for the figure, written as <out>/{PLOT_FILE}. Default: the first run's folder.",
)
@list_option(
    "--label",
    "labels",
    example="--label a,b",
    help="Legend label per run, in order: repeat or comma-separate (default: the policy).",
)
@click.option("--window", type=float, default=10.0, show_default=True, help="Throughput window in s.")
@click.option("--title", help="Figure title (default: the run labels).")
def plot_command(
    runs: tuple[str, ...], out: str | None, labels: list[str], window: float, title: str | None
) -> None:
    """Plot runs (run folders or trace CSVs) on one time axis: temperatures, clocks, throughput, power."""
    from thermogov.plotting.figures import load_run, plot_runs, save_figure

    if labels and len(labels) != len(runs):
        raise ConfigError(f"--label: {len(labels)} label(s) for {len(runs)} run(s); give one per run or none")
    if not (math.isfinite(window) and window > 0):
        raise ConfigError("--window: must be a number > 0 seconds")
    if out is not None and Path(out).suffix.lower() in {".png", ".svg", ".pdf", ".jpg"}:
        raise ConfigError(
            f"--out: {out} looks like a file; --out names a folder (written as <out>/{PLOT_FILE})"
        )
    data = [load_run(r) for r in runs]  # every input checked before a folder is made
    target = check_out_dir(out if out else default_folder(runs[0])) / PLOT_FILE
    import matplotlib

    matplotlib.use("Agg")  # headless: a board or CI has no display
    # Drawn as text: a control character (an escape sequence, a newline) has no glyph, and
    # matplotlib's "Glyph missing" warnings were the command's stderr (hostile round 29h).
    shown = [printable(label) for label in labels] if labels else None
    fig = plot_runs(
        data, shown, throughput_window_s=window, title=None if title is None else printable(title)
    )
    save_figure(fig, target)
    click.echo(f"wrote {target}")
