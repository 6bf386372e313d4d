"""Multi-line ``Label: value`` records, the shape of most home-made shell loggers.

A script that prints one reading per line, in the author's own words and language::

    -----------------------------
    Timestamp: Wed 11 Dec 13:23:30 CET 2024
    Temperatura: 44.3'C
    Frequenza CPU: 600 MHz
    Throttled: 0x0

cannot be read by column, and its labels are not worth a synonym list (every language has its
own).  The *values* say what they are: a number with ``'C``/``°C`` is a temperature, with
``Hz``/``kHz``/``MHz``/``GHz`` a clock, with ``W``/``mW`` power, ``0x..`` a throttle mask, a
date a timestamp; a percentage counts as CPU load only when its label says CPU, load, usage or
utilisation (a battery or humidity percentage is not a load).  A record ends where a label it
already has appears again or a new timestamp arrives, so any order of lines works.  When a log
has several date-valued labels (``Start: <date>`` banners between runs), the most frequent one
is the records' timestamp.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter

from thermogov.importers.cells import head_lines
from thermogov.importers.common import (
    DayClock,
    ImportedLog,
    ImportedSample,
    Mark,
    even_axis,
    fraction,
    keep_forward,
    no_samples_error,
    rebase,
    sensor_name,
    throttle_note,
)
from thermogov.importers.labelled_units import BareRuns
from thermogov.importers.stamps import parse_stamp
from thermogov.importers.table import OTHER_PART_LINES, data_like, line_shape, spread_ties
from thermogov.interfaces import LogFormatError

FMT = "labelled"
DEFAULT_INTERVAL_S = 1.0

# `Label: value`, `Label = value`, and `Label => value` (`echo "GPU => $(vcgencmd measure_temp)"`)
_LINE_RE = re.compile(r"^\s*(?P<label>[^\W\d_][^:=]{0,40}?)\s*(?:=>|[:=])\s*(?P<value>\S.*?)\s*$")
# `echo "$(date) @ $(hostname)"`: a date line that names its host after an `@`
_AT_HOST_RE = re.compile(r"\s+@\s+[\w.-]+\s*$")
_NUM = r"([-+]?\d+(?:[.,]\d+)?)"
_TEMP_RE = re.compile(rf"^{_NUM}\s*(?:'|°|º)?\s*C(?:elsius)?\b", re.IGNORECASE)
# `sensors -f` prints every temperature in °F (`+118.9°F`): a stated unit, so converted (°C =
# (°F - 32) x 5/9, NIST SP 811 B.9); the degree sign is required, a bare `F` states nothing.
_TEMP_F_RE = re.compile(rf"^{_NUM}\s*[°º]\s*F(?:ahrenheit)?\b", re.IGNORECASE)
# Where the locale cannot show a degree sign (LANG=C, a cron job), lm-sensors prints " C" and
# " F" instead (prog/sensors/main.c, set_degstr): read as °F only under an lm-sensors chip.
_LMSENSORS_F_RE = re.compile(rf"^{_NUM} F\b")
# `sensors -u` prints each subfeature raw under its chip and feature, without a unit:
# `  temp1_input: 48.300` is the hwmon temperature input, which libsensors gives in °C
# (Documentation/hwmon/sysfs-interface.rst names it; lm-sensors scales m°C to °C).
_RAW_TEMP_INPUT_RE = re.compile(r"^temp\d+_input$")
_BARE_NUM_RE = re.compile(rf"^{_NUM}$")
# `48300 m°C` (`mC`, `m'C`): a thermal zone's raw value with its unit written out (session 32w)
_MILLI_TEMP_RE = re.compile(rf"^{_NUM}\s*m\s*(?:'|°|º)?\s*C\b")
_CLOCK_RE = re.compile(rf"^{_NUM}\s*(GHz|MHz|kHz|Hz)\b", re.IGNORECASE)
_POWER_RE = re.compile(rf"^{_NUM}\s*(mW|W)\b")
_PERCENT_RE = re.compile(rf"^{_NUM}\s*%")
_MASK_RE = re.compile(r"^0x[0-9a-fA-F]+$")
_LOAD_LABEL_RE = re.compile(r"cpu|load|usage|util|auslastung|carico|carga|charge cpu", re.IGNORECASE)
_CLOCK_SCALE = {"ghz": 1e9, "mhz": 1e6, "khz": 1e3, "hz": 1.0}
# a bare `date` line: "Thu Dec  3 08" is no label, ":23:31 UTC 2026" no value
_CLOCK_IN_LABEL_RE = re.compile(r"\d{1,2}$")
_MINUTES_RE = re.compile(r"\d{2}(?::\d{2})?\b")
# A logger that stamps each line: `2026-12-05 10:00:00: CPU temperature 45.00°C` (`echo "$NOW:
# CPU temperature ..."`), `[2026-12-05 10:00:00] CPU temp: 45.2'C`.  The ISO stamp is the record's
# time; after it comes a `Label: value`, or a label and a value with its unit and no colon.  Such a
# log was refused as "not a recognised log", naming no fix.
# The stamp may be labelled and day-first (`Date: 20-02-2026 23:59:38 Temp: 71.6°C`, a Python
# logger's f"Date: {now:%d-%m-%Y %H:%M:%S} Temp: {t}°C"), which was refused as no known log.
# The rest may follow the stamp after a comma (`Date: 20-02-2026 23:45:07,Temp: 67.2`) or with no
# space at all when it is a label and its colon (`Date: 20-02-2026 23:46:01Time: ,Temp: 69.6`, the
# same logger's f-string missing its separators): both were no records of any reader.
_LEAD_STAMP_RE = re.compile(
    r"^\s*(?:(?:date|time|timestamp|datetime|datum|zeit)\s*[:=]\s*)?\[?"
    r"(\d{4}-\d\d-\d\d[T _]\d\d:\d\d:\d\d(?:[.,]\d+)?|\d\d?[-/.]\d\d?[-/.]\d{4},?\s+\d\d?:\d\d:\d\d)"
    r"\]?(?:\s*[:|-]?\s+|\s*,\s*|(?=[^\W\d_][^:=,\d]{0,40}[:=]))(?=[^\W\d_])(.*)$",
    re.IGNORECASE,
)
_SPACED_RE = re.compile(
    rf"^(?P<label>[^\W\d_][^:=\d]{{0,40}}?)\s+(?P<value>{_NUM}\s*(?:'|°|º)?\s*(?:C|F|GHz|MHz|kHz|mW|W|%))\s*$"
)


def _stamped_line(line: str) -> tuple[tuple[float, bool] | None, str]:
    """(the stamp leading ``line`` or None, the rest of it as a ``Label: value`` line)."""
    lead = _LEAD_STAMP_RE.match(line)
    if lead is None or (stamp := parse_stamp(lead.group(1))) is None or not stamp[1]:
        return None, line
    rest = lead.group(2)
    if _LINE_RE.match(rest) is None and (m := _SPACED_RE.match(rest)) is not None:
        rest = f"{m.group('label')}: {m.group('value')}"
    return stamp, rest


# lm-sensors chip names end in the bus and address (sensors(1): "cpu_thermal-virtual-0",
# "coretemp-isa-0000", "ina3221-i2c-1-40"); the rest names the chip
_CHIP_BUS_RE = re.compile(r"-(?:virtual|isa|i2c|pci|platform|acpi|spi|hid|scsi|mdio|sdio|usb)-[0-9a-fA-F-]*$")
DATE_LABEL = "(date line)"
_GAP_FACTOR = 10.0  # a step this many median intervals long is a pause between runs


def chip_name(raw: str) -> str:
    """An lm-sensors chip name without its bus and address: ``cpu_thermal-virtual-0`` ->
    ``cpu_thermal`` (the text and the ``-j`` JSON form name chips alike)."""
    return _CHIP_BUS_RE.sub("", raw.strip())


def _num(text: str) -> float:
    return float(text.replace(",", "."))


def classify(label: str, value: str) -> tuple[str, float | tuple[float, bool]] | None:
    """(kind, value) of one ``Label: value`` line, or None when the value is not a reading."""
    if (m := _TEMP_RE.match(value)) is not None:
        return "temp", _num(m.group(1))
    if (m := _TEMP_F_RE.match(value)) is not None:
        return "temp", round((_num(m.group(1)) - 32.0) * 5.0 / 9.0, 6)
    if (m := _MILLI_TEMP_RE.match(value)) is not None:
        return "temp", _num(m.group(1)) / 1000.0
    if (m := _CLOCK_RE.match(value)) is not None:
        return "clock", _num(m.group(1)) * _CLOCK_SCALE[m.group(2).lower()]
    if (m := _POWER_RE.match(value)) is not None:
        scale = 1e-3 if m.group(2) == "mW" else 1.0
        return "power", _num(m.group(1)) * scale
    if _MASK_RE.match(value):
        return "mask", float(int(value, 16))
    if (m := _PERCENT_RE.match(value)) is not None:
        return ("load", _num(m.group(1))) if _LOAD_LABEL_RE.search(label) else None
    stamp = parse_stamp(value)
    if stamp is not None:
        return "stamp", stamp
    if (
        _TEMP_LABEL_RE.search(label)
        and not _LIMIT_WORDS_RE.search(label)
        and (b := _BARE_NUM_RE.match(value)) is not None
    ):
        # `CPU temperature: 58.533` (a Python logger's f-string, no unit): the label says what it
        # is, and as a table's `temp` column a bare value in the °C range is °C (never °F from
        # values alone, and m°C like 58533 is out of range: not a reading)
        v = _num(b.group(1))
        if -40.0 <= v <= 150.0:
            return "temp", v
    return None


_TEMP_WORDS_RE = re.compile(
    r"\b(?:current|temp|temperature|temperatur|température|temperatura)\b", re.IGNORECASE
)
# a setting, not a reading: `Temperature threshold: 75`, `max temp: 85`, `trip temp: 80`
_LIMIT_WORDS_RE = re.compile(
    r"thresh|treshold|limit|max|min|crit|high|low|alarm|alert|target|set ?point|trip|warn", re.IGNORECASE
)
_TEMP_LABEL_RE = re.compile(r"\btemp(?:erature)?\b|temperatur|température|temperatura", re.IGNORECASE)
_PAIR_SEP_RE = re.compile(r"\s*(?:[,;|]\s+|\t+|,(?=[^\W\d_][^:=,\d]{0,40}[:=]))")
# a label with nothing after its colon (`Time: ,Temp: 69.6`): no reading, and no reason to keep
# the pairs beside it from being read
_EMPTY_PAIR_RE = re.compile(r"^\s*[^\W\d_][^:=]{0,40}?\s*[:=]\s*$")


def _split_pairs(line: str) -> list[str]:
    """A line holding several ``Label: value`` pairs (a Python logger's ``Current CPU
    temperature: 58.533, GPU temperature: 58.0``) as one line per pair; any other line whole.
    Only a line whose every part is a pair is split, so a value with a comma stays whole (a comma
    with no space after it splits only before a label and its colon, ``Time: ,Temp: 69.6``; a
    label with no value is dropped), and never one with brackets (lm-sensors' ``+49.0°C  (high = +80.0°C, crit = +100.0°C)``)."""
    if any(ch in line for ch in "()[]{}"):
        return [line]
    parts = _PAIR_SEP_RE.split(line.strip())
    pairs = [p for p in parts if not _EMPTY_PAIR_RE.match(p)]
    if len(parts) < 2 or not pairs or not all(_LINE_RE.match(p) for p in pairs):
        return [line]
    return pairs


class _Unread:
    """The data-like lines that gave no reading, counted as they come: the first run of
    OTHER_PART_LINES or more consecutive ones of one shape (digits aside) is a part of the file
    in another format, which the labelled reader would drop without a word.  Only that run and a
    count are kept (a file of a million such lines holds no list of them)."""

    def __init__(self) -> None:
        self.count = 0
        self.run: tuple[int, int, str, str] | None = None  # first, last, first text, shape
        self.found: tuple[int, int, str] | None = None

    def add(self, number: int, line: str) -> None:
        self.count += 1
        shape = line_shape(line)
        r = self.run
        if r is not None and r[1] == number - 1 and r[3] == shape:
            self.run = r = (r[0], number, r[2], shape)
        else:
            self.run = r = (number, number, line.strip(), shape)
        if r[1] - r[0] + 1 >= OTHER_PART_LINES and (self.found is None or self.found[0] == r[0]):
            self.found = (r[0], r[1], r[2])

    def part(self) -> tuple[int, int, str, int] | None:
        """(first line, last line, its text, unread lines outside it), or None."""
        if self.found is None:
            return None
        a, b, first = self.found
        return a, b, first, self.count - (b - a + 1)


def _readings(
    text: str,
    unread: _Unread | None = None,
    bare: BareRuns | None = None,
    resolved: dict[tuple[int, str], tuple[str, float]] | None = None,
) -> list[tuple[str, str, float | tuple[float, bool]]]:
    """(label, kind, value) of every reading line, in order; with ``unread``, the (1-based number,
    text) of each data-like line that gave no reading and no stamp is appended to it.  ``bare``
    collects each label's stated temperatures and clocks and its unitless numbers; ``resolved``
    reads those numbers in the units :meth:`BareRuns.resolve` found (``labelled_units``).

    Two line shapes that are not ``Label: value`` are read too: a bare ``date`` line (its
    ``HH:MM`` colon is no label separator) is a timestamp, and in an ``lm-sensors`` loop the chip
    line before each ``Adapter:`` line qualifies the labels under it (every chip has a ``temp1``).
    """
    out: list[tuple[str, str, float | tuple[float, bool]]] = []
    prev = ""  # the last non-empty line that was not a reading
    chip: str | None = None
    last_lead: tuple[float, bool] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        before = len(out)
        stamp_before, whole = _stamped_line(raw)
        if stamp_before is not None and stamp_before != last_lead:  # one record's lines share it
            out.append((DATE_LABEL, "stamp", stamp_before))
            last_lead = stamp_before
        for line in _split_pairs(whole):
            m = _LINE_RE.match(line)
            if (
                m is not None
                and _CLOCK_IN_LABEL_RE.search(m.group("label"))
                and _MINUTES_RE.match(m.group("value"))
            ):
                stamp = parse_stamp(_AT_HOST_RE.sub("", line.strip()))
                if stamp is not None and stamp[1]:
                    out.append((DATE_LABEL, "stamp", stamp))
                    continue
            if m is None:
                if line.strip():
                    prev = line.strip()
                continue
            label = " ".join(m.group("label").split())
            if label == "Adapter" and prev:  # lm-sensors: the chip's name is the line before
                chip = chip_name(prev)
                continue
            kind = classify(label, m.group("value"))
            if kind is None and chip and (f := _LMSENSORS_F_RE.match(m.group("value"))) is not None:
                kind = "temp", round((_num(f.group(1)) - 32.0) * 5.0 / 9.0, 6)
            if (
                kind is None
                and chip
                and _RAW_TEMP_INPUT_RE.match(label)
                and (b := _BARE_NUM_RE.match(m.group("value")))
            ):
                kind = "temp", _num(b.group(1))
            if kind is None and resolved is not None:
                kind = resolved.get((number, label))
            if bare is not None:
                if kind is not None:
                    bare.stated(label, kind[0], float(kind[1]) if not isinstance(kind[1], tuple) else 0.0)
                elif (b := _BARE_NUM_RE.match(m.group("value"))) is not None:
                    bare.bare(number, label, _num(b.group(1)))
            if kind is not None:
                out.append((f"{chip}/{label}" if chip else label, kind[0], kind[1]))
        # a line that gave nothing, or only its leading stamp (`Date: <stamp>,Time: 67.2`: the
        # rest is no reading), is unread
        only_stamp = stamp_before is not None and all(kind == "stamp" for _, kind, _ in out[before:])
        if unread is not None and (len(out) == before or only_stamp) and data_like(raw):
            unread.add(number, raw)
    return out


def unnamed_numbers(text: str) -> str | None:
    """Why a text of dated ``Label: number`` lines is no log, or None when it is not one.

    ``Date: 20-02-2026 23:45:07,Time: 67.192`` (a logger whose f-string labelled the temperature
    ``Time``) holds a date and a bare number under a label that names no quantity the reader
    knows (no unit, no temperature word).  Reading such a number as a temperature would be a
    guess (``Time: 67.2`` may as well be seconds elapsed), so it is refused, naming the label
    and how to say what it is.  Only when most of the text's first lines are of that one shape.
    """
    lines = [ln for ln in head_lines(text, 400) if ln.strip()]
    hits: Counter[str] = Counter()
    first: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        stamp, rest = _stamped_line(line)
        if stamp is None or (m := _LINE_RE.match(rest)) is None or not _BARE_NUM_RE.match(m.group("value")):
            continue
        label = " ".join(m.group("label").split())
        if classify(label, m.group("value")) is None:
            hits[label] += 1
            first.setdefault(label, number)
    if not hits:
        return None
    label, count = hits.most_common(1)[0]
    if count < 3 or count * 2 < len(lines):
        return None
    bar = next((c for c in "/|#,@" if c not in label), None)
    fix = f"e.g. sed 's{bar}{label}:{bar}Temp:{bar}' FILE > fixed.log" if bar else "e.g. with sed"
    return (
        f"{count} of the first {len(lines)} lines hold a date and a bare number under {label!r} "
        f"(line {first[label]}: {lines[first[label] - 1].strip()[:60]!r}), a label that names no "
        "temperature, clock or load and no unit: not read by guess; if it is the temperature in °C, "
        f"name it so ({fix}) and import that"
    )


def _gives_reading(line: str) -> bool:
    """Whether ``line`` holds a reading, not only a date."""
    return any(kind != "stamp" for _, kind, _ in _readings(line))


def detect(text: str) -> Mark | None:
    """Three or more ``Label: <temperature>`` lines under one label, in a mostly labelled text."""
    head = "\n".join(head_lines(text, 400))
    readings = _readings(head)
    temps = Counter(label for label, kind, _ in readings if kind == "temp")
    if not temps or temps.most_common(1)[0][1] < 3:
        return None
    content = [ln for ln in head.splitlines() if ln.strip() and re.search(r"[^\W_]", ln)]
    labelled = sum(1 for ln in content if _LINE_RE.match(_stamped_line(ln)[1]))
    if labelled * 2 >= len(content):
        label, n = temps.most_common(1)[0]
        return Mark(FMT, f"{n} {label!r} temperature lines")
    return None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def parse_text(text: str, source: str = "<text>", *, interval_s: float | None = None) -> ImportedLog:
    """Group the readings into timestamped samples (see module doc)."""
    unread = _Unread()
    bare = BareRuns()
    readings = _readings(text, unread, bare)
    resolved, unit_notes = bare.resolve()
    if resolved:  # lines that lost their unit midway, read in their own (session 32w)
        unread = _Unread()
        readings = _readings(text, unread, resolved=resolved)
    stamp_labels = Counter(label for label, kind, _ in readings if kind == "stamp")
    stamp_label = stamp_labels.most_common(1)[0][0] if stamp_labels else None
    temp_labels = sorted({label for label, kind, _ in readings if kind == "temp"})
    records: list[dict[str, object]] = []
    cur: dict[str, object] | None = None
    ignored_stamps = 0
    # A log whose first reading is its record date prints each date before its record's readings:
    # a date then never belongs to the record before it, even when that one has no date (a loop
    # that prints the date once every few records; that record was given the next loop's date).
    first = next(
        (kind == "stamp" for label, kind, _ in readings if kind != "stamp" or label == stamp_label), False
    )
    for label, kind, value in readings:
        if kind == "stamp":
            if label != stamp_label:
                ignored_stamps += 1
                continue
            if not first and cur is not None and cur["_stamp"] is None and len(cur) > 1:
                cur["_stamp"] = value  # the stamp printed after its readings
            else:
                cur = {"_stamp": value}
                records.append(cur)
            continue
        if cur is None or label in cur:
            cur = {"_stamp": None}
            records.append(cur)
        cur[label] = (kind, value)
    usable = [r for r in records if any(isinstance(v, tuple) and v[0] == "temp" for v in r.values())]
    if not usable:
        if (why := unnamed_numbers(text)) is not None:
            raise LogFormatError(f"{source}: {why}")
        raise no_samples_error(source, "'Label: value' records with a temperature (48.3'C)")
    if (part := unread.part()) is not None:
        a, b, first_text, others = part
        lines = text.splitlines()
        read = next(
            (n for n in range(1, len(lines) + 1) if not a <= n <= b and _gives_reading(lines[n - 1])), 0
        )
        like = f" like line {read} ({lines[read - 1].strip()[:60]!r})" if read else ""
        del lines
        more = f" (and {others} other unread line(s) in other shapes)" if others else ""
        raise LogFormatError(
            f"{source}: the format changes within the file: lines {a}-{b} ({first_text[:60]!r}){more} "
            f"are no 'Label: value' records{like} and would be dropped; split the file where the "
            f"format changes (e.g. sed -n '{a},{b}p' FILE > part.log, sed '{a},{b}d' FILE > rest.log) "
            "and import each part"
        )
    notes: list[str] = list(unit_notes)
    names = sensor_names(temp_labels)
    if len(temp_labels) == 1:
        notes.append(f"labelled records: temperature {temp_labels[0]!r} taken as the SoC sensor 'cpu'")
    else:
        notes.append("labelled records: temperatures " + ", ".join(f"{k!r} as {v}" for k, v in names.items()))
    lm_sensors = "\nAdapter:" in text
    if any(
        _TEMP_F_RE.match(v) or (lm_sensors and _LMSENSORS_F_RE.match(v))
        for ln in text.splitlines()
        if (m := _LINE_RE.match(ln)) and (v := m.group("value"))
    ):
        notes.append("temperatures printed in °F (sensors -f) converted to °C")
    if any(
        _MILLI_TEMP_RE.match(v)
        for ln in text.splitlines()
        if (m := _LINE_RE.match(_stamped_line(ln)[1])) and (v := m.group("value"))
    ):
        notes.append("temperatures printed in m°C (their unit written out) converted to °C")
    skipped = 0
    times: list[float] | None = None
    stamped = sum(1 for r in usable if r.get("_stamp") is not None) if stamp_label is not None else 0
    if stamp_label is not None and stamped * 2 < len(usable):
        times = _between_dates(usable, notes)
        if times is None:
            # a banner `date` before a loop that stamps none of its records (`date >> $LOG; for i
            # in ...; do vcgencmd measure_temp >> $LOG; top -b -n1 | head >> $LOG; sleep 10;
            # done`): all but the first record were dropped as having no time
            notes.append(
                f"{stamped} date line(s) for {len(usable)} records (most carry no time): "
                "the records read at an even pace, not on the dates"
            )
        stamp_label = None
    if stamp_label is not None:
        clock = DayClock(back=True)  # a step back of up to 6 h is a clock step (clocksteps)
        stamps = [_on_axis(r.get("_stamp"), clock) for r in usable]
        usable, axis, skipped = keep_forward(usable, stamps, notes)
        times, tied = spread_ties(axis)
        notes.append(f"time from {stamp_label!r}")
        if tied:
            notes.append(f"{tied} record(s) shared a timestamp with the previous one: spread evenly")
        if ignored_stamps:
            notes.append(f"{ignored_stamps} other date line(s) (run banners) not used as sample times")
        steps = [b - a for a, b in itertools.pairwise(times) if b > a]
        if steps:
            gap = _GAP_FACTOR * statistics.median(steps)
            pauses = sum(1 for s in steps if s > gap)
            if pauses:
                notes.append(
                    f"{pauses} pause(s) longer than {gap:g} s: separate runs in one file, kept on one axis"
                )
    if times is None:
        times, note = even_axis(len(usable), interval_s, DEFAULT_INTERVAL_S, "record", "the logger's period")
        notes.append(note)
    if skipped:
        notes.append(f"{skipped} record(s) without a usable or forward time skipped")
    masks = [int(v[1]) for r in usable for v in r.values() if isinstance(v, tuple) and v[0] == "mask"]
    if masks:
        notes.append(throttle_note(masks, "record"))
    samples = tuple(_sample(t, r, names) for t, r in zip(rebase(times), usable, strict=True))
    return ImportedLog(FMT, source, None, samples, skipped, tuple(notes))


MIN_PACED_DATES = 3  # two dates are one span: the loop's evenness cannot be seen in it


def _between_dates(usable: list[dict[str, object]], notes: list[str]) -> list[float] | None:
    """The time axis of a loop that prints its date only every few records, or None.

    A loop such as ``while :; do date; for i in 1..10; do vcgencmd measure_temp; sleep 6; done;
    done`` stamps one record in ten: those records were read at an even pace of ``--interval``
    (1 s when not given), the dates set aside.  When at least MIN_PACED_DATES records carry a
    date, the same number of records lie between every two dates (the loop's shape: the part
    after the last date may be shorter, the loop was stopped) and the dates run forward, the
    records between two dates are spread evenly over their span; those after the last date go
    on at the mean pace of the whole.  Anything else (one banner date, dates at uneven counts,
    a date going back) is no such loop and keeps the even pace, as before.
    """
    at = [i for i, r in enumerate(usable) if r.get("_stamp") is not None]
    if len(at) < MIN_PACED_DATES:
        return None
    gaps = {b - a for a, b in itertools.pairwise(at)}
    every = max(gaps)
    tail = len(usable) - at[-1]
    if len(gaps) != 1 or every < 2 or tail > every or at[0] > every:
        return None
    clock = DayClock()
    stamps = [_on_axis(usable[i].get("_stamp"), clock) for i in at]
    if any(t is None for t in stamps):
        return None
    axis = [float(t) for t in stamps if t is not None]
    if any(b <= a for a, b in itertools.pairwise(axis)):
        return None
    pace = (axis[-1] - axis[0]) / (at[-1] - at[0])
    times = [axis[0] - (at[0] - i) * pace for i in range(at[0])]
    for (a, ta), (b, tb) in itertools.pairwise(zip(at, axis, strict=True)):
        times.extend(ta + (tb - ta) * (i - a) / (b - a) for i in range(a, b))
    times.extend(axis[-1] + (i - at[-1]) * pace for i in range(at[-1], len(usable)))
    spans = sorted({round((tb - ta) / every, 6) for ta, tb in itertools.pairwise(axis)})
    each = f"{spans[0]:g}" if len(spans) == 1 else f"{spans[0]:g}-{spans[-1]:g}"
    notes.append(
        f"{len(at)} date line(s) for {len(usable)} records, one every {every} records: the records "
        f"between two dates spread evenly over their span ({each} s a record); {at[0] + tail - 1} "
        f"record(s) before the first or after the last date at the mean pace, {pace:g} s"
    )
    return times


def _on_axis(stamp: object, clock: DayClock) -> float | None:
    """A record's place on the time axis: epoch seconds as they are, times of day via the clock."""
    if not isinstance(stamp, tuple):
        return None
    value, absolute = stamp
    return float(value) if absolute else clock.seconds(float(value))


def sensor_names(temp_labels: list[str]) -> dict[str, str]:
    """Sensor name per temperature label: one label is the SoC ('cpu'); an lm-sensors chip with
    one temperature is named by the chip (``cpu_thermal`` -> ``cpu``), else chip and label."""
    if len(temp_labels) == 1:
        return {temp_labels[0]: "cpu"}
    per_chip = Counter(label.split("/", 1)[0] for label in temp_labels if "/" in label)
    names: dict[str, str] = {}
    # `CPU temperature` and `GPU temperature` (`Current CPU temperature: 58.5, GPU temperature:
    # 58.0`) name the sensors cpu and gpu: the words that say "temperature" are no part of a
    # sensor's name (as `cpu_thermal` is cpu), when what is left is distinct for every label
    bare = {label: _TEMP_WORDS_RE.sub(" ", label).strip() for label in temp_labels if "/" not in label}
    if bare and all(bare.values()) and len({sensor_name(v) for v in bare.values()}) == len(bare):
        for label, rest in bare.items():
            names[label] = sensor_name(rest).replace(" ", "_")
    for label in temp_labels:
        if label in names:
            continue
        chip = label.rpartition("/")[0]
        name = sensor_name(chip) if chip and per_chip[chip] == 1 else sensor_name(label.replace("/", "_"))
        names[label] = name.replace(" ", "_")
    return names


def _sample(t: float, record: dict[str, object], names: dict[str, str]) -> ImportedSample:
    temps: dict[str, float] = {}
    freqs: dict[str, int] = {}
    loads: dict[str, float] = {}
    power: float | None = None
    for label, item in record.items():
        if not isinstance(item, tuple) or label == "_stamp":
            continue
        kind, value = item
        if kind == "temp":
            temps[names[label]] = float(value)
        elif kind == "clock":
            name = "gpu" if "gpu" in label.lower() else "cpu"
            freqs.setdefault(name, round(float(value)))
        elif kind == "load":
            loads.setdefault("gpu" if "gpu" in label.lower() else "cpu", fraction(float(value)))
        elif kind == "power" and power is None:
            power = float(value)
    return ImportedSample(t_s=t, temps_c=temps, freqs_hz=freqs, loads=loads, power_w=power, rails_w={})
