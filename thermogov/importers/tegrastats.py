"""NVIDIA Jetson ``tegrastats`` logs (every L4T dialect) and the power-GUI style CSV export.

tegrastats changed its line format with almost every JetPack: rails lost and regained the
``mW`` suffix, EMC/GR3D lost their clocks (Xavier NX JP5) or their loads (JetPack 7), Orin
prints one GPU clock per GPC, JetPack 7 appends ``/max`` to temperatures and rails, and old
TX1 builds put a single clock after the CPU bracket.  Rather than one regex per JetPack,
each field is matched independently so an unknown extra token never breaks a line.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from thermogov.importers import digit_groups
from thermogov.importers.cells import head_lines, lines_of
from thermogov.importers.common import (
    DayClock,
    ImportedLog,
    Mark,
    fraction,
    mhz_to_hz,
    no_samples_error,
    note_timing,
    parse_hms,
    read_text,
    rebase,
    sensor_name,
)
from thermogov.importers.rowsink import RowSink
from thermogov.importers.segments import SkippedLines
from thermogov.interfaces import LogFormatError

FMT = "tegrastats"
DEFAULT_INTERVAL_S = 1.0  # tegrastats --interval default (ms 1000)

_TS_RE = re.compile(r"^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})\s+")
_RAM_RE = re.compile(r"\bRAM (\d+)/(\d+)MB")
_CPU_RE = re.compile(r"\b(?:CPU|cpu) \[([^\]]*)\](?:@(\d+))?")
# A locale with decimal commas (session 31w): `CPU@48,3C`, and in a copy whose list separators
# became `;` (a spreadsheet's re-save) `[10,5%@1036;0%@806]`.  A comma inside a `NAME@...C` or
# `...%` number is its decimal mark; in a CPU list that commas separate it cannot be told from
# the separator, and such lines are refused (``_comma_split_error``), never split at the comma.
_DEC = r"\d+(?:[.,]\d+)?"
_CORE_RE = re.compile(rf"^({_DEC})%(?:@(\d+(?:\.\d+)?))?$")
# The clock is a whole number: `@1,600` (a thousands group, session 33w) is no 1 MHz clock.
_EMC_RE = re.compile(rf"(?<!\S)EMC(?:_FREQ)? (?:({_DEC})%)?(?:@(\d+)(?![\d,]))?")
# GR3D_FREQ, and on DriveOS / IGX with a discrete or second GPU also GR3D2_FREQ (one per GPU)
_GR3D_RE = re.compile(rf"(?<!\S)GR3D\d*(?:_FREQ)? (?:({_DEC})%)?(?:@(\[[\d,;\s]*\]|\d+))?")
_NUM = r"-?\d+(?:[.,]\d+)?"
# Zone names may carry a hyphen: DriveOS names its tmp451 sensors EXT0-local / EXT0-remote
# (DRIVE OS 6.0 Linux SDK, "Reported Statistics" of tegrastats); they were dropped before.
_TEMP_RE = re.compile(rf"(?<!\S)([A-Za-z][A-Za-z0-9_-]*)@({_NUM})C(?:/{_NUM}C)?(?=\s|$)")
# `NAME cur/avg[/max]` with or without mW, or a lone `NAME 5765mW` (a single-value rail, as one
# Jetson setup guide prints it: the mW suffix is then required, so `APE 25` or `VIC_FREQ 729`
# never read as rails)
_RAIL_RE = re.compile(
    r"(?<!\S)([A-Za-z][A-Za-z0-9_]*) (-?\d+)(?:(?:mW)?/-?\d+(?:mW)?(?:/-?\d+(?:mW)?)?|mW)(?=\s|$)"
)
# What a rail looks like whatever its reading holds (`VIN_SYS_5V0 3014mW/nanmW`, a failed INA3221
# read printed by C's printf, or line noise): a rail the reader above cannot take (session 32w)
_RAIL_LIKE_RE = re.compile(r"(?<!\S)([A-Za-z][A-Za-z0-9_]*) (\S*mW\S*)(?=\s|$)")

# PMIC-Die is a MAX77620-style alarm level, not a thermometer: it reads a constant 50 or 100.
_PMIC_FIXED_C = (50.0, 100.0)
_OFFLINE_BELOW_C = -100.0  # -256 °C (and -256000 m°C) mark an absent or power-gated sensor


@dataclass
class _Row:
    temps: dict[str, float] = field(default_factory=dict)
    freqs: dict[str, int] = field(default_factory=dict)
    loads: dict[str, float] = field(default_factory=dict)
    rails: dict[str, float] = field(default_factory=dict)
    cores: int = 0
    ram_total_mb: int = 0


def _mean_fraction(percents: list[float]) -> float:
    """Mean of percentages as a 0..1 fraction, rounded so 75 % reads back as exactly 0.75."""
    return fraction(sum(percents) / len(percents))


def keep_temp(name: str, value: float, dropped: set[str]) -> bool:
    """False (and a note in ``dropped``) for a zone value that is no measurement: the -256 °C
    of a power-gated sensor, or the PMIC's fixed 50/100 °C alarm level (tegrastats and jtop)."""
    if value < _OFFLINE_BELOW_C:
        dropped.add(f"{name}: offline marker ({value:g} °C) not imported")
        return False
    if name == "pmic" and value in _PMIC_FIXED_C:
        dropped.add(f"pmic: fixed PMIC@{value:g}C level dropped (alarm state, not a measurement)")
        return False
    return True


def _num(text: str) -> float:
    """A matched number, its decimal comma (if any) read as the decimal mark."""
    return float(text.replace(",", "."))


def _cpu_entries(listed: str) -> list[str]:
    """The CPU list's entries: split at `;` where the list uses it (then commas are decimal marks),
    else at commas."""
    return [e.strip() for e in listed.split(";" if ";" in listed else ",")]


def _comma_split_error(source: str, no: int, line: str) -> LogFormatError | None:
    """The one-line refusal for a line whose CPU list, separated by commas, holds decimal commas
    (`[10,5%@1036,0%@806]`: a bare `10` between separators), or None for any other line."""
    cpu = _CPU_RE.search(line)
    if cpu is None or ";" in cpu.group(1):
        return None
    entries = [e.strip() for e in cpu.group(1).split(",")]
    if not any(e.isdigit() for e in entries):
        return None
    if not entries[0].isdigit() and all(
        len(e) == 3 and re.search(r"@\d{1,3}$", before)
        for before, e in itertools.pairwise(entries)
        if e.isdigit()
    ):
        # `48%@1,479`: a clock's thousands group (session 33w), not a decimal comma
        return LogFormatError(
            f"{source}: line {no}: the CPU list [{cpu.group(1)[:40]}] holds clocks with thousands "
            "separators (tegrastats prints none) in a list that commas separate; import the log "
            "tegrastats wrote, or remove the separators, and import again"
        )
    return LogFormatError(
        f"{source}: line {no}: the CPU list [{cpu.group(1)[:40]}] holds decimal commas in a list that "
        "commas separate, so its numbers cannot be told apart; rerun tegrastats under LC_ALL=C "
        "(or replace the separators with ';') and import again"
    )


def _parse_body(body: str, dropped: set[str]) -> _Row | None:
    """One line without its timestamp; None means malformed (no RAM or unreadable CPU block)."""
    if digit_groups.grouped(body):  # `RAM 1,134/3,964MB`: whole numbers grouped (session 33w)
        body = digit_groups.ungrouped(body, dropped)
    ram = _RAM_RE.search(body)
    cpu = _CPU_RE.search(body)
    if ram is None or cpu is None:
        return None
    row = _Row(ram_total_mb=int(ram.group(2)))
    outer_mhz = float(cpu.group(2)) if cpu.group(2) else None
    loads: list[float] = []
    clocks: list[float] = []
    entries = _cpu_entries(cpu.group(1))
    for entry in entries:
        if entry == "off":
            continue
        m = _CORE_RE.match(entry)
        if m is None:
            return None
        loads.append(_num(m.group(1)))
        if m.group(2) is not None:
            clocks.append(float(m.group(2)))
        elif outer_mhz is not None:
            clocks.append(outer_mhz)
    row.cores = len(entries)
    if loads:
        row.loads["cpu"] = _mean_fraction(loads)
    if clocks:
        row.freqs["cpu"] = mhz_to_hz(max(clocks))
    emc = _EMC_RE.search(body)
    if emc is not None:
        if emc.group(1) is not None:
            row.loads["emc"] = fraction(_num(emc.group(1)))
        if emc.group(2) is not None:
            row.freqs["emc"] = mhz_to_hz(float(emc.group(2)))
    gpu_loads: list[float] = []
    gpu_clocks: list[float] = []
    for gr3d in _GR3D_RE.finditer(body):
        if gr3d.group(1) is not None:
            gpu_loads.append(_num(gr3d.group(1)))
        if gr3d.group(2) is not None:
            # Orin: one clock per GPC; the busiest one is the GPU's effective clock
            gpu_clocks += [float(x) for x in re.split(r"[,;]", gr3d.group(2).strip("[]")) if x.strip()]
    if gpu_loads:  # several GR3D fields (GR3D2_FREQ): the busiest engine is the GPU load
        row.loads["gpu"] = fraction(max(gpu_loads))
    if gpu_clocks:
        row.freqs["gpu"] = mhz_to_hz(max(gpu_clocks))
    for m in _TEMP_RE.finditer(body):
        name, value = sensor_name(m.group(1)), _num(m.group(2))
        if keep_temp(name, value, dropped):
            row.temps[name] = value
    rails_text = body[cpu.end() :]
    for m in _RAIL_RE.finditer(rails_text):
        row.rails[m.group(1)] = int(m.group(2)) / 1000.0
    read = {m.start() for m in _RAIL_RE.finditer(rails_text)}
    if bad := next((m for m in _RAIL_LIKE_RE.finditer(rails_text) if m.start() not in read), None):
        # one rail lost would change the board's power summed from the others (3.2 W read where the
        # line's input rail says 6 W): the line keeps its other values and gives no power at all
        dropped.add(
            f"rail readings that are no number (e.g. {bad.group(1)} {bad.group(2)!r}): no rail or board "
            "power read from such lines"
        )
        row.rails.clear()
    return row


def guess_board(rails: set[str], sensors: set[str], cores: int, ram_mb: int) -> str | None:
    """Which Jetson wrote the log, from rail and sensor names (tegrastats never says)."""
    if "VDD_CPU_SOC_MSS" in rails or ("VIN" in rails and "VDD_GPU" in rails):
        return "jetson-agx-thor"
    if "VDD_GPU_SOC" in rails and "VDD_CPU_CV" in rails:
        return "jetson-agx-orin"
    if "POM_5V_IN" in rails:
        return "jetson-nano"
    if {"bcpu", "mcpu"} & sensors or {"VDD_WIFI", "VDD_DDR"} & rails:
        return "jetson-tx2"
    if {"VDDRQ", "SYS5V"} & rails:
        return "jetson-agx-xavier"
    if "VDD_CPU_GPU_CV" in rails:
        if "aux" in sensors:
            return "jetson-xavier-nx"
        if "tj" in sensors:
            return "jetson-orin-nx" if cores >= 8 or ram_mb > 9000 else "jetson-orin-nano"
    return None


def detect(text: str) -> Mark | None:
    """Most of the first lines are tegrastats lines, or the file is the GUI CSV export."""
    lines = [ln for ln in head_lines(text, 50) if ln.strip()]
    if not lines:
        return None
    if lines[0].startswith("System-Time,") and "CPU0-CURR_FREQ" in lines[0]:
        return Mark(FMT, "GUI CSV export")
    hits = sum(1 for ln in lines if (_RAM_RE.search(ln) or digit_groups.grouped(ln)) and _CPU_RE.search(ln))
    return Mark(FMT, f"{hits} of {len(lines)} head lines") if hits >= max(1, len(lines) // 2) else None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def parse(path: str | Path, *, interval_s: float | None = None) -> ImportedLog:
    """Parse a tegrastats text log or power-GUI CSV file."""
    return parse_text(read_text(path), str(path), interval_s=interval_s)


def parse_text(text: str, source: str = "<text>", *, interval_s: float | None = None) -> ImportedLog:
    """Parse tegrastats content; ``interval_s`` is used only when the lines carry no timestamp."""
    first = next((ln for ln in lines_of(text) if ln.strip()), "")
    if first.startswith("System-Time,"):
        return _parse_gui_csv(text, source)
    return _parse_lines(text, source, interval_s)


def _parse_lines(text: str, source: str, interval_s: float | None) -> ImportedLog:
    dropped: set[str] = set()
    notes: set[str] = set()
    rows = _sink()  # each line's values straight into columns: no row object per line held
    times: list[float] = []
    line_nos = array("i")  # each kept line's number: a clock step's note names its lines (session 30w)
    skipped = 0
    backwards = 0
    stamped: bool | None = None
    unread = SkippedLines("tegrastats line")  # each part said with its line numbers (session 28w)
    comma_split: LogFormatError | None = None  # the first line refused for its decimal commas
    for no, line in enumerate(lines_of(text), 1):
        line = line.strip()
        if not line:
            continue
        ts = _TS_RE.match(line)
        body = line[ts.end() :] if ts else line
        row = _parse_body(body, dropped)
        if row is None:
            skipped += 1
            unread.add(no, line)
            comma_split = comma_split or _comma_split_error(source, no, line)
            continue
        if stamped is None:
            stamped = ts is not None
        if stamped:
            if ts is None:
                skipped += 1
                continue
            try:
                mo, dd, yy, hh, mi, ss = (int(g) for g in ts.groups())
                t = (datetime(yy, mo, dd, hh, mi, ss) - datetime(1970, 1, 1)).total_seconds()
            except ValueError:
                skipped += 1
                continue
        else:
            t = len(rows) * (interval_s or DEFAULT_INTERVAL_S)
        _put(rows, row)
        times.append(t)
        line_nos.append(no)
    if not len(rows):
        raise comma_split or no_samples_error(source, "tegrastats lines")
    notes.update(unread.notes())
    if stamped:  # a clock that steps (NTP, a 1970 boot, a restart) is mended; a stray line dropped
        times, backwards = _forward(rows, times, notes, line_nos)
        skipped += backwards
    note_timing(
        notes,
        stamped=bool(stamped),
        interval_s=interval_s,
        default_s=DEFAULT_INTERVAL_S,
        default_how="tegrastats default",
        backwards=backwards,
        skipped_what="line(s) with a timestamp earlier than the previous line",
    )
    if stamped:  # tegrastats --interval < 1000 ms repeats the 1 s stamp
        from thermogov.importers.table import spread_ties

        times, tied = spread_ties(times)
        if tied:
            notes.add(
                f"{tied} line(s) shared a timestamp with the previous line: spread evenly up to the next stamp"
            )
    missing = sum(1 for g in rows.ints("gpu") if not g)
    if 0 < missing < len(rows):
        notes.add(f"{missing} line(s) without GR3D/EMC fields (tegrastats run without root?)")
    return _finish(rows, times, source, skipped, notes | dropped)


def _sink() -> RowSink:
    return RowSink("cores", "ram_total_mb", "gpu")


def _put(rows: RowSink, row: _Row) -> None:
    gpu = int("gpu" in row.loads or "gpu" in row.freqs)
    rows.append(
        row.temps, row.freqs, row.loads, row.rails, cores=row.cores, ram_total_mb=row.ram_total_mb, gpu=gpu
    )


def _forward(
    rows: RowSink, times: list[float], notes: set[str], lines: Sequence[int] | None = None
) -> tuple[list[float], int]:
    """(times, dropped): clock steps mended (:mod:`~thermogov.importers.clocksteps`), then
    every line earlier than the line kept before it dropped (from ``rows`` too)."""
    from thermogov.importers.clocksteps import mend_steps

    mended, step_notes = mend_steps(times, "line", lines)
    notes.update(step_notes)
    kept: list[int] = []
    kept_t: list[float] = []
    for i, t in enumerate(mended):
        if t is None or (kept_t and t < kept_t[-1]):
            continue
        kept.append(i)
        kept_t.append(t)
    if len(kept) < len(mended):
        rows.keep(kept)
    return kept_t, len(mended) - len(kept)


def _finish(rows: RowSink, times: list[float], source: str, skipped: int, notes: set[str]) -> ImportedLog:
    samples = rows.finish(rebase(times))
    rails = set(samples.keys("rails_w"))
    sensors = set(samples.keys("temps_c"))
    board = guess_board(rails, sensors, max(rows.ints("cores")), max(rows.ints("ram_total_mb")))
    if board is not None:
        notes.add(f"board_hint {board} inferred from rail/sensor names")
    notes |= rows.notes()  # the board-power sum's note, as rail_sample gave it
    return ImportedLog(FMT, source, board, samples, skipped, tuple(sorted(notes)))


def _num_or_none(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def _parse_gui_csv(text: str, source: str) -> ImportedLog:
    """The jetson power-GUI style CSV: one column per CPU/GPU/EMC field, zone and rail."""
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader)]
    col = {name: i for i, name in enumerate(header)}
    if "System-Time" not in col:
        raise no_samples_error(source, "System-Time column")
    cpus = []
    k = 0
    while f"CPU{k}-CURR_FREQ" in col:
        cpus.append((col.get(f"CPU{k}-STATE"), col[f"CPU{k}-CURR_FREQ"], col.get(f"CPU{k}-CURR_LOAD")))
        k += 1
    gpus = [
        (i, col.get(h.replace("CURR_FREQ", "CURR_LOAD")))
        for h, i in col.items()
        if re.fullmatch(r"IGPU\d+-CURR_FREQ", h)
    ]
    temps = [(sensor_name(h[: -len("-CURR_TEMP")]), i) for h, i in col.items() if h.endswith("-CURR_TEMP")]
    rails = [(h[: -len("-IN_POWER")], i) for h, i in col.items() if h.endswith("-IN_POWER")]
    emc = (col.get("EMC-CURR_FREQ"), col.get("EMC-CURR_LOAD"))
    dropped: set[str] = set()
    notes: set[str] = {"tegrastats power-GUI style CSV export"}
    rows = _sink()
    times: list[float] = []
    skipped = 0
    clock = DayClock()
    bad_load: dict[str, int] = {}

    def load(domain: str, cell: str) -> float | None:
        v = _num_or_none(cell)
        if v is None:
            return None
        if not 0.0 <= v <= 100.0:  # not a percentage: refuse rather than rescale by guesswork
            bad_load[domain] = bad_load.get(domain, 0) + 1
            return None
        return v

    for cells in reader:
        if not cells or not any(c.strip() for c in cells):
            continue
        tod = parse_hms(cells[0].strip()) if len(cells) == len(header) else None
        t = clock.seconds(tod) if tod is not None else None
        if t is None:
            skipped += 1
            continue
        row = _Row(cores=len(cpus))
        c_loads: list[float] = []
        c_clocks: list[float] = []
        for st, fr, ld in cpus:
            if st is not None and cells[st].strip() != "True":
                continue
            f = _num_or_none(cells[fr])
            if f is not None:
                c_clocks.append(f)
            v = load("cpu", cells[ld]) if ld is not None else None
            if v is not None:
                c_loads.append(v)
        if c_clocks:
            row.freqs["cpu"] = mhz_to_hz(max(c_clocks))
        if c_loads:
            row.loads["cpu"] = _mean_fraction(c_loads)
        g_clocks = [f for i, _ in gpus if (f := _num_or_none(cells[i])) is not None]
        g_loads = [v for _, j in gpus if j is not None and (v := load("gpu", cells[j])) is not None]
        if g_clocks:
            row.freqs["gpu"] = mhz_to_hz(max(g_clocks))
        if g_loads:
            row.loads["gpu"] = fraction(max(g_loads))
        if emc[0] is not None and (f := _num_or_none(cells[emc[0]])) is not None:
            row.freqs["emc"] = mhz_to_hz(f)
        if emc[1] is not None and (v := load("emc", cells[emc[1]])) is not None:
            row.loads["emc"] = fraction(v)
        for name, i in temps:
            v = _num_or_none(cells[i])
            if v is not None and keep_temp(name, v, dropped):
                row.temps[name] = v
        for name, i in rails:
            v = _num_or_none(cells[i])
            if v is not None:
                row.rails[name] = v / 1000.0
        if not row.temps and not row.freqs:
            skipped += 1
            continue
        _put(rows, row)
        times.append(t)
    if not len(rows):
        raise no_samples_error(source, "tegrastats CSV rows")
    for domain, n in sorted(bad_load.items()):
        notes.add(f"{domain} load: {n} value(s) outside 0..100 % not imported")
    return _finish(rows, times, source, skipped, notes | dropped)
