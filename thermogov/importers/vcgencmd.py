"""Raw ``vcgencmd`` loops: ``temp=48.3'C``, ``frequency(48)=1500345728``, ``throttled=0x50005``.

The quickest Pi thermal log is a shell loop around the firmware tool (Raspberry Pi
documentation, "vcgencmd": ``measure_temp`` prints °C, ``measure_clock arm`` prints Hz,
``get_throttled`` a bit mask).  Timestamps come in three ways: none (one reading per
``sleep``), on the same line (``12:00:01 temp=48.3'C``, ``1700000000 temp=...``), or from a
separate ``date`` line in the board's locale.  A sample starts when a quantity it already has
appears again or a new stamp arrives, so any order of commands in the loop works.

A Pi 5 loop may add ``vcgencmd pmic_read_adc`` (its rails' sum kept as the rail ``PMIC``) and
``vcgencmd measure_temp pmic``, whose ``temp=`` looks like the SoC's: several temperatures beside
each clock reading are several sensors, named by the word the loop printed before each, or the
log is refused (``_sensors_per_clock``).
"""

from __future__ import annotations

import re

from thermogov.importers.cells import head_lines
from thermogov.importers.common import (
    _NO_VALUES,
    DayClock,
    ImportedLog,
    Mark,
    even_axis,
    keep_forward,
    no_samples_error,
    rebase,
    sensor_name,
    throttle_note,
)
from thermogov.importers.samplestore import ColumnBuilder
from thermogov.importers.stamps import parse_stamp
from thermogov.importers.table import spread_ties
from thermogov.interfaces import LogFormatError

FMT = "vcgencmd"
DEFAULT_INTERVAL_S = 1.0

_TEMP_RE = re.compile(r"temp=(-?\d+(?:\.\d+)?)\s*['°]?C")
_FREQ_RE = re.compile(r"frequency\((\d+)\)=(\d+)")
_THR_RE = re.compile(r"throttled=(0x[0-9a-fA-F]+)")
_VALUE_RE = re.compile(r"temp=|frequency\(\d+\)=|throttled=|volt=|(?:current|volt)\(\d+\)=")
# A Raspberry Pi 5 ``vcgencmd pmic_read_adc`` dump: one line per metered PMIC rail, its current
# and its voltage on separate lines paired by name (``VDD_CORE_A current(7)=0.75012000A``,
# ``VDD_CORE_V volt(15)=0.72000000V``; the index in brackets is the ADC channel, not the rail).
# ``EXT5V_V`` and ``BATT_V`` have no current: they are no rail's draw.
_PMIC_RE = re.compile(r"^\s*([A-Za-z0-9_]+)_([AV])\s+(?:current|volt)\(\d+\)=(-?\d+(?:\.\d+)?)[AV]\s*$")
# The title line of a `watch` capture: "Every 2.0s: vcgencmd measure_temp    host: <date>".
_WATCH_RE = re.compile(r"^Every \d+(?:\.\d+)?s: .*\s\S+: (.+)$")


def detect(text: str) -> Mark | None:
    """Two ``temp=...'C`` readings and at least every second line of the head a reading.

    Counting every vcgencmd reading, not only temperatures: the common loop ``date;
    vcgencmd measure_temp; vcgencmd measure_clock arm; vcgencmd get_throttled`` has one
    temperature in four lines, and was taken for a ``Label: value`` log that drops the clock."""
    lines = [ln for ln in head_lines(text, 60) if ln.strip()]
    temps = sum(1 for ln in lines if _TEMP_RE.search(ln))
    readings = sum(1 for ln in lines if _VALUE_RE.search(ln))
    if temps >= 2 and readings * 2 >= len(lines):
        return Mark(FMT, f"{readings} readings ({temps} temperatures) in {len(lines)} head lines")
    return None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def _stamp(text: str) -> tuple[float, bool] | None:
    t = text.strip().strip(",;:|[]()").strip()
    if not t:
        return None
    if re.fullmatch(r"\d{9,13}(?:\.\d+)?", t):
        v = float(t)
        return (v / 1000.0 if v >= 1e11 else v), True
    return parse_stamp(t)


def _stamp_before(prefix: str) -> tuple[float, bool] | None:
    """The stamp that starts the text before a reading, without the label words after it
    (``[12:00:01] CPU temp=``, ``2024-01-02 12:00:01 SoC temp=``)."""
    words = prefix.split()
    for k in range(len(words), 0, -1):
        if (st := _stamp(" ".join(words[:k]))) is not None:
            return st
    return None


def parse_text(text: str, source: str = "<text>", *, interval_s: float | None = None) -> ImportedLog:
    """Group the readings into samples on the log's time axis (see module doc)."""
    clock = DayClock(back=True)  # a step back of up to 6 h is a clock step (clocksteps), not unplaceable
    samples: list[dict[str, object]] = []
    cur: dict[str, object] | None = None
    stamp: float | None = None
    stamp_new = False
    skipped = 0
    ignored = 0
    arm_id: str | None = None
    # runs of consecutive temperature-only lines: (the sample each went into, its label word)
    temp_runs: list[list[tuple[dict[str, object], str]]] = []
    prev_temp = False

    def start() -> dict[str, object]:
        nonlocal stamp_new
        # its first line (the `date` line before its readings): a clock step's note names it
        s: dict[str, object] = {"t": stamp, "_line": stamp_line if stamp_new else no}
        samples.append(s)
        stamp_new = False
        return s

    def to_axis(st: tuple[float, bool]) -> float | None:
        return st[0] if st[1] else clock.seconds(st[0])

    no = stamp_line = 0
    for no, line in enumerate(text.splitlines(), 1):  # `no` is read by start()
        if not line.strip():
            continue
        m = _VALUE_RE.search(line)
        if m is None:
            w = _WATCH_RE.match(line.strip())
            st = _stamp(w.group(1) if w else line)
            if st is None:
                skipped += 1
            else:
                stamp, stamp_new, stamp_line = to_axis(st), True, no
                prev_temp = False
            continue
        if (pm := _PMIC_RE.match(line)) is not None:
            key = "pmic_" + pm.group(2)
            if cur is None or stamp_new or pm.group(1) in cur.get(key, {}):  # type: ignore[operator]
                cur = start()
            cur.setdefault(key, {})[pm.group(1)] = float(pm.group(3))  # type: ignore[index]
            prev_temp = False
            continue
        st = _stamp_before(line[: m.start()]) if m.start() > 0 else None
        if st is not None:
            stamp, stamp_new = to_axis(st), True
        found = False
        if (tm := _TEMP_RE.search(line)) is not None:
            if cur is None or "temp" in cur or stamp_new:
                cur = start()
            cur["temp"] = float(tm.group(1))
            found = True
            if not (prev_temp and st is None):
                temp_runs.append([])
            temp_runs[-1].append((cur, _label_before(line[: tm.start()])))
        prev_temp = tm is not None and _FREQ_RE.search(line) is None and _THR_RE.search(line) is None
        if (fm := _FREQ_RE.search(line)) is not None:  # one line may carry several readings
            arm_id = arm_id or fm.group(1)
            if fm.group(1) == arm_id:
                if cur is None or "freq" in cur or stamp_new:
                    cur = start()
                cur["freq"] = int(fm.group(2))
                found = True
        if (hm := _THR_RE.search(line)) is not None:
            if cur is None or "thr" in cur or stamp_new:
                cur = start()
            cur["thr"] = int(hm.group(1), 16)
            found = True
        if not found:
            ignored += 1
    clocks = sum(1 for s in samples if "freq" in s)
    if (names := _sensors_per_clock(temp_runs, clocks, source)) is not None:
        samples = _merge_runs(samples, temp_runs, names)
        notes_sensors = [
            f"several temp= readings per clock reading: sensors {', '.join(names)} (by their labels)"
        ]
    else:
        notes_sensors = []
    usable = [s for s in samples if "temp" in s or "freq" in s]
    if not usable:
        raise no_samples_error(source, "vcgencmd readings (temp=..'C)")
    notes: list[str] = [
        "vcgencmd loop: temp (°C)" + (", arm clock (Hz)" if any("freq" in s for s in usable) else ""),
        *notes_sensors,
    ]
    stamped = [s for s in usable if s["t"] is not None]
    if stamped and len(stamped) < len(usable):
        notes.append(f"{len(usable) - len(stamped)} reading(s) before the first timestamp skipped")
        skipped += len(usable) - len(stamped)
        usable = stamped
    if stamped:
        stamps: list[float | None] = [float(s["t"]) for s in usable]  # type: ignore[arg-type]
        lines = [int(s["_line"]) for s in usable]  # type: ignore[call-overload]
        usable, kept, back = keep_forward(usable, stamps, notes, lines)
        skipped += back
        times, tied = spread_ties(kept)
        if tied:
            notes.append(
                f"{tied} reading(s) shared a timestamp with the previous one: spread evenly up to the next stamp"
            )
    else:
        times, note = even_axis(len(usable), interval_s, DEFAULT_INTERVAL_S, "reading", "the loop's sleep")
        notes.append(note)
    if ignored:
        notes.append(f"{ignored} other vcgencmd reading(s) (volt=, other clocks) not imported")
    pmic, partial = _pmic_sums(usable)
    if any(w is not None for w in pmic):
        notes.append(
            "pmic_read_adc dumps: the sum of the PMIC's metered rails (V x A, paired by name) kept as the rail "
            "PMIC, not the board's power (the 5 V peripherals are not metered)"
        )
    if partial:
        notes.append(
            f"{partial} pmic_read_adc dump(s) without a usable current and voltage for every rail the others "
            "meter (a line cut, garbled or nan, a voltage <= 0): no PMIC value there"
        )
    thr = [int(s["thr"]) for s in usable if "thr" in s]  # type: ignore[call-overload]
    if thr:
        notes.append(throttle_note(thr, "reading"))
    out = ColumnBuilder()  # straight into columns: no sample tuple beside the readings
    for s, pmic_w in zip(usable, pmic, strict=True):
        freqs = {"cpu": int(s["freq"])} if "freq" in s else {}  # type: ignore[call-overload]
        rails = _NO_VALUES if pmic_w is None else {"PMIC": pmic_w}
        out.append(0.0, (_temps(s), freqs, _NO_VALUES, rails, _NO_VALUES), None)
    return ImportedLog(FMT, source, None, out.finish(rebase(times)), skipped, tuple(notes))


def _pmic_rails(sample: dict[str, object]) -> dict[str, float]:
    """Rail -> V x A (W) for the rails of one ``pmic_read_adc`` dump that carry a current and a
    positive voltage (a supply rail at <= 0 V is no reading)."""
    amps: dict[str, float] = sample.get("pmic_A") or {}  # type: ignore[assignment]
    volts: dict[str, float] = sample.get("pmic_V") or {}  # type: ignore[assignment]
    return {r: a * volts[r] for r, a in amps.items() if r in volts and volts[r] > 0.0}


def _pmic_sums(samples: list[dict[str, object]]) -> tuple[list[float | None], int]:
    """Per sample the sum of its dump's rails in W (None without a dump), and how many dumps
    were left without one because they lacked a rail that other dumps of the log meter.

    The same quantity as sbc-bench's ``PMIC`` column (``sbcbench.py``): the PMIC's own rails.
    A sum over fewer rails is another quantity (a dump cut by the loop, one garbled line): it
    read as a fall in power, so such a dump gives no value rather than a smaller one.
    """
    per = [_pmic_rails(s) if ("pmic_A" in s or "pmic_V" in s) else None for s in samples]
    every = set().union(*(r for r in per if r))
    sums: list[float | None] = []
    partial = 0
    for rails in per:
        if rails is not None and rails and set(rails) == every:
            sums.append(round(sum(rails.values()), 6))
        else:
            partial += rails is not None
            sums.append(None)
    return sums, partial


def _temps(sample: dict[str, object]) -> dict[str, float]:
    if "temps" in sample:
        return dict(sample["temps"])  # type: ignore[call-overload]
    return {"cpu": float(sample["temp"])} if "temp" in sample else {}  # type: ignore[arg-type]


def _label_before(prefix: str) -> str:
    """The word just before ``temp=`` (``cpu temp=``, ``PMIC: temp=``) as a sensor name, or ""
    when it is part of a stamp or absent."""
    words = prefix.split()
    if not words:
        return ""
    word = words[-1].strip(":=[]()|,;").lower()
    return sensor_name(word) if re.fullmatch(r"[a-z][a-z0-9_-]*", word) else ""


def _sensors_per_clock(
    runs: list[list[tuple[dict[str, object], str]]], clocks: int, source: str
) -> list[str] | None:
    """Sensor names when every clock reading comes with a run of several temperatures, else None.

    ``vcgencmd measure_temp`` and ``vcgencmd measure_temp pmic`` (Pi 5) print the same
    ``temp=..'C`` with no sensor name, so a loop running both writes two temperatures per clock
    reading.  Read as successive samples, the PMIC's reading became every second SoC reading.
    A loop that reads the clock each time is one sample per clock, so several temperatures beside
    one clock are several sensors: named by the word the loop printed before each (``cpu
    temp=``), the same in every run; without such words which is which cannot be told, and the
    file is refused (LogFormatError) rather than a sensor guessed by position.
    """
    if clocks < 2 or len(runs) < 2:
        return None
    full = runs[:-1] if len(runs[-1]) < len(runs[0]) else runs  # the last record may be cut
    sizes = {len(r) for r in full}
    if min(sizes) < 2 or len(sizes) != 1 or abs(len(runs) - clocks) > 1:
        return None
    labels = {tuple(label for _, label in r) for r in full}
    names = next(iter(labels))
    if len(labels) == 1 and all(names) and len(set(names)) == len(names):
        return list(names)
    raise LogFormatError(
        f"{source}: every clock reading comes with {len(names)} temp= readings in a row (measure_temp of "
        "several sensors, e.g. measure_temp pmic), which vcgencmd prints without a name; print a name "
        'before each in the loop (echo "cpu $(vcgencmd measure_temp)") or log one sensor'
    )


def _merge_runs(
    samples: list[dict[str, object]], runs: list[list[tuple[dict[str, object], str]]], names: list[str]
) -> list[dict[str, object]]:
    """One sample per run of named temperatures: its readings by sensor, with the clock, mask and
    PMIC readings and the time of the samples the run was split into."""
    merged: set[int] = set()
    for run in runs:
        first = run[0][0]
        temps = {label: float(part["temp"]) for part, label in run if label in names}  # type: ignore[arg-type]
        for part, _ in run[1:]:
            for key, value in part.items():
                if key not in ("temp", "t") and key not in first:
                    first[key] = value
            merged.add(id(part))
        first["temps"] = temps
    return [s for s in samples if id(s) not in merged]
