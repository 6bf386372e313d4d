"""Columns that come in groups: one reading with its unit, label and limits beside it.

Exporters that flatten a list of sensor records into one CSV row write every field of each
record as a column named ``<prefix><sep><field>``: Glances' CSV export (``glances --export
csv``; nicolargo/glances ``glances/exports/glances_csv.py``) writes for each sensor
``sensors_<label>_label``, ``_value``, ``_warning``, ``_critical``, ``_unit``, ``_type`` and
``_key`` (Glances 3.x; 4.x joins with a dot), and the sensor's unit is the text of its
``_unit`` cell (``C``, ``F`` with ``--fahrenheit``, ``R`` for a fan's rpm, ``%`` for a battery).

By header words alone the label, unit and type columns of a ``cpu_thermal`` sensor all look
like temperatures, and a fan's rpm would be read as one.  So a prefix that has both a
``value`` and a ``unit`` column is one record: its ``value`` column is a temperature when the
unit cells say °C or °F (named by the label, as lm-sensors chips are: ``cpu_thermal`` ->
``cpu``), any other unit is not imported, and the other fields are never readings (limits
are not measurements, as for ``sensors -j``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from thermogov.importers.columns import Column
from thermogov.importers.common import sensor_name

_FIELDS = {"label", "value", "unit", "type", "warning", "critical", "careful", "key", "min", "max", "crit"}
_SPLIT_RE = re.compile(r"^(.+)[_.]([A-Za-z]+)$")
_TEMP_UNITS = {"c": "°C", "°c": "°C", "f": "°F", "°f": "°F"}
# plugin names an exporter puts before the record's own label
_PLUGIN_PREFIX_RE = re.compile(r"^(sensors?|temps?|thermal)[_.]", re.I)
_INDEX_RE = re.compile(r"[ _]\d+$")


def _record_of(label: str) -> tuple[str, str] | None:
    m = _SPLIT_RE.match(label.strip())
    if m is None or m.group(2).lower() not in _FIELDS:
        return None
    return m.group(1), m.group(2).lower()


def group_columns(labels: list[str], rows: Sequence[list[str]]) -> tuple[dict[int, Column], list[str]]:
    """{column index: Column} for every column of a value+unit record, and notes saying what was
    decided; empty when the table has no such records."""
    records: dict[str, dict[str, int]] = {}
    for i, label in enumerate(labels):
        hit = _record_of(label)
        if hit:
            records.setdefault(hit[0], {})[hit[1]] = i
    records = {p: f for p, f in records.items() if "value" in f and "unit" in f}
    if not records:
        return {}, []
    out: dict[int, Column] = {}
    temps: dict[str, tuple[int, str]] = {}
    skipped: list[str] = []
    for prefix, fields in records.items():
        for i in fields.values():
            out[i] = Column("")
        # every row's unit cell: Glances restarted with --fahrenheit appends °F rows to a °C log
        units = {r[fields["unit"]].strip().lower() for r in rows if r[fields["unit"]].strip()}
        unit = _TEMP_UNITS.get(next(iter(units))) if len(units) == 1 else None
        if unit is None:
            skipped.append(f"{labels[fields['value']]} ({'/'.join(sorted(units)) or 'no unit'})")
            continue
        temps[prefix] = (fields["value"], unit)
    names = _sensor_names(list(temps))
    for prefix, (i, unit) in temps.items():
        out[i] = Column("temp", names[prefix], unit, how="values")
    notes = [
        f"{len(records)} sensor record(s) (value + unit columns): "
        + ", ".join(f"{labels[i]} = {names[p]} temperature in {u}" for p, (i, u) in temps.items())
    ]
    if skipped:
        notes.append("record(s) not in °C/°F, not imported: " + ", ".join(skipped))
    return out, notes


def _sensor_names(prefixes: list[str]) -> dict[str, str]:
    """A sensor name per record: its label without the plugin prefix, as lm-sensors chips are
    named (``sensors_cpu_thermal 1`` -> ``cpu``); the exporter's index suffix is dropped when
    the names stay distinct without it; a lone record is the SoC's (``cpu``)."""
    bare = [_PLUGIN_PREFIX_RE.sub("", p).strip() for p in prefixes]
    unindexed = [_INDEX_RE.sub("", b) for b in bare]
    if len(set(unindexed)) == len(unindexed):
        bare = unindexed
    names = [sensor_name(b).replace(" ", "_").replace("-", "_") for b in bare]
    if len(prefixes) == 1:
        names = ["cpu"]
    return dict(zip(prefixes, names, strict=True))


__all__ = ["group_columns"]
