"""Importers: real board logs -> one common in-memory form (:class:`ImportedLog`).

Detection looks at the content, not the file name, because logs get renamed when they are
copied off a board (``stats.log``, ``tegrastats.txt``, ``cpu_temp.csv`` ...).  The most
distinctive signatures are tried first so a generic CSV rule can never shadow them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from thermogov.importers import rpi_csv, sbcbench, stressberry, tegrastats
from thermogov.importers.common import ImportedLog, ImportedSample, read_text
from thermogov.interfaces import LogFormatError

FORMATS: tuple[str, ...] = ("tegrastats", "rpi-csv", "stressberry", "sbc-bench")

# Detection order: strongest signature first (sbc-bench/stressberry headers), generic CSV last.
_DETECT_ORDER: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("sbc-bench", sbcbench.looks_like),
    ("stressberry", stressberry.looks_like),
    ("tegrastats", tegrastats.looks_like),
    ("rpi-csv", rpi_csv.looks_like),
)

__all__ = ["FORMATS", "ImportedLog", "ImportedSample", "detect_format", "detect_text", "parse_log"]


def _unrecognised(path: str | Path) -> LogFormatError:
    names = ", ".join(FORMATS)
    return LogFormatError(
        f"{path}: not a recognised log ({names}); pass --format explicitly or check the file"
    )


def detect_text(text: str) -> str | None:
    """Format name for log content, or None when no importer recognises it."""
    for name, looks_like in _DETECT_ORDER:
        if looks_like(text):
            return name
    return None


def detect_format(path: str | Path) -> str:
    """Format of the log at ``path``, from its content; LogFormatError if unrecognisable."""
    fmt = detect_text(read_text(path))
    if fmt is None:
        raise _unrecognised(path)
    return fmt


def parse_log(path: str | Path, fmt: str = "auto", *, interval_s: float | None = None) -> ImportedLog:
    """Parse a board log into an ImportedLog.

    ``interval_s`` only matters for tegrastats logs without timestamps (default 1 s, the
    tegrastats default); it exists because ``tegrastats --interval`` is not recorded in the log.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise LogFormatError(f"{path}: unknown format {fmt!r}; use one of auto, {', '.join(FORMATS)}")
    text = read_text(path)
    if fmt == "auto":
        detected = detect_text(text)
        if detected is None:
            raise _unrecognised(path)
        fmt = detected
    source = str(path)
    if fmt == "tegrastats":
        return tegrastats.parse_text(text, source, interval_s=interval_s)
    if fmt == "rpi-csv":
        return rpi_csv.parse_text(text, source)
    if fmt == "stressberry":
        return stressberry.parse_text(text, source)
    return sbcbench.parse_text(text, source)
