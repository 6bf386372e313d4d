"""``bcmstat.sh`` monitor output (MilhouseVH/bcmstat), a common Raspberry Pi cooling-test log.

bcmstat prints a banner (``Board: ... (Pi4 Model B rev 1.1, BCM2838 SoC ...)``), then a
header row that it repeats every few dozen rows, optionally underlined with ``=``, then one row
per interval::

    Time         ARM    Core    H264 Core Temp (Max)  IRQ/s      RX B/s      TX B/s  %user ...
    08:20:12 1500Mhz  500Mhz    0Mhz 42.84C (43.82C)  2,666           0           0   2.04 ...

The columns depend on the options it was started with, so the header is read rather than
assumed.  A row is cut into one token per column: a value with its parenthesised companion
(``42.84C (43.82C)``, ``242M ( 80%)``) and the ``588,264 kB/14.8%`` memory pair count as one.
The counts use thousands separators (``2,666``); they are not imported.  Clocks are the
firmware's (``vcgencmd measure_clock``), the temperature is thermal zone 0 (bcmstat source,
``getBCM2835``), ``%total`` is 100 minus ``%idle`` of /proc/stat.
"""

from __future__ import annotations

import re

from thermogov.importers.cells import head_lines
from thermogov.importers.common import (
    DayClock,
    ImportedLog,
    ImportedSample,
    Mark,
    fraction,
    mhz_to_hz,
    no_samples_error,
    parse_hms,
    rebase,
)
from thermogov.importers.models import board_from_model
from thermogov.importers.table import spread_ties

FMT = "bcmstat"

# Header names that contain spaces, longest first so "Core Temp (Max)" is not read as "Core".
_MULTI_WORD = (
    "Core Temp (Max)",
    "PMIC Temp (Max)",
    "Memory Free/Used",
    "GPUMem Free",
    "Delta GPU B",
    "RX B/s",
    "TX B/s",
    "Mem kB",
)
_HEADER_RE = re.compile(r"^\s*Time\s+ARM\b.*\bTemp\b")
_ROW_RE = re.compile(r"^\s*(\d{1,2}:\d{2}:\d{2})\s")
_TOKEN_RE = re.compile(r"\S+(?:\s+kB/\S+)?(?:\s*\(\s*[^)]*\))?")
# bcmstat prints clocks as whole MHz; `1,500Mhz` is the same clock with a thousands group (a copy
# re-printed under en_US grouping, session 33w): read, never as 1 or 500 MHz.
_MHZ_RE = re.compile(r"^(\d+(?:\.\d+)?|\d{1,3}(?:,\d{3})+)mhz$", re.IGNORECASE)
_TEMP_RE = re.compile(r"^(-?\d+(?:\.\d+)?)C\b")
_CLOCKS = {"ARM": "cpu", "V3D": "gpu"}  # Core (VPU), H264 and ISP clocks do not drive the model
_BOARD_RE = re.compile(r"\((Pi\s?\d+\+?|CM\s?\d+)\b", re.IGNORECASE)


def detect(text: str) -> Mark | None:
    """A bcmstat header row and at least two rows with a time and an ``Mhz`` clock under it."""
    lines = head_lines(text, 200)
    if not any(_HEADER_RE.match(ln) for ln in lines):
        return None
    rows = sum(1 for ln in lines if _ROW_RE.match(ln) and re.search(r"\d+Mhz", ln, re.IGNORECASE))
    return Mark(FMT, f"header and {rows} clock rows in the head") if rows >= 2 else None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def header_columns(line: str) -> list[str]:
    """Column names of a header row, multi-word names kept whole."""
    cols: list[str] = []
    rest = line.strip()
    while rest:
        for name in _MULTI_WORD:
            if rest.startswith(name):
                cols.append(name)
                rest = rest[len(name) :].lstrip()
                break
        else:
            word, _, rest = rest.partition(" ")
            cols.append(word)
            rest = rest.lstrip()
    return cols


def _board_hint(text: str) -> str | None:
    """The family from bcmstat's ``Board:`` banner (``Pi3 rev 1.2``, ``Pi4 Model B``, ``CM4``)."""
    for line in head_lines(text, 40):
        if not line.strip().startswith("Board:"):
            continue
        m = _BOARD_RE.search(line)
        if m is None:
            return board_from_model(line)
        tag = m.group(1).replace(" ", "").upper()
        if tag.startswith("CM"):
            return board_from_model(f"Raspberry Pi Compute Module {tag[2:]}")
        return board_from_model(f"Raspberry Pi {tag[2:].rstrip('+')}")
    return None


def _row_values(cols: list[str], tokens: list[str]) -> dict[str, object] | None:
    """Clocks, temperature and CPU load of one row; None when a needed value does not parse."""
    out: dict[str, object] = {}
    for name, token in zip(cols, tokens, strict=False):
        if name in _CLOCKS:
            m = _MHZ_RE.match(token)
            if m is None:
                return None
            mhz = float(m.group(1).replace(",", ""))
            out.setdefault("freqs", {})[_CLOCKS[name]] = mhz_to_hz(mhz)  # type: ignore[index]
        elif name in ("Core Temp (Max)", "PMIC Temp (Max)"):
            m = _TEMP_RE.match(token)
            if m is None:
                return None
            sensor = "cpu" if name.startswith("Core") else "pmic"
            out.setdefault("temps", {})[sensor] = float(m.group(1))  # type: ignore[index]
        elif name == "%total":
            try:
                out["load"] = fraction(float(token))
            except ValueError:
                return None
    return out


def parse_text(text: str, source: str = "<text>") -> ImportedLog:
    """Rows under the latest header, on a midnight-safe time axis (see module doc)."""
    clock = DayClock()
    cols: list[str] | None = None
    times: list[float] = []
    rows: list[dict[str, object]] = []
    skipped = 0
    short = 0
    backwards = 0
    for line in text.splitlines():
        if _HEADER_RE.match(line):
            cols = header_columns(line)
            continue
        m = _ROW_RE.match(line)
        if m is None or cols is None:
            if line.strip() and not set(line.strip()) <= {"=", " "} and cols is not None:
                skipped += 1
            continue
        tokens = _TOKEN_RE.findall(line)
        if len(tokens) < len(cols):
            short += 1  # a row cut off by the end of the capture or a terminal resize
        values = _row_values(cols, tokens)
        hms = parse_hms(m.group(1))
        if values is None or hms is None or not values.get("temps"):
            skipped += 1
            continue
        t = clock.seconds(hms)
        if t is None or (times and t < times[-1]):
            backwards += 1
            continue
        times.append(t)
        rows.append(values)
    if not rows:
        raise no_samples_error(source, "bcmstat rows (Time ARM ... Core Temp)")
    spread, tied = spread_ties(times)
    notes = ["bcmstat: ARM clock (firmware), Core Temp (thermal zone 0)"]
    if any("load" in r for r in rows):
        notes.append("CPU load from %total (100 - %idle)")
    if tied:
        notes.append(f"{tied} row(s) shared a 1-s stamp with the previous one: spread evenly")
    if short:
        notes.append(f"{short} row(s) had fewer columns than the header: only the leading ones read")
    if backwards:
        notes.append(f"{backwards} row(s) going back in time skipped")
    samples = tuple(
        ImportedSample(
            t_s=t,
            temps_c=dict(r["temps"]),  # type: ignore[call-overload]
            freqs_hz=dict(r.get("freqs", {})),  # type: ignore[call-overload]
            loads={"cpu": float(r["load"])} if "load" in r else {},  # type: ignore[arg-type]
            power_w=None,
            rails_w={},
        )
        for t, r in zip(rebase(spread), rows, strict=True)
    )
    return ImportedLog(FMT, source, _board_hint(text), samples, skipped + backwards, tuple(notes))
