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
from click.core import ParameterSource

from thermogov.cliopts import GivenPath, check_out_dir, list_option
from thermogov.interfaces import ConfigError
from thermogov.printable import printable

PLOT_FILE = "plot.png"
# The longest title or label drawn.  A figure shows about 150 characters across, so this is
# several widths; matplotlib's layout time grows with the text (session 31h, measured on the
# shared build machine: 5 000 characters 8 s, 20 000 14 s, 100 000 more than 40 s, a hang to
# the user), and nothing past a few widths can be read.
MAX_TEXT = 1000


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
    type=GivenPath(file_okay=False),  # '' is refused as every command's --out is (31h)
    help=f"Folder for the figure, written as <out>/{PLOT_FILE}. Default: the first run's folder.",
)
@list_option(
    "--label",
    "labels",
    example="--label a,b",
    help="Legend label per run, in order: repeat or comma-separate (default: the policy).",
)
@click.option(
    "--window",
    type=click.FloatRange(0.0, min_open=True),  # nan's message names the range too (31h)
    default=10.0,
    show_default=True,
    help="Throughput window in s.",
)
@click.option("--title", help="Figure title (default: the run labels).")
def plot_command(
    runs: tuple[str, ...], out: str | None, labels: list[str], window: float, title: str | None
) -> None:
    """Plot runs (run folders or trace CSVs) on one time axis: temperatures, clocks, throughput, power."""
    from thermogov.plotting.figures import load_run, plot_runs, save_figure
    from thermogov.plotting.window import check_window

    if any(not r.strip() for r in runs):  # Path("") is the working folder ("."): an unset variable
        raise ConfigError("plot: a run path is empty; give run folders or trace CSV files")
    if labels and len(labels) != len(runs):
        raise ConfigError(f"--label: {len(labels)} label(s) for {len(runs)} run(s); give one per run or none")
    if not (math.isfinite(window) and window > 0):
        raise ConfigError("--window: must be a number > 0 seconds")
    for field, text in [("--title", title or ""), *(("--label", label) for label in labels)]:
        if len(text) > MAX_TEXT:
            raise ConfigError(
                f"{field}: {len(text)} characters; a figure shows about 150 across, give at most {MAX_TEXT}"
            )
    if out is not None and Path(out).suffix.lower() in {".png", ".svg", ".pdf", ".jpg"}:
        raise ConfigError(
            f"--out: {out} looks like a file; --out names a folder (written as <out>/{PLOT_FILE})"
        )
    data = [load_run(r) for r in runs]  # every input checked before a folder is made
    # Only a window the user gave is judged: the default (10 s) stays what it always drew, the
    # mean since the start for a run shorter than it (a 5 s sim) and no rate for a log sampled
    # less often (an imported minute-by-minute log), rather than refusing every such run.
    if click.get_current_context().get_parameter_source("window") is not ParameterSource.DEFAULT:
        check_window(data, window)
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
