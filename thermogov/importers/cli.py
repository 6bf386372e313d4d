"""``thermogov import FILE``: a real board log becomes a run folder like any simulated run.

The command is a thin shell over :func:`thermogov.importers.parse_log` and
:func:`thermogov.importers.runfolder.write_run_folder`.  Every problem with the input (missing
file, unknown format, nothing parseable) is a :class:`~thermogov.interfaces.ThermogovError`
raised *before* anything is written, so the CLI prints one line, exits 2 and leaves no
half-made folder behind.  Malformed lines are not errors: the parser skips and counts them,
and the count is printed here and kept in ``summary.json``.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import click

from thermogov.board import BoardProfile
from thermogov.cliopts import board_options, check_out_dir, merge_board
from thermogov.display import figure
from thermogov.importers import FORMATS
from thermogov.importers.runfolder import DEFAULT_TRIP_C
from thermogov.interfaces import ConfigError
from thermogov.mitigationrows import mitigation_rows

# The range a policy's trip_c accepts (policies/hysteresis.py), so a log is judged by a limit a
# governed run could have.
MIN_TRIP_C, MAX_TRIP_C = -40.0, 150.0


def _board(option: str | None, hint: str | None) -> tuple[BoardProfile | None, str]:
    """The profile whose sensor weights fuse the log, and why: ``--board``, else the board the
    log names (mapped to the built-in profile of the same SoC when it has none of its own)."""
    from thermogov.board import builtin_board_names, load_board
    from thermogov.cliopts import load_board_option
    from thermogov.importers.models import profile_for

    if option is not None:  # '' is said to be empty (31h's rule), not taken as no --board (32h)
        return load_board_option(option), f"--board {option}"
    name, why = profile_for(hint, builtin_board_names())
    return (load_board(name) if name else None), why


# The interval a log without timestamps was written at.  No logger we read samples faster than a
# millisecond (tegrastats' own --interval counts whole ms), and readings a day apart see no
# thermal transient of a board (minutes at most); outside, the value is a unit slip (32h left
# ``--interval 1e-300`` accepted, a time axis every reading of which fell on one instant).
MIN_INTERVAL_S = 1e-3
MAX_INTERVAL_S = 86400.0


@click.command(
    "import",
    epilog="""\b
Example:
  thermogov import stressberry-out.dat --board rpi4 --out traces""",
)
@click.argument("file", type=click.Path())
@click.option(
    "--format",
    "fmt",
    default="auto",
    show_default=True,
    # spelled from the parser's own list, so a format added there is named here too
    help=f"auto (detected from the content) or one of: {', '.join(FORMATS)}.",
)
@click.option(
    "--columns",
    metavar="ROLE=COL,...",
    help="Map a table log's columns: t=, temp[.SENSOR]=, freq[.DOMAIN]=, load[.DOMAIN]=, power=, "
    "rail.NAME=, throttled=; COL is a header name or a 1-based position, optionally :UNIT "
    "(e.g. t=sec,temp=tmp:mC,freq=clk:kHz).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="traces",
    show_default=True,
    help="Folder the run folder goes into.",
)
@board_options(
    "Board whose sensor weights give fused_c: a built-in name or a board TOML. "
    "Default: the board the log names."
)
@click.option("--interval", type=float, help="Sample interval in s for logs without timestamps (default 1).")
@click.option(
    "--trip",
    "trip_c",
    type=float,
    default=DEFAULT_TRIP_C,
    show_default=True,
    help="Limit in °C the log is judged against: time above it and its episodes of fused_c.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def import_command(
    file: str,
    fmt: str,
    columns: str | None,
    out: str,
    board: str | None,
    board_file: str | None,
    interval: float | None,
    trip_c: float,
    as_json: bool,
) -> None:
    """Import a board log (tegrastats, jtop, Raspberry Pi CSV/vcgencmd, bcmstat, stressberry,
    sbc-bench, `Label: value` loggers and lm-sensors text, `sensors -j` JSON, psensor logs, any table with named
    columns) as a run folder."""
    from thermogov.importers import parse_log
    from thermogov.importers.boardrange import clock_notes, temperature_notes
    from thermogov.importers.runfolder import write_run_folder

    # An unset variable: Path("") read as the working folder ("": cannot read), and ``--columns
    # ''`` ran as if left out, where every other command says "empty" (32h).
    if not file.strip():
        raise ConfigError("import: the log path is empty; give the log file")
    if columns is not None and not columns.strip():
        raise ConfigError("--columns: empty; write e.g. --columns t=time,temp=temp, or leave the option out")
    if interval is not None and not (
        math.isfinite(interval) and MIN_INTERVAL_S <= interval <= MAX_INTERVAL_S
    ):
        raise ConfigError(
            f"--interval: {interval:g} s is no logging interval; give seconds from {MIN_INTERVAL_S:g} to "
            f"{MAX_INTERVAL_S:g} (tegrastats' --interval is in ms: 1000 ms is --interval 1)"
        )
    if not (math.isfinite(trip_c) and MIN_TRIP_C <= trip_c <= MAX_TRIP_C):
        raise ConfigError(f"--trip: must be a temperature from {MIN_TRIP_C:g} to {MAX_TRIP_C:g} °C")
    log = parse_log(file, fmt, interval_s=interval, columns=columns)
    profile, why = _board(merge_board(board, board_file), log.board_hint)
    beyond = [*temperature_notes(log), *(clock_notes(log, profile) if profile else [])]
    if beyond:  # values no board (or not this board) produces: kept, and said
        log = replace(log, notes=(*log.notes, *beyond))
    check_out_dir(out)
    run = write_run_folder(log, Path(out), board=profile, trip_c=trip_c)
    s = run.summary
    if as_json:
        info = {
            "imported": file,
            "format": log.fmt,
            "board": s["board"],
            "board_profile": profile.name if profile else None,
            "board_reason": why,
            "skipped_lines": log.skipped_lines,
            "notes": list(log.notes),
            "run_dir": str(run.run_dir),
            "summary": s,
        }
        click.echo(json.dumps(info, indent=2))
        return
    sensors = ", ".join(s["max_sensor_c"]) or "none"
    board_txt = f"{s['board']} ({why})" if profile else f"{s['board']} (no profile: {why})"
    rows = [
        ("imported", f"{file} ({log.fmt})"),
        ("board", board_txt),
        ("samples", f"{s['samples']} over {figure(s['duration_s'], ' s')}"),
        ("skipped", f"{log.skipped_lines} malformed line(s)"),
        ("sensors", sensors),
        ("max fused", figure(s["max_fused_c"], " °C")),
    ]
    if s["time_above_trip_s"] is not None:
        rows.append(("time above trip", f"{figure(s['time_above_trip_s'], ' s')} (trip {trip_c:g} °C)"))
        rows += [r for r in mitigation_rows(s) if r[0] != "throttling not ours"]
    rows += [("note", note) for note in log.notes]
    rows.append(("run folder", str(run.run_dir)))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        click.echo(f"{k:<{width}}  {v}")
