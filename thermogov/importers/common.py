"""The one in-memory form every board-log importer produces, plus the helpers they share.

Board logs come in many dialects (tegrastats, Raspberry Pi CSVs, stressberry YAML, sbc-bench
reports) but calibration and replay only need timestamped temperatures, clocks, loads and
power.  Normalising units here (°C, Hz, 0..1, W, seconds from the first sample) means no
consumer ever has to know which tool wrote the file.
"""

from __future__ import annotations

import codecs
import errno
import itertools
import math
import os
import re
import stat
import statistics
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, overload

if TYPE_CHECKING:
    import numpy as np

from thermogov.importers.compressed import decompressed
from thermogov.interfaces import LogFormatError

# Rails that measure the whole board's input, best first.  AGX Orin/Xavier have none of these
# (VIN_SYS_5V0 there feeds only the I/O 5 V loads), so their power_w is the sum of all rails.
BOARD_INPUT_RAILS: tuple[str, ...] = ("VDD_IN", "POM_5V_IN", "VIN")

_SENSOR_ALIASES = {"tboard": "board"}
T = TypeVar("T")


def sensor_name(raw: str) -> str:
    """Lower-case zone name without the ``-thermal``/``-therm`` suffix, so formats agree."""
    name = raw.strip().lower()
    for suffix in ("-thermal", "_thermal", "-therm"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return _SENSOR_ALIASES.get(name, name)


@dataclass(frozen=True, slots=True)
class ImportedSample:
    """One timestamped observation row of the log.

    Slotted: a big log holds one per row (a week of 1 s rows is 600 000), and without slots each
    carries an attribute dict besides its own five (docs/importing.md, "Session 22b").
    """

    t_s: float  # seconds from the first sample (0.0 at the first)
    temps_c: dict[str, float]  # lower-case sensor name -> °C
    freqs_hz: dict[str, int]  # "cpu" = max over online cores, "gpu", "emc", ...
    loads: dict[str, float]  # utilisation 0..1; "cpu" = mean over online cores
    power_w: float | None  # whole-board input power, if the log has it
    rails_w: dict[str, float]  # every power rail by its own name, in W
    # The core voltage the log records per domain, in V ("cpu": sbc-bench's VCore), where it has one
    volts_v: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Mark:
    """What a format's detector recognised in a log (its ``detect``), handed to ``parse_log``.

    Detectors return what they found, not a bool (session 28m): the table detector hands over
    the :class:`~thermogov.importers.table.Table` it read; the others, whose readers start from
    the text, a mark naming the evidence (``"title line"``, ``"GUI CSV export"``).
    """

    fmt: str
    evidence: str


@dataclass(frozen=True)
class ImportedLog:
    """A whole parsed log: samples in time order plus what the parser had to assume."""

    fmt: str
    source: str
    board_hint: str | None
    # in time order; a reader may give a tuple, every log out of parse_log holds columns
    # (importers/samplestore.py), which read as a sequence of ImportedSample all the same
    samples: Sequence[ImportedSample]
    skipped_lines: int
    notes: tuple[str, ...]
    model: str = ""  # the product the log names itself (sbc-bench's title), "" when it does not
    fan_rpm: tuple[float, ...] = ()  # fan tachometer readings the log reports (sbc-bench's sensor blocks)
    # What the board did before the log: seconds since boot and the kernel's 1/5/15-minute load
    # averages at the log's start (sbc-bench's `Uptime:` line), when the log says.
    uptime_s: float | None = None
    load_average: tuple[float, float, float] | None = None
    # True where a sample without a load marks the moment a new load began, so that the next
    # sample's load holds from it (sbc-bench: the first monitor line of a benchmark section, printed
    # as the benchmark starts, whose since-boot utilisation the importer drops).
    load_starts_at_gaps: bool = False
    # The Raspberry Pi firmware's clock and voltage settings in force during the log (config.txt
    # "Overclocking options": arm_freq, over_voltage, over_voltage_delta ...), as integers, when the
    # log prints them (sbc-bench's "Actual ThreadX settings"); empty otherwise.
    firmware: Mapping[str, int] = field(default_factory=dict)
    # Hardware evidence that the board has a fan ("" when the log shows none), and the switch-on
    # temperature and hysteresis (°C) of a one-step fan when the log declares them.
    fan_evidence: str = ""
    fan_switch_c: tuple[float, float] | None = None
    # The hardware-monitor chips the log lists before its run (sbc-bench's first "Hardware sensors"
    # block, lm-sensors chip names such as ``pwmfan-isa-0000``); empty when it lists none.  A list
    # without a fan chip is evidence of *no* fan on a header whose fan shows as one (the Pi 5's).
    sensor_chips: tuple[str, ...] = ()
    # A temperature the log reports before its first sample, kept beside the samples: (seconds before
    # the first sample, °C on the samples' sensor, mean CPU load 0..1 until the first sample or None when
    # unknown).  sbc-bench's `Uptime:` line; not a sample, so the calibration does not fit it
    # (docs/calibration.md, "the Uptime line's reading").
    before_run_reading: tuple[float, float, float | None] | None = None
    # The benchmarks the log ran, in order: (name, time of its first sample, s on the samples' axis)
    # (sbc-bench's monitor sections).  What runs matters beside the utilisation: at the same busy
    # cores a SIMD miner heats more than 7-zip (sim/calibration/activity.py); empty when unnamed.
    phases: tuple[tuple[str, float], ...] = ()
    # The user's own free-text name for the run's setup (stressberry's ``name``: "Ice Tower (fan off)",
    # "Armor Case"), "" when the format has none.  Not a product name: it often says the housing
    # (sim/calibration/enclosure.py, ``housing_of_setup``).
    setup: str = ""

    @property
    def duration_s(self) -> float:
        """Span of the time axis; handy for sanity checks against the documented run length."""
        return self.samples[-1].t_s - self.samples[0].t_s if self.samples else 0.0


# The largest log read (bytes).  A board log is kilobytes to a few hundred megabytes (a week of
# 1 s tegrastats lines is ~150 MB); the bound keeps `/dev/zero`, a runaway logger's file or a
# wrong path to a disk image from filling memory before the parser could refuse it.
MAX_LOG_BYTES = 1 << 30


def _read_bounded(path: str | Path) -> bytes:
    """The bytes of a regular file or a pipe, at most ``MAX_LOG_BYTES`` of them.

    Opened without blocking, so a named FIFO that no program writes to reads as empty instead of
    hanging the command; a pipe that has a writer (``thermogov import <(ssh pi cat log)``) is
    then read to its end as usual.  Devices and sockets are refused: they are no log.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            raise LogFormatError(f"{path}: not a regular file (a device or socket); pass the log file itself")
        os.set_blocking(fd, True)
        too_big = f"{path}: larger than {MAX_LOG_BYTES >> 20} MiB; split the log (e.g. with split -l) and import the parts"
        # A regular file is read in one call of its size plus one byte (session 26m): its bytes
        # are then held once, not as chunks plus their joined copy.  A pipe, or a file that grew
        # meanwhile, goes on in chunks.
        regular = os.fstat(fd).st_size if stat.S_ISREG(mode) else -1
        if regular > MAX_LOG_BYTES:
            raise LogFormatError(too_big)
        first = os.read(fd, regular + 1 if regular >= 0 else 1 << 20)
        chunks: list[bytes] = [first]
        size = len(first)
        while first and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_LOG_BYTES:
                raise LogFormatError(too_big)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | Path) -> str:
    """Read a log as text; every failure becomes the one-line LogFormatError the CLI prints."""
    return read_log(path)[0]


def read_log(path: str | Path) -> tuple[str, list[str]]:
    """(text, notes) of a log; every failure becomes the one-line LogFormatError the CLI prints.

    Undecodable bytes are replaced rather than fatal: a log copied off a board with one
    corrupted byte should still import, and the damaged line is then skipped as malformed.
    A gzip/bzip2/xz log (logrotate's ``syslog.2.gz``) is decompressed first, and the note says so.
    """
    try:
        data = _read_bounded(path)
    except IsADirectoryError:
        raise LogFormatError(f"{path}: is a directory, not a log file; pass the log file itself") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise LogFormatError(f"{path}: cannot read ({reason}); check the path and permissions") from None
    data, compression = decompressed(data, str(path), MAX_LOG_BYTES)
    if not data and _named_pipe(path):
        raise LogFormatError(
            f"{path}: is a named pipe that no program writes to; pass the log file itself, "
            "or start the pipe's writer first"
        )
    if not data or data.isspace():  # `not data.strip()` without a copy of the bytes
        what = "file is empty" if compression is None else f"{compression} log is empty once decompressed"
        raise LogFormatError(f"{path}: {what}; check the file or pass another log")
    notes = [f"{compression}-compressed: decompressed before reading"] if compression else []
    return _decoded(data), notes


def _decoded(data: bytes) -> str:
    """``data.decode(_encoding(data), errors="replace")``, decoding a UTF-8 log once: the check
    that it is UTF-8 is the decode itself, and its text is kept (session 26m)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or _utf16_unmarked(data):
        return data.decode(_encoding(data), errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    return data.decode(_encoding(data), errors="replace")


def _utf16_unmarked(data: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` when a NUL in nearly every second byte says so, else None."""
    head = data[:4096]
    odd, even = head[1::2], head[0::2]
    if len(head) >= 16:
        if odd.count(0) >= 0.9 * len(odd) and even.count(0) <= 0.1 * len(even):
            return "utf-16-le"
        if even.count(0) >= 0.9 * len(even) and odd.count(0) <= 0.1 * len(odd):
            return "utf-16-be"
    return None


def _named_pipe(path: str | Path) -> bool:
    """A FIFO made with ``mkfifo``, not the shell's ``<(...)`` under ``/dev/fd``: read empty, it
    had no writer, which "file is empty" misstated (session 23)."""
    if str(path).startswith(("/dev/fd/", "/proc/self/fd/", "/dev/stdin")):
        return False
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _encoding(data: bytes) -> str:
    """UTF-16 or Latin-1 when the bytes say so, else UTF-8.

    Windows PowerShell 5.1 writes UTF-16LE with a BOM for ``>`` and ``Out-File`` (Microsoft's
    "about_Character_Encoding"), so a log saved through it is text, not binary: a BOM decides,
    and without one a NUL in nearly every second byte of an ASCII-range text does.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    unmarked = _utf16_unmarked(data)
    if unmarked:
        return unmarked
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    if _LATIN1_TEXT.fullmatch(data) and not _UTF8_MULTIBYTE.search(data):
        return "latin-1"  # `45°C` from an ISO-8859-1 locale: \xb0 alone is no UTF-8
    return "utf-8"


# Text of an ISO-8859-1/-15 locale (older Raspbian, European logger scripts): printable ASCII,
# tab/CR/LF/ESC and the Latin-1 letters and signs 0xA0-0xFF, with no UTF-8 multi-byte sequence
# (a UTF-8 log with one corrupted byte keeps UTF-8; random bytes hold C0/C1 controls and stay
# binary for textclean to refuse).
_LATIN1_TEXT = re.compile(rb"[\t\n\r\x1b\x20-\x7e\xa0-\xff]*")
_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]")


def no_samples_error(source: str, what: str) -> LogFormatError:
    """The error for a file that was readable but held nothing of the requested format."""
    return LogFormatError(f"{source}: no {what} found; pass --format explicitly or check the file")


def board_power(rails_w: Mapping[str, float], notes: set[str]) -> float | None:
    """Whole-board power: a board-input rail if the log has one, else the sum of all rails.

    The sum is the best available estimate on boards without an input monitor (AGX Xavier,
    AGX Orin); the note records that it is a sum so nobody mistakes it for a wall reading.
    """
    for name in BOARD_INPUT_RAILS:
        if name in rails_w:
            return rails_w[name]
    if not rails_w:
        return None
    notes.add(
        "no board-input rail (VDD_IN/POM_5V_IN/VIN): power_w is the sum of " + "+".join(sorted(rails_w))
    )
    return round(sum(rails_w.values()), 6)


def rail_sample(
    t_s: float,
    temps_c: dict[str, float],
    freqs_hz: dict[str, int],
    loads: dict[str, float],
    rails_w: dict[str, float],
    notes: set[str],
    power_w: float | None = None,
) -> ImportedSample:
    """A sample whose board power is the logged total where the log has one, else its rails'
    (:func:`board_power`, which notes a sum in ``notes``)."""
    power = power_w if power_w is not None else board_power(rails_w, notes)
    return ImportedSample(t_s, temps_c, freqs_hz, loads, power, rails_w or _NO_VALUES, _NO_VALUES)


# One empty dict shared by every sample without rails or voltages (a CSV table's rows, most
# tegrastats lines' voltages): 128 B per row less, a fifth of a table row's samples.  Samples are
# frozen and nothing writes into their dicts; this one must stay empty.
_NO_VALUES: dict[str, float] = {}


class DayClock:
    """Turn time-of-day stamps (HH:MM:SS) into a monotonic axis across midnight.

    Each stamp is placed at the smallest forward step from the previous one (mod 24 h).  A
    "step" of more than 12 h is really a backwards jump (clock step, out-of-order line) and
    cannot be placed, so it is reported as ``None``; a time-of-day log cannot express real
    gaps that long anyway.  With ``back``, a stamp at most ``BACK_S`` (6 h) behind the previous
    one is placed that far *behind* it instead (and the axis not moved on), so that a clock
    stepped back by an hour (DST ending, NTP) shows as the step it is and
    :mod:`~thermogov.importers.clocksteps` can mend it; the reader then drops whatever is still
    behind, as it did the unplaceable stamps.  Further back, half a day either way cannot be told
    from a damaged stamp, so it stays unplaceable.
    """

    BACK_S = 6 * 3600.0

    def __init__(self, *, back: bool = False) -> None:
        self._prev: float | None = None
        self._back = back

    def seconds(self, tod_s: float) -> float | None:
        if self._prev is None:
            self._prev = tod_s
            return tod_s
        delta = (tod_s - self._prev) % 86400.0
        if delta > 12 * 3600:
            behind = 86400.0 - delta
            return self._prev - behind if self._back and behind <= self.BACK_S else None
        self._prev += delta
        return self._prev


def parse_hms(text: str) -> float | None:
    """Seconds since midnight of ``HH:MM:SS``; None for anything else (never raises)."""
    parts = text.split(":")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    h, m, s = (int(p) for p in parts)
    if h > 23 or m > 59 or s > 60:
        return None
    return float(h * 3600 + m * 60 + s)


def note_timing(
    notes: set[str],
    *,
    stamped: bool,
    interval_s: float | None,
    default_s: float,
    default_how: str,
    backwards: int,
    skipped_what: str,
) -> None:
    """The notes of a log read at a fixed interval: the interval assumed when nothing carried a
    time (given, or the tool's default), and how many records went back in time and were skipped.
    """
    if not stamped:
        step = interval_s or default_s
        how = "given" if interval_s else default_how
        notes.add(f"no timestamps: assumed {step:g} s interval ({how})")
    if backwards:
        notes.add(f"{backwards} {skipped_what} skipped")


# The longest span a log's rows may have around its median time: a year (366 days).  No logger in
# docs/importing.md writes longer runs into one file; a stamp further away is damage (1e300, a
# year's digits lost, 10**400 read as inf).
MAX_SPAN_S = 366 * 86400.0


def as_floats(times: array) -> np.ndarray:
    """A numpy view of an ``array('d')`` time axis (no copy; NaN is a row without a time).

    Session 28n: a table's time axis is held as ``array('d')``, 8 B a row, where a list of
    ``float | None`` took 32 (a pointer and a float object); numpy reads it in place.
    """
    import numpy as np

    return np.frombuffer(times, dtype=np.float64) if len(times) else np.empty(0)


def median_low_of(values: np.ndarray) -> float:
    """``statistics.median_low`` of a non-empty float array (its own sorted copy, 8 B a value)."""
    import numpy as np

    k = (len(values) - 1) // 2
    return float(np.partition(values, k)[k])


def median_of(values: np.ndarray) -> float:
    """``statistics.median`` of a non-empty float array: the middle value, or the mean of the two
    middle ones computed as statistics does (``(a + b) / 2``), from one sorted copy."""
    import numpy as np

    n = len(values)
    i = n // 2
    if n % 2:
        return float(np.partition(values, i)[i])
    part = np.partition(values, (i - 1, i))
    return (float(part[i - 1]) + float(part[i])) / 2


@overload
def plausible_times(times: array) -> array: ...
@overload
def plausible_times(times: Sequence[float | None]) -> list[float | None]: ...
def plausible_times(times: Sequence[float | None] | array) -> list[float | None] | array:
    """``times`` with every NaN, infinite or garbled time (more than ``MAX_SPAN_S`` from the
    median of the finite ones) replaced by None; the median is robust to a few garbled rows.

    An ``array('d')`` (NaN for no time) gives a new ``array('d')`` with NaN in their place.
    """
    if isinstance(times, array):
        return _plausible_array(times)
    finite_t = [t for t in times if t is not None and math.isfinite(t)]
    if not finite_t:
        return [None] * len(times)
    mid = statistics.median_low(finite_t)
    return [t if t is not None and math.isfinite(t) and abs(t - mid) <= MAX_SPAN_S else None for t in times]


def _plausible_array(times: array) -> array:
    import numpy as np

    out = array("d", times)
    if not len(out):
        return out
    a = as_floats(out)
    ok = np.isfinite(a)
    if not ok.any():
        a[:] = math.nan
        return out
    mid = median_low_of(a[ok])
    with np.errstate(invalid="ignore"):
        far = np.abs(a - mid) > MAX_SPAN_S  # one temporary at a time: 8 B, then 1 B a row
    ok &= ~far
    del far
    a[~ok] = math.nan
    return out


def newest_first(times: Sequence[float | None] | array) -> bool:
    """Whether a log lists its rows newest first: nine in ten of its time steps go back.

    netdata's CSV export does by default (its API returns rows "newer to older" unless
    ``options=flip``; netdata docs, "CSV formatter"), and a log pasted from a dashboard or sorted
    by a spreadsheet may too.  Read forward, every row but the first looked like a clock that
    stepped back and was dropped.  A few steps back in a forward log (NTP at boot) are not this.
    """
    if isinstance(times, array):
        import numpy as np

        a = as_floats(times)
        f = a[np.isfinite(a)]
        d = np.diff(f)
        del f
        d = d[d != 0]
        return len(d) >= 2 and int(np.count_nonzero(d < 0)) * 10 >= len(d) * 9
    finite_t = [t for t in times if t is not None and math.isfinite(t)]
    steps = [b - a for a, b in itertools.pairwise(finite_t) if b != a]
    back = sum(1 for d in steps if d < 0)
    return len(steps) >= 2 and back * 10 >= len(steps) * 9


NEWEST_FIRST_NOTE = "rows run newest first (netdata's default export): read in reverse"


def keep_forward(
    items: list[T],
    times: list[float | None],
    notes: list[str] | set[str] | None = None,
    lines: Sequence[int] | None = None,
) -> tuple[list[T], list[float], int]:
    """(items, times, dropped): only items whose time exists and does not go back.

    A logger's clock that stepped (NTP at boot, a 1970 boot, a restart into the same file) is
    mended first when ``notes`` is given (:mod:`~thermogov.importers.clocksteps`, a note per
    step); a row that still goes back (a reordered line, a step of one interval) or has an
    unplaceable stamp cannot go on a monotonic axis: dropping those rows, and counting them,
    keeps the rest.  A garbled stamp (:func:`plausible_times`) is dropped before it could make
    every later row look earlier than itself.  ``lines`` (each item's line in the file) makes a
    step's note name the lines it shifted (session 30w).
    """
    if notes is not None:
        from thermogov.importers.clocksteps import mend_steps

        times, step_notes = mend_steps(times, lines=lines)
        if isinstance(notes, set):
            notes.update(step_notes)
        else:
            notes.extend(step_notes)
    kept: list[T] = []
    axis: list[float] = []
    for item, t in zip(items, plausible_times(times), strict=True):
        if t is None or (axis and t < axis[-1]):
            continue
        kept.append(item)
        axis.append(t)
    return kept, axis, len(items) - len(kept)


# get_throttled bits "now": ARM frequency capped, throttled, soft temperature limit active
# (Raspberry Pi documentation, "vcgencmd get_throttled")
PI_THROTTLE_NOW = 0x2 | 0x4 | 0x8


def throttle_note(masks: list[int], what: str) -> str:
    """How many of the ``what``s (readings, records) the Pi firmware flagged as throttled now."""
    now = sum(1 for m in masks if m & PI_THROTTLE_NOW)
    return f"throttled flags: {now} of {len(masks)} {what}(s) capped/throttled now (bits 0x2/0x4/0x8)"


def even_axis(
    n: int, interval_s: float | None, default_s: float, unit: str, hint: str
) -> tuple[list[float], str]:
    """(times, note) for ``n`` readings of a log with no time at all: one per interval."""
    step = interval_s or default_s
    how = "given" if interval_s else f"assumed; pass --interval for {hint}"
    return [i * step for i in range(n)], f"no timestamps: one {unit} per {step:g} s ({how})"


def rebase(times: list[float]) -> list[float]:
    """Shift a time axis so the first sample is at 0.0, as ImportedSample.t_s promises.

    A garbled time (:func:`plausible_times`) becomes NaN rather than the origin, so one
    ``-1e300`` stamp cannot collapse the whole axis; the shared range check
    (:mod:`~thermogov.importers.validate`) drops and counts such rows.
    """
    return list(rebased(times))


def rebased(times: Sequence[float] | array) -> Iterator[float]:
    """:func:`rebase`'s values one at a time (a big axis is not held twice as float objects);
    an ``array('d')`` axis is checked as one (:func:`plausible_times`), NaN for no time."""
    if isinstance(times, array):
        arr = plausible_times(times)
        t0 = next((t for t in arr if not math.isnan(t)), 0.0)
        return (round(t - t0, 6) if not math.isnan(t) else math.nan for t in arr)
    axis = plausible_times(times)
    t0 = next((t for t in axis if t is not None), 0.0)
    return (round(t - t0, 6) if t is not None else math.nan for t in axis)


def fraction(percent: float) -> float:
    """Percent -> 0..1, rounded so a logged 10.1 % reads back as exactly 0.101."""
    return round(percent / 100.0, 9)


def mhz_to_hz(mhz: float) -> int:
    """Clocks are stored as integer Hz like the kernel's OPP tables, whatever unit the log uses."""
    return round(mhz * 1_000_000)
