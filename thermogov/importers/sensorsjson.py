"""``sensors -j`` (lm-sensors JSON) logs: one JSON document per reading, written by a loop.

``sensors -j`` prints every chip as an object keyed by the chip name (``cpu_thermal-virtual-0``),
holding its ``Adapter`` and one object per feature whose subfeatures carry the values:
``{"temp1": {"temp1_input": 45.3, "temp1_crit": 110.0}}`` (lm-sensors ``sensors(1)``, ``-j``;
the subfeature names are those of the hwmon sysfs interface, Documentation/hwmon/
sysfs-interface.rst: temperatures in °C, power in W once ``sensors`` has scaled them).  A logger
loops ``date; sensors -j`` or appends the output to a file, so the file is a stream of documents,
with optional ``date`` lines between them, or a top-level ``"time"`` string a script added.

Only ``temp*_input`` values are readings here: ``_max``, ``_crit`` and ``_alarm`` are limits, and
voltages, currents and fans are no field of a sample.  Sensors are named as in the text form
(:func:`thermogov.importers.labelled.sensor_names`): a chip with one temperature by its chip
(``cpu_thermal`` -> ``cpu``), else by chip and feature.
"""

from __future__ import annotations

import json
import re

from thermogov.importers.common import (
    DayClock,
    ImportedLog,
    ImportedSample,
    even_axis,
    keep_forward,
    no_samples_error,
    rebase,
)
from thermogov.importers.labelled import chip_name, sensor_names
from thermogov.importers.stamps import parse_stamp
from thermogov.importers.table import spread_ties

FMT = "sensors-json"
DEFAULT_INTERVAL_S = 1.0
_TEMP_INPUT_RE = re.compile(r"^temp\d+_input$")
_DECODER = json.JSONDecoder()
# lm-sensors 3.5.0 (Debian and Raspbian buster) wrote invalid JSON in two ways (print_chip_json in
# prog/sensors/chips.c; a "stray comma bug in the JSON output" reported fixed in 3.6.0, not checked
# against lm-sensors' own CHANGES here): a feature whose first subfeature
# could not be read opens with a lone comma (`"in0":{` newline `,`), and an unreadable value is
# printf'd as a bare `nan` / `-nan`.  Neither can occur in valid JSON, so they are repaired
# before decoding: the stray comma removed, the NaN made JSON's `NaN` (bad data, dropped later).
_STRAY_COMMA_RE = re.compile(r"([{,])(?:\s*\n[ \t]*,)+")
_TRAILING_COMMA_RE = re.compile(r",(\s*\})")
_BARE_NAN_RE = re.compile(r"(:\s*)-?nan\b", re.IGNORECASE)


def _repair(text: str) -> tuple[str, int]:
    """The text with lm-sensors 3.5.0's stray commas and bare NaNs repaired, and how many."""
    text, commas = _STRAY_COMMA_RE.subn(r"\1", text)
    text, trailing = _TRAILING_COMMA_RE.subn(r"\1", text)
    text, nans = _BARE_NAN_RE.subn(r"\1NaN", text)
    return text, commas + trailing + nans


def looks_like(text: str) -> bool:
    """A JSON object near the top whose chips have an ``Adapter`` and ``temp*_input`` values."""
    head = text[:20000]
    start = head.find("{")
    return start >= 0 and '"Adapter"' in head and re.search(r'"temp\d+_input"\s*:', head) is not None


def _documents(text: str) -> tuple[list[tuple[dict[str, object], tuple[float, bool] | None]], int]:
    """(document, stamp) in order, the stamp from a date line before it or a "time" key; and
    the number of stretches of text that were neither a document nor a date."""
    out: list[tuple[dict[str, object], tuple[float, bool] | None]] = []
    pending: tuple[float, bool] | None = None
    bad = 0
    pos = 0
    while pos < len(text):
        brace = text.find("{", pos)
        between = text[pos : brace if brace >= 0 else len(text)]
        for line in between.splitlines():
            if line.strip():
                st = parse_stamp(line.strip().strip(",;|[]"))
                if st is None:
                    bad += 1
                else:
                    pending = st
        if brace < 0:
            break
        try:
            doc, end = _DECODER.raw_decode(text, brace)
        except (json.JSONDecodeError, RecursionError):
            bad += 1
            nxt = text.find("\n{", brace + 1)
            pos = nxt + 1 if nxt >= 0 else len(text)
            continue
        pos = end
        if not isinstance(doc, dict):
            bad += 1
            continue
        stamp = pending
        for key in ("time", "timestamp", "date", "datetime"):
            if isinstance(doc.get(key), str) and (st := parse_stamp(str(doc[key]))) is not None:
                stamp = st
        out.append((doc, stamp))
        pending = None
    return out, bad


def _temps(doc: dict[str, object]) -> dict[str, float]:
    """``chip/feature`` -> °C for every ``temp*_input`` of the document."""
    out: dict[str, float] = {}
    for chip, body in doc.items():
        if not isinstance(body, dict):
            continue
        for feature, subs in body.items():
            if not isinstance(subs, dict):
                continue
            for sub, value in subs.items():
                if (
                    _TEMP_INPUT_RE.match(sub)
                    and isinstance(value, int | float)
                    and not isinstance(value, bool)
                ):
                    out[f"{chip_name(chip)}/{feature}"] = float(value)
    return out


def parse_text(text: str, source: str = "<text>", *, interval_s: float | None = None) -> ImportedLog:
    """Every document with a temperature is one sample (see module doc)."""
    text, repaired = _repair(text)
    docs, bad = _documents(text)
    rows = [(temps, stamp) for doc, stamp in docs if (temps := _temps(doc))]
    if not rows:
        raise no_samples_error(source, "sensors -j documents with a temp*_input value")
    labels = sorted({label for temps, _ in rows for label in temps})
    names = sensor_names(labels)
    notes = ["sensors -j documents: " + ", ".join(f"{k!r} as {v}" for k, v in names.items())]
    if repaired:
        notes.append(
            f"{repaired} stray comma(s) or bare nan value(s) of lm-sensors 3.5.0's JSON repaired (nan: no reading)"
        )
    skipped = bad + sum(1 for doc, _ in docs if not _temps(doc))
    if all(stamp is not None for _, stamp in rows):
        clock = DayClock()
        stamps: list[float | None] = []
        for _, st in rows:
            assert st is not None
            stamps.append(st[0] if st[1] else clock.seconds(st[0]))
        rows, axis, back = keep_forward(rows, stamps)
        skipped += back
        times, tied = spread_ties(axis)
        notes.append("time from the date lines / time keys")
        if back:
            notes.append(f"{back} document(s) without a forward time skipped")
        if tied:
            notes.append(f"{tied} document(s) shared a timestamp with the previous one: spread evenly")
    else:
        times, note = even_axis(len(rows), interval_s, DEFAULT_INTERVAL_S, "document", "the loop's sleep")
        notes.append(note)
    samples = tuple(
        ImportedSample(
            t_s=t,
            temps_c={names[label]: v for label, v in temps.items()},
            freqs_hz={},
            loads={},
            power_w=None,
            rails_w={},
        )
        for t, (temps, _) in zip(rebase(times), rows, strict=True)
    )
    return ImportedLog(FMT, source, None, samples, skipped, tuple(notes))
