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

``sensors -j -f`` writes the same documents in °F, with no unit anywhere: the limits beside the
readings tell the units apart (:func:`_fahrenheit`), and a log they contradict is refused.
"""

from __future__ import annotations

import json
import math
import re

from thermogov.importers.common import (
    DayClock,
    ImportedLog,
    ImportedSample,
    Mark,
    even_axis,
    keep_forward,
    no_samples_error,
    rebase,
)
from thermogov.importers.labelled import chip_name, sensor_names
from thermogov.importers.stamps import parse_stamp
from thermogov.importers.table import spread_ties
from thermogov.interfaces import LogFormatError

FMT = "sensors-json"
DEFAULT_INTERVAL_S = 1.0
_TEMP_INPUT_RE = re.compile(r"^temp\d+_input$")
_TEMP_LIMIT_RE = re.compile(r"^temp\d+_(?:max|crit|emergency)$")
# `sensors -j -f` writes every temperature (input and limits) in °F with no unit in the JSON, so
# the unit is told from the values.  A die's upper limit (max, crit, emergency) is set below
# 150 °C (302 °F); a limit in 150..302 is therefore °F, and one in 40..104 is °C (40..104 °F
# would be 4..40 °C, no die's limit).  104..150 (e.g. a Jetson's 104.5 °C crit) and limits
# outside 40..302 (an NVMe drive's 65261.8 "unset" max) decide nothing.  Read as °F, every
# reading must still be a running board's, >= 20 °C (68 °F): the cold-°F rule of the tables.
# Estimated bounds, stated ranges of the quantity, not fitted to any log.
_C_LIMIT = (40.0, 104.0)
_F_LIMIT = (150.0, 302.0)
_F_READING = (68.0, 302.0)
_DECODER = json.JSONDecoder()
# lm-sensors 3.5.0 (Debian and Raspbian buster) wrote invalid JSON in two ways (print_chip_json in
# prog/sensors/chips.c; a "stray comma bug in the JSON output" reported fixed in 3.6.0, not checked
# against lm-sensors' own CHANGES here): a feature whose first subfeature
# could not be read opens with a lone comma (`"in0":{` newline `,`), and an unreadable value is
# printf'd as a bare `nan` / `-nan` (or `inf` / `-inf`: the same printf of a value that
# overflowed).  Neither can occur in valid JSON, so they are repaired before decoding: the stray
# comma removed, the NaN made `NaN` and the infinities `Infinity` (bad data, dropped later).
_STRAY_COMMA_RE = re.compile(r"([{,])(?:\s*\n[ \t]*,)+")
_TRAILING_COMMA_RE = re.compile(r",(\s*\})")
_BARE_NAN_RE = re.compile(r"(:\s*)-?nan\b", re.IGNORECASE)
_BARE_INF_RE = re.compile(r"(:\s*)(-?)inf\b", re.IGNORECASE)


def _repair(text: str) -> tuple[str, int]:
    """The text with lm-sensors 3.5.0's stray commas and bare NaNs repaired, and how many."""
    text, commas = _STRAY_COMMA_RE.subn(r"\1", text)
    text, trailing = _TRAILING_COMMA_RE.subn(r"\1", text)
    text, nans = _BARE_NAN_RE.subn(r"\1NaN", text)
    text, infs = _BARE_INF_RE.subn(r"\1\2Infinity", text)
    return text, commas + trailing + nans + infs


def detect(text: str) -> Mark | None:
    """A JSON object near the top whose chips have an ``Adapter`` and ``temp*_input`` values."""
    head = text[:20000]
    start = head.find("{")
    found = start >= 0 and '"Adapter"' in head and re.search(r'"temp\d+_input"\s*:', head) is not None
    return Mark(FMT, "chips with an Adapter and temp inputs") if found else None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def _documents(text: str) -> tuple[list[tuple[dict[str, object], tuple[float, bool] | None]], int, int]:
    """(document, stamp) in order, the stamp from a date line before it or a "time" key; the
    number of stretches of text that were neither a document nor a date; and the number of lines
    dropped as written twice (:func:`_without_repeats`)."""
    out: list[tuple[dict[str, object], tuple[float, bool] | None]] = []
    state: dict[str, tuple[float, bool] | None] = {"pending": None}
    bad = 0
    repeats = 0

    def between(stretch: str) -> int:
        unread = 0
        for line in stretch.splitlines():
            if line.strip():
                st = parse_stamp(line.strip().strip(",;|[]"))
                if st is None:
                    unread += 1
                else:
                    state["pending"] = st
        return unread

    def keep(doc: object) -> int:
        if not isinstance(doc, dict):
            return 1
        stamp = state["pending"]
        for key in ("time", "timestamp", "date", "datetime"):
            if isinstance(doc.get(key), str) and (st := parse_stamp(str(doc[key]))) is not None:
                stamp = st
        out.append((doc, stamp))
        state["pending"] = None
        return 0

    pos = 0
    while pos < len(text):
        brace = text.find("{", pos)
        bad += between(text[pos : brace if brace >= 0 else len(text)])
        if brace < 0:
            break
        try:
            doc, end = _DECODER.raw_decode(text, brace)
        except (json.JSONDecodeError, RecursionError):
            doc, end = None, -1
        if doc is None or (isinstance(doc, dict) and not _temps(doc)):
            # no document, or one without a reading: lines written twice? (session 32w)
            nxt = text.find("\n{", brace + 1)
            stop = nxt + 1 if nxt >= 0 else len(text)
            mended, dropped = _without_repeats(text[brace:stop])
            try:
                fixed, fixed_end = _DECODER.raw_decode(mended) if dropped else (None, 0)
            except (json.JSONDecodeError, RecursionError):
                fixed = None
            if isinstance(fixed, dict) and _temps(fixed):
                repeats += dropped
                bad += keep(fixed) + between(mended[fixed_end:])
                pos = stop
                continue
            if doc is None:
                bad += 1
                pos = stop
                continue
        pos = end
        bad += keep(doc)
    return out, bad, repeats


def _without_repeats(stretch: str) -> tuple[str, int]:
    """``stretch`` without each line that repeats the line before it, and how many were dropped.

    ``sensors -j`` prints one key or brace per line, indented by depth, so its documents never
    hold two equal lines in a row (a key twice is a duplicate; two closing braces in a row sit at
    two depths): such a pair is a line written twice (a logger's retry, a copy).  Tried only on a
    document that does not decode or holds no reading (a feature's opening line twice decodes as
    a nested object of the same name, with no value where one is expected); a document that
    still gives none is skipped and counted as before."""
    lines = stretch.splitlines(keepends=True)
    kept = [
        ln for k, ln in enumerate(lines) if k == 0 or not ln.strip() or ln.rstrip() != lines[k - 1].rstrip()
    ]
    return "".join(kept), len(lines) - len(kept)


def _temps(doc: dict[str, object], pattern: re.Pattern[str] = _TEMP_INPUT_RE) -> dict[str, float]:
    """``chip/feature`` -> value of every temperature subfeature matching ``pattern`` (the
    inputs by default; with :data:`_TEMP_LIMIT_RE`, ``chip/feature/sub`` -> the limits)."""
    out: dict[str, float] = {}
    for chip, body in doc.items():
        if not isinstance(body, dict):
            continue
        for feature, subs in body.items():
            if not isinstance(subs, dict):
                continue
            for sub, value in subs.items():
                if pattern.match(sub) and isinstance(value, int | float) and not isinstance(value, bool):
                    key = f"{chip_name(chip)}/{feature}"
                    out[key if pattern is _TEMP_INPUT_RE else f"{key}/{sub}"] = float(value)
    return out


def _first(values: dict[str, float], low: float, high: float) -> tuple[str, float] | None:
    return next(((k, v) for k, v in values.items() if low <= v <= high), None)


def _fahrenheit(docs: list[dict[str, object]], source: str) -> str | None:
    """A note when the documents are `sensors -j -f` output (°F), None when °C; a log whose
    values say both is refused (see :data:`_C_LIMIT`)."""
    limits: dict[str, float] = {}
    readings: dict[str, float] = {}
    for doc in docs:
        limits.update(_temps(doc, _TEMP_LIMIT_RE))
        for k, v in _temps(doc).items():  # the lowest reading of each sensor decides
            if math.isfinite(v) and v < readings.get(k, math.inf):
                readings[k] = v
    as_f = _first(limits, _F_LIMIT[0], _F_LIMIT[1])
    if as_f is None:
        return None
    as_c = _first(limits, _C_LIMIT[0], _C_LIMIT[1])
    cold = next(((k, v) for k, v in readings.items() if not _F_READING[0] <= v <= _F_READING[1]), None)
    if as_c is None and cold is None:
        return f"temperatures read as °F (sensors -f: {as_f[0]} is {as_f[1]:g}, a limit only °F allows)"
    if as_c is not None:
        other = f"{as_c[0]} = {as_c[1]:g} is a limit only in °C"
    else:
        assert cold is not None  # both None returned above
        other = f"{cold[0]} = {cold[1]:g} would be a board below 20 °C"
    raise LogFormatError(
        f"{source}: sensors -j values in two units: {as_f[0]} = {as_f[1]:g} is a limit only in °F "
        f"(sensors -f), {other}; record the log again with `sensors -j` (without -f)"
    )


def parse_text(text: str, source: str = "<text>", *, interval_s: float | None = None) -> ImportedLog:
    """Every document with a temperature is one sample (see module doc)."""
    text, repaired = _repair(text)
    docs, bad, repeats = _documents(text)
    rows = [(temps, stamp) for doc, stamp in docs if (temps := _temps(doc))]
    if not rows:
        raise no_samples_error(source, "sensors -j documents with a temp*_input value")
    unit_note = _fahrenheit([doc for doc, _ in docs], source)
    if unit_note is not None:
        rows = [({k: (v - 32.0) * 5.0 / 9.0 for k, v in temps.items()}, stamp) for temps, stamp in rows]
    labels = sorted({label for temps, _ in rows for label in temps})
    names = sensor_names(labels)
    notes = ["sensors -j documents: " + ", ".join(f"{k!r} as {v}" for k, v in names.items())]
    if unit_note is not None:
        notes.append(unit_note)
    if repaired:
        notes.append(
            f"{repaired} stray comma(s) or bare nan/inf value(s) of lm-sensors 3.5.0's JSON repaired (nan, inf: no reading)"
        )
    if repeats:
        notes.append(
            f"{repeats} line(s) inside pretty-printed documents repeated the line before (written twice): "
            "dropped, each document read once"
        )
    skipped = bad + sum(1 for doc, _ in docs if not _temps(doc))
    if all(stamp is not None for _, stamp in rows):
        clock = DayClock(back=True)  # a step back of up to 6 h is a clock step (clocksteps)
        stamps: list[float | None] = []
        for _, st in rows:
            assert st is not None
            stamps.append(st[0] if st[1] else clock.seconds(st[0]))
        rows, axis, back = keep_forward(rows, stamps, notes)
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
