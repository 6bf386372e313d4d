"""``thermogov import FILE``: a real board log becomes a run folder like any simulated run.

The command is a thin shell over :func:`thermogov.importers.parse_log` and
:func:`thermogov.importers.runfolder.write_run_folder`.  Every problem with the input (missing
file, unknown format, nothing parseable) is a :class:`~thermogov.interfaces.ThermogovError`
raised *before* anything is written, so the CLI prints one line, exits 2 and leaves no
half-made folder behind.  Malformed lines are not errors: the parser skips and counts them,
and the count is printed here and kept in ``summary.json``.
"""

from __future__ import annotations

from pathlib import Path

import click

from thermogov.board import BoardProfile
from thermogov.display import figure
from thermogov.interfaces import ConfigError


def _board(name: str | None, board_file: str | None, hint: str | None) -> BoardProfile | None:
    """The profile whose sensor weights fuse the log: explicit choice, else the log's own hint."""
    from thermogov.board import builtin_board_names, load_board, load_board_file

    if board_file:
        return load_board_file(Path(board_file))
    names = builtin_board_names()
    if name:
        if name not in names:
            raise ConfigError(f"--board: unknown board {name!r}; choose one of {', '.join(names)}")
        return load_board(name)
    if hint and hint in names:
        return load_board(hint)
    return None


@click.command("import")
@click.argument("file", type=click.Path())
@click.option(
    "--format",
    "fmt",
    default="auto",
    show_default=True,
    help="auto, tegrastats, rpi-csv, stressberry or sbc-bench.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="traces",
    show_default=True,
    help="Folder for run folders.",
)
@click.option(
    "--board", help="Board profile whose sensor weights give fused_c (default: the log's board hint)."
)
@click.option(
    "--board-file", type=click.Path(dir_okay=False), help="A board profile TOML instead of --board."
)
@click.option(
    "--interval", type=float, help="Sample interval in s for tegrastats logs without timestamps (default 1)."
)
def import_command(
    file: str, fmt: str, out: str, board: str | None, board_file: str | None, interval: float | None
) -> None:
    """Import a board log (tegrastats, Raspberry Pi CSV, stressberry, sbc-bench) as a run folder."""
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder

    if interval is not None and interval <= 0:
        raise ConfigError("--interval: must be > 0 seconds")
    log = parse_log(file, fmt, interval_s=interval)
    profile = _board(board, board_file, log.board_hint)
    run = write_run_folder(log, Path(out), board=profile)
    s = run.summary
    sensors = ", ".join(s["max_sensor_c"]) or "none"
    rows = [
        ("imported", f"{file} ({log.fmt})"),
        ("board", f"{s['board']}" + ("" if profile else " (no profile: fused_c only for one-sensor logs)")),
        ("samples", f"{s['samples']} over {figure(s['duration_s'], ' s')}"),
        ("skipped", f"{log.skipped_lines} malformed line(s)"),
        ("sensors", sensors),
        ("max fused", figure(s["max_fused_c"], " °C")),
    ]
    rows += [("note", note) for note in log.notes]
    rows.append(("run folder", str(run.run_dir)))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        click.echo(f"{k:<{width}}  {v}")
