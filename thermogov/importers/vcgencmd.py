"""Raw ``vcgencmd`` loops: ``temp=48.3'C``, ``frequency(48)=1500345728``, ``throttled=0x50005``.

The quickest Pi thermal log is a shell loop around the firmware tool (Raspberry Pi
documentation, "vcgencmd": ``measure_temp`` prints °C, ``measure_clock arm`` prints Hz,
``get_throttled`` a bit mask).  Timestamps come in three ways: none (one reading per
``sleep``), on the same line (``12:00:01 temp=48.3'C``, ``1700000000 temp=...``), or from a
separate ``date`` line in the board's locale.  A sample starts when a quantity it already has
appears again or a new stamp arrives, so any order of commands in the loop works.
"""

from __future__ import annotations

import re

from thermogov.importers.common import (
    DayClock,
    ImportedLog,
    ImportedSample,
    even_axis,
    keep_forward,
    no_samples_error,
    rebase,
    throttle_note,
)
from thermogov.importers.stamps import parse_stamp
from thermogov.importers.table import spread_ties

FMT = "vcgencmd"
DEFAULT_INTERVAL_S = 1.0

_TEMP_RE = re.compile(r"temp=(-?\d+(?:\.\d+)?)\s*['°]?C")
_FREQ_RE = re.compile(r"frequency\((\d+)\)=(\d+)")
_THR_RE = re.compile(r"throttled=(0x[0-9a-fA-F]+)")
_VALUE_RE = re.compile(r"temp=|frequency\(\d+\)=|throttled=|volt=")
# The title line of a `watch` capture: "Every 2.0s: vcgencmd measure_temp    host: <date>".
_WATCH_RE = re.compile(r"^Every \d+(?:\.\d+)?s: .*\s\S+: (.+)$")


def looks_like(text: str) -> bool:
    """Two ``temp=...'C`` readings and at least every second line of the head a reading.

    Counting every vcgencmd reading, not only temperatures: the common loop ``date;
    vcgencmd measure_temp; vcgencmd measure_clock arm; vcgencmd get_throttled`` has one
    temperature in four lines, and was taken for a ``Label: value`` log that drops the clock."""
    lines = [ln for ln in text.splitlines()[:60] if ln.strip()]
    temps = sum(1 for ln in lines if _TEMP_RE.search(ln))
    readings = sum(1 for ln in lines if _VALUE_RE.search(ln))
    return temps >= 2 and readings * 2 >= len(lines)


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
    clock = DayClock()
    samples: list[dict[str, object]] = []
    cur: dict[str, object] | None = None
    stamp: float | None = None
    stamp_new = False
    skipped = 0
    ignored = 0
    arm_id: str | None = None

    def start() -> dict[str, object]:
        nonlocal stamp_new
        s: dict[str, object] = {"t": stamp}
        samples.append(s)
        stamp_new = False
        return s

    def to_axis(st: tuple[float, bool]) -> float | None:
        return st[0] if st[1] else clock.seconds(st[0])

    for line in text.splitlines():
        if not line.strip():
            continue
        m = _VALUE_RE.search(line)
        if m is None:
            w = _WATCH_RE.match(line.strip())
            st = _stamp(w.group(1) if w else line)
            if st is None:
                skipped += 1
            else:
                stamp, stamp_new = to_axis(st), True
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
    usable = [s for s in samples if "temp" in s or "freq" in s]
    if not usable:
        raise no_samples_error(source, "vcgencmd readings (temp=..'C)")
    notes: list[str] = [
        "vcgencmd loop: temp (°C)" + (", arm clock (Hz)" if any("freq" in s for s in usable) else "")
    ]
    stamped = [s for s in usable if s["t"] is not None]
    if stamped and len(stamped) < len(usable):
        notes.append(f"{len(usable) - len(stamped)} reading(s) before the first timestamp skipped")
        skipped += len(usable) - len(stamped)
        usable = stamped
    if stamped:
        stamps: list[float | None] = [float(s["t"]) for s in usable]  # type: ignore[arg-type]
        usable, kept, back = keep_forward(usable, stamps)
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
    thr = [int(s["thr"]) for s in usable if "thr" in s]  # type: ignore[call-overload]
    if thr:
        notes.append(throttle_note(thr, "reading"))
    out = tuple(
        ImportedSample(
            t_s=t,
            temps_c={"cpu": float(s["temp"])} if "temp" in s else {},  # type: ignore[arg-type]
            freqs_hz={"cpu": int(s["freq"])} if "freq" in s else {},  # type: ignore[call-overload]
            loads={},
            power_w=None,
            rails_w={},
        )
        for t, s in zip(rebase(times), usable, strict=True)
    )
    return ImportedLog(FMT, source, None, out, skipped, tuple(notes))
