"""jetson-stats (jtop) logs: ``print(jetson.stats)`` dict lines and CSVs of the same keys.

``jetson.stats`` is a flat dict (jetson-stats docs, "jtop.stats"): ``time`` (datetime, jtop 4),
``uptime``, ``CPU1..CPUn`` (% or ``OFF``), ``GPU`` (%), ``EMC`` (%), ``RAM``/``SWAP``, engines,
``Fan ...`` (%), ``Temp <zone>`` (°C), ``Power <rail>`` and ``Power TOT`` (mW; jtop 3 wrote
``power cur``/``power avg``), ``jetson_clocks``, ``nvp model``.  Scripts either print the dict
once per interval (the ``stats.log`` style, one Python repr per line) or write it with
``csv.DictWriter`` (jetson-stats' example logger).  Both are mapped key by key here.  jtop 3
filled ``EMC``/``IRAM`` with the RAM figure (a known quirk): any ``EMC`` outside 0..100 % is
not a utilisation and is dropped with a note.
"""

from __future__ import annotations

import ast
import csv
import io
import re
from collections.abc import Mapping

from thermogov.importers.cells import head_lines
from thermogov.importers.common import (
    ImportedLog,
    Mark,
    fraction,
    no_samples_error,
    note_timing,
    rebase,
    sensor_name,
)
from thermogov.importers.rowsink import RowSink
from thermogov.importers.stamps import parse_stamp
from thermogov.importers.tegrastats import keep_temp

FMT = "jtop"
DEFAULT_INTERVAL_S = 1.0  # jtop(interval=1.0), the jetson-stats default

_DT_RE = re.compile(r"datetime\.(datetime|timedelta)\(([^()]*)\)")
_CPU_RE = re.compile(r"^CPU(\d+)$")


def _is_dict_line(line: str) -> bool:
    s = line.strip()
    return s.startswith("{") and s.endswith("}") and ("'Temp " in s or "'CPU1'" in s)


def _jtop_delimiter(line: str) -> str | None:
    """The delimiter under which ``line`` is a jtop CSV header, or None: `,` as DictWriter writes
    it, or `;` where a spreadsheet re-saved the file under a locale with decimal commas."""
    for delim in (",", ";"):
        cells = {c.strip() for c in line.split(delim)}
        if (
            any(c.startswith("Temp ") for c in cells)
            and {"CPU1", "GPU", "jetson_clocks", "nvp model"} & cells
        ):
            return delim
    return None


def _is_jtop_header(line: str) -> bool:
    return _jtop_delimiter(line) is not None


# A cell of a `;`-separated jtop CSV holding a decimal comma (`55,50`): the comma separates no
# field there, so it is the number's decimal mark (session 31w; the file was refused before).
_DECIMAL_COMMA_CELL_RE = re.compile(r"^(-?\d+),(\d+)$")


# jetson-stats 1.x/2.x `examples/log_data.py` wrote its own header: ``time``, ``GR3D`` (the GPU
# load), the CPU names (``CPU1`` ...), then the ``TEMP`` dict's keys (bare zone names: ``AO``,
# ``CPU``, ``GPU``, ``PLL``, ``PMIC``, ``thermal``), then the ``VOLT`` dict's keys with each rail's
# ``avg`` in mW.  Read as a generic table, the bare ``CPU`` zone was taken for a load and the
# ``thermal`` zone stored as the cpu temperature.
_LOGDATA_HEAD = ("time", "GR3D")
# Rails of that VOLT dict: the INA3221 channel names tegrastats prints (POM_5V_IN, VDD_IN,
# VDD_SYS_GPU, 5V_IN ...) and Xavier's bare GPU/CPU/SOC/CV/VDDRQ/SYS5V, which follow the zones.
_RAIL_NAME_RE = re.compile(r"^(?:POM_|VDD|VIN|\d+V|SYS\d*V|VDDRQ)", re.I)


def _logdata_header(cells: list[str]) -> bool:
    return tuple(cells[:2]) == _LOGDATA_HEAD and len(cells) > 3 and bool(_CPU_RE.match(cells[2]))


def _logdata_keys(cells: list[str], notes: set[str]) -> list[str]:
    """jtop's own key for each column of a log_data.py header ('' for a column not imported).

    Zones run from the end of the CPU names to the first rail; every rail is tegrastats' running
    average since it started (``avg``), not a reading, so none is imported (as for a running
    average beside its reading in tables).  A name printed twice (Xavier's ``CPU``/``GPU``: a zone
    and a rail) holds the rail's value in both columns (DictWriter writes one dict entry twice).
    """
    keys = ["time", "GPU"]
    i = 2
    while i < len(cells) and _CPU_RE.match(cells[i]):
        keys.append(cells[i])
        i += 1
    twice = {c for c in cells[i:] if cells.count(c) > 1}
    rails = False
    for c in cells[i:]:
        rails = rails or bool(_RAIL_NAME_RE.match(c))
        keys.append("" if rails or c in twice else f"Temp {c}")
    notes.add("jetson-stats 1.x/2.x log_data.py CSV: bare zone names are temperatures")
    if rails:
        notes.add("rails are tegrastats' running averages (log_data.py writes avg): not imported")
    if twice:
        notes.add(
            f"{', '.join(sorted(twice))}: a zone and a rail of one name (both columns hold the rail): not imported"
        )
    return keys


def detect(text: str) -> Mark | None:
    """jtop dict lines, or a CSV whose header carries jtop's key names."""
    lines = [ln for ln in head_lines(text, 20) if ln.strip()]
    if not lines:
        return None
    if _is_jtop_header(lines[0]) or _logdata_header(next(csv.reader([lines[0]]), [])):
        return Mark(FMT, "CSV header")
    hits = sum(1 for ln in lines if _is_dict_line(ln))
    return Mark(FMT, f"{hits} of {len(lines)} head lines dicts") if hits * 2 > len(lines) else None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def _datetime_repr(m: re.Match[str]) -> str:
    """``datetime.datetime(2024, 1, 2, 3, 4, 5, 600000)`` -> an ISO string literal_eval can read."""
    if m.group(1) == "timedelta":
        return "None"
    parts = [int(p) for p in re.findall(r"-?\d+", m.group(2))] + [0] * 7
    y, mo, d, h, mi, s, us = parts[:7]
    return repr(f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}.{us:06d}")


def _records(text: str, notes: set[str]) -> tuple[list[Mapping[str, object]], int]:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    head = next(csv.reader([lines[0]]), []) if lines else []
    if _logdata_header(head):
        keys = _logdata_keys(head, notes)
        rows = list(csv.reader(io.StringIO("\n".join(lines[1:]))))
        good = [r for r in rows if len(r) == len(keys) and r != head]
        return [{k: v for k, v in zip(keys, r, strict=True) if k} for r in good], len(rows) - len(good)
    if lines and (delim := _jtop_delimiter(lines[0])) is not None:
        # a row of another width (cut by a power loss, two rows run together) is no record: read
        # by DictReader its cells fell under the wrong keys (a CPU load from a temperature) and
        # its time, no stamp, put every record on an assumed 1 s axis (session 31w)
        head = next(csv.reader([lines[0]], delimiter=delim))
        rows = list(csv.reader(io.StringIO("\n".join(lines[1:])), delimiter=delim))
        good = [r for r in rows if len(r) == len(head) and r != head]
        if delim == ";":
            notes.add("semicolon-separated CSV: decimal commas read as decimal marks")
            good = [[_DECIMAL_COMMA_CELL_RE.sub(r"\1.\2", c) for c in r] for r in good]
        return [dict(zip(head, r, strict=True)) for r in good], len(rows) - len(good)
    out: list[Mapping[str, object]] = []
    bad = 0
    for ln in lines:
        try:
            rec = ast.literal_eval(_DT_RE.sub(_datetime_repr, ln.strip()))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            bad += 1
            continue
        if isinstance(rec, dict):
            out.append({str(k): v for k, v in rec.items()})
        else:
            bad += 1
    return out, bad


def _num(v: object) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        try:  # a logger's own `12%` cell is the same 12 (a CPU load lost unsaid before)
            return float(v.strip().removesuffix("%"))
        except ValueError:
            return None
    return None


# Keys whose values are measurements: a text there that is no number (`'2,600'`, a script's
# thousands group; `'n/a'`) was dropped without a word (session 33w); jtop's own `OFF` is a state.
_MEASURED_RE = re.compile(r"^(?:temp |power |cpu\d+$|gpu$|emc$)", re.IGNORECASE)


def _note_unread(key: str, raw: object, notes: set[str]) -> None:
    if not isinstance(raw, str) or raw.strip().upper() in ("OFF", "ON", "") or not _MEASURED_RE.match(key):
        return
    prefix = f"{key!r}: value(s) that are no number"
    if not any(n.startswith(prefix) for n in notes):
        notes.add(f"{prefix} (e.g. {raw[:20]!r}) not imported")


def _sample(rec: Mapping[str, object], notes: set[str]) -> tuple[dict, dict, dict, dict, float | None]:
    temps: dict[str, float] = {}
    loads: dict[str, float] = {}
    cores: list[float] = []
    rails: dict[str, float] = {}
    total: float | None = None
    for key, raw in rec.items():
        v = _num(raw)
        if v is None:
            _note_unread(key, raw, notes)
            continue
        low = key.lower()  # `Power cur` / `power cur`: scripts write jtop's keys in either case
        if low.startswith("temp "):
            name = sensor_name(key[5:])
            if keep_temp(name, v, notes):  # jtop 3 prints tegrastats' fixed PMIC@100C level too
                temps[name] = v
        elif _CPU_RE.match(key):
            cores.append(v)
        elif key == "GPU":
            loads["gpu"] = fraction(v)
        elif key == "EMC":
            if 0.0 <= v <= 100.0:
                loads["emc"] = fraction(v)
            else:
                notes.add("EMC values are not percentages (jtop 3 copies the RAM figure there): not imported")
        elif low in ("power tot", "power cur"):
            total = v / 1000.0
        elif low == "power avg":  # jtop 3's average since it started, in either case: no reading (31w)
            continue
        elif low.startswith("power "):
            rails[key[6:]] = v / 1000.0
    if cores:
        loads["cpu"] = fraction(sum(cores) / len(cores))
    return temps, {}, loads, rails, total


def parse_text(
    text: str, source: str = "<text>", *, interval_s: float | None = None, columns: str | None = None
) -> ImportedLog:
    """Parse a jtop dict-line log or jtop CSV (``columns`` is accepted for the CLI, unused)."""
    del columns
    notes: set[str] = set()
    records, bad = _records(text, notes)
    if not records:
        raise no_samples_error(source, "jtop stats records")
    for key in ("nvp model", "jetson_clocks"):
        seen = {str(r[key]) for r in records if key in r}
        if seen:
            notes.add(f"{key}: {', '.join(sorted(seen))}")
    stamps = [parse_stamp(str(r["time"])) if isinstance(r.get("time"), str) else None for r in records]
    stamped = all(s is not None and s[1] for s in stamps)
    if stamped:  # a clock that steps (NTP, a 1970 boot, a restart) is mended and said
        from thermogov.importers.clocksteps import mend_steps

        mended, step_notes = mend_steps([s[0] if s else None for s in stamps], "record")
        stamps = [(t, True) if t is not None else None for t in mended]
        notes.update(step_notes)
    times: list[float] = []
    rows = RowSink()  # each record's values straight into columns: no sample per record held
    skipped = bad
    backwards = 0
    for i, rec in enumerate(records):
        if stamped:
            st = stamps[i]
            assert st is not None
            t = st[0]
            if times and t < times[-1]:
                backwards += 1
                skipped += 1
                continue
        else:
            t = len(rows) * (interval_s or DEFAULT_INTERVAL_S)
        temps, freqs, loads, rails, total = _sample(rec, notes)
        if not (temps or loads or rails or total is not None):
            skipped += 1
            continue
        times.append(t)
        rows.append(temps, freqs, loads, rails, total)
    if not len(rows):
        raise no_samples_error(source, "jtop records with temperatures, loads or power")
    note_timing(
        notes,
        stamped=stamped,
        interval_s=interval_s,
        default_s=DEFAULT_INTERVAL_S,
        default_how="jtop default; pass --interval if the script slept longer",
        backwards=backwards,
        skipped_what="record(s) stamped earlier than the previous one",
    )
    samples = rows.finish(rebase(times))
    notes |= rows.notes()  # the board-power sum's note, as rail_sample gave it
    from thermogov.importers.tegrastats import guess_board

    sensors = set(samples.keys("temps_c"))
    rail_names = set(samples.keys("rails_w"))
    cores = max((sum(1 for k in r if _CPU_RE.match(k)) for r in records), default=0)
    board = guess_board(rail_names, sensors, cores, 0)
    if board is None and {"pll", "ao", "thermal"} <= sensors and cores == 4:
        board = "jetson-nano"  # Tegra X1 zones (AO/CPU/GPU/PLL/thermal) with 4 cores: a Nano
    if board is not None:
        notes.add(f"board_hint {board} inferred from sensor/rail names")
    return ImportedLog(FMT, source, board, samples, skipped, tuple(sorted(notes)))
