"""sbc-bench reports (``sbc-bench -r`` uploads): the "System health while running ..." monitor.

A report is mostly benchmark prose; the thermal data are the monitor sections, one per
benchmark, each a table ``HH:MM:SS: <clock>MHz <loadavg> %cpu %sys %usr %nice %io %irq Temp
[VCore] [PMIC] [DC(V)]``.  The clock column means different things per board (``CPU``: one
cpufreq value, ``fake/real``: kernel vs firmware clock on a Pi, ``big.LITTLE``: two
clusters), so it is decoded by the label in the table header, not by position alone.  The
sections run back to back, so they are concatenated on one time-of-day axis.

The ``%cpu`` of a line is the mean since the line before (``ProcessStats`` in sbc-bench.sh
takes /proc/stat deltas), except on the first line of each section: a fresh monitor starts
its deltas from zero, so that line holds the average since boot (a 70 % "spike" between two
25 % lines in a single-threaded benchmark).  It is dropped (the load is held from the line
before), since a calibration takes it for a load step that never happened.  The line itself still
says something: sbc-bench starts each section's monitor together with its benchmark, so the new
load begins at that line (``ImportedLog.load_starts_at_gaps``), not somewhere in the interval
after it; the calibration then holds the next line's load from there, and from the monitor's
start-up before it (``MONITOR_START_S`` in sim/calibration/inputs.py).

The ``PMIC`` column of a Raspberry Pi 5 report is the sum of the PMIC's own metered rails
(``vcgencmd pmic_read_adc``): not what the board draws, which also feeds the 5 V peripherals
and the regulators' losses (it reads 2.7-3.0 W under a single-threaded benchmark, below the
board's 3.3 W idle, rpi5.toml; and its definition changed between sbc-bench versions: 12.4 W
at idle in geerlingguy/sbc-reviews#21).  It is kept as the rail ``PMIC``, not as the board's
``power_w``; an external meter column (``mW``, sbc-bench ``-p``) is the board's power.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np

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
    read_text,
    rebase,
    sensor_name,
)
from thermogov.importers.models import board_from_model
from thermogov.importers.quantities import core_volts
from thermogov.importers.sbcbench_sections import section_notes
from thermogov.importers.table import spread_ties
from thermogov.interfaces import LogFormatError

FMT = "sbc-bench"

_TITLE_RE = re.compile(r"^sbc-bench v(\S+)\s+(.*?)\s*(?:\(([^()]*)\))?\s*$")
_SECTION_RE = re.compile(r"^System health while running (.+?):\s*$")
_NOW_RE = re.compile(r"System health now:\s*$")
_MON_RE = re.compile(r"^(\d\d:\d\d:\d\d):\s+(\S.*)$")
# One clock per cpufreq cluster, slash-separated: "1800MHz", "2400/1800MHz" (big.LITTLE or a
# Pi's fake/real), "1800/2400/2352MHz" (sbc-bench's "triplecluster" monitor, e.g. RK3588).
_CLOCK_RE = re.compile(r"^\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)*MHz$")
# What sbc-bench prints in the clock column where it reads no clock: the bare unit (0.6.x), "---"
# (0.7.x without cpufreq) and "n/aMHz" (its "CPU n/a" monitor).
_NO_CLOCK = frozenset({"MHz", "---", "n/aMHz", "n/a"})
# ... and in the Temp column where it found no thermal source ("--", "n/a°C", "0°C").
_NO_TEMP = frozenset({"--", "n/a°C", "n/a"})
# The triple-cluster header names each cluster by its first CPU: "cpu0/cpu4/cpu6".
_CLUSTER_LABEL_RE = re.compile(r"^cpu\d+(?:/cpu\d+)+$")
_THERMAL_RE = re.compile(r"^Thermal source:\s+\S+\s+\(([^)]+)\)")
_DT_RE = re.compile(r"^DT compat:\s+(\S+)")
_METER_COLUMNS = {"mw", "power(mw)", "power[mw]"}
# The core voltage `vcgencmd measure_volts` reports on a Pi (the label's case varies by version)
_VCORE_COLUMNS = {"vcore"}
# A fan tachometer in sbc-bench's "Hardware sensors" blocks (lm-sensors output, e.g. the Pi 5's
# `pwmfan-isa-0000` chip: `fan1:        1518 RPM`), printed before and after the benchmarks.
_FAN_RPM_RE = re.compile(r"^fan\d+:\s+(\d+(?:\.\d+)?)\s+RPM\b")
# An lm-sensors chip name: driver, bus and address joined by dashes (``rp1_adc-isa-0000``,
# ``ina3221-i2c-1-40``), no colon (the readings under it have one).
_CHIP_RE = re.compile(r"^[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)+$")
# The firmware's GPIO fan switch in the report's config dump (raspberrypi/linux
# arch/arm/boot/dts/overlays/README, "gpio-fan": `temp` the switch-on temperature and `hyst` the
# delta below it where the fan stops, both in m°C, defaults 55000 and 10000).
_GPIO_FAN_RE = re.compile(r"^\s*dtoverlay=gpio-fan\b(.*)$")
_OVERLAY_PARAM_RE = re.compile(r"[,:](temp|hyst)=(\d+)")
GPIO_FAN_DEFAULT_C = (55.0, 10.0)  # the overlay's default switch-on temperature and hysteresis
# `uptime` as sbc-bench prints it before its benchmarks ("Uptime: 19:48:26 up  1:05,  5 users,
# load average: 0.30, 1.74, 4.51"); locales may write decimal commas ("0,99, 0,42, 0,16").
_UPTIME_RE = re.compile(
    r"^Uptime:.*?\bup\s+(?:(\d+)\s+days?,\s*)?(?:(\d+):(\d\d)|(\d+)\s+min)\b.*?"
    r"load average:\s*(\d+[.,]\d+),\s*(\d+[.,]\d+),\s*(\d+[.,]\d+)"
)
# The same line's time of day and, in sbc-bench 0.9.x, the thermal source's temperature after the
# load averages ("..., load average: 0.62, 0.18, 0.06,  44.6°C,  55517606"): a reading taken before the
# first benchmark; taken as the monitor's thermal source (*assumed*: it sits beside the monitor's values,
# 44.6 -> 46.3 °C over 47 s on the Pi 5 8-NK, within a benchmark's rise on every report at hand).
_UPTIME_READING_RE = re.compile(
    r"^Uptime:\s+(\d\d:\d\d:\d\d)\s+up\b.*?load average:\s*(\d+[.,]\d+),.*?,\s*(\d+(?:\.\d+)?)°C"
)
# iostat's header in the report ("Linux 6.6.69-v8-16k+ (pi5)  01/09/25  _aarch64_  (4 CPU)")
_CPUS_RE = re.compile(r"\((\d+) CPU\)\s*$")
# The Uptime line comes minutes at most before the first benchmark (47-101 s in the reports at hand);
# a line further back (or after it) is not taken for the run's start.
MAX_UPTIME_LEAD_S = 600.0
LOAD_AVERAGE_1MIN_TAU_S = 60.0  # kernel/sched/loadavg.c: EXP_1, the 1-minute average's time constant
# The firmware's settings in force (`vcgencmd get_config int`, which every Raspberry Pi report
# prints under "Actual ThreadX settings:"), decimal or hex.  Only the clock and voltage options
# of config.txt's "Overclocking options" are kept: what the power model needs (docs/calibration.md).
_FIRMWARE_HEADING = "Actual ThreadX settings:"
_FIRMWARE_RE = re.compile(r"^([a-z_]+)=(-?(?:0x[0-9a-fA-F]+|\d+))\s*$")
FIRMWARE_KEYS = frozenset(
    {
        "arm_freq",
        "arm_freq_min",
        "arm_boost",
        "force_turbo",
        "over_voltage",
        "over_voltage_min",
        "over_voltage_delta",
    }
)
_PADDED_CLOCK_RE = re.compile(r"(\d)/\s+(\d)")  # "1200/ 980MHz": the firmware clock is padded
_DEFAULT_COLUMNS = ("CPU", "load", "%cpu", "%sys", "%usr", "%nice", "%io", "%irq", "Temp")

# Device-tree compatibles are exact; the free-text model in the title is the fallback.
_DT_BOARDS: tuple[tuple[str, str], ...] = (
    ("p3701", "jetson-agx-orin"),
    ("p3767-0003", "jetson-orin-nano"),
    ("p3767-0004", "jetson-orin-nano"),
    ("p3767-0005", "jetson-orin-nano"),
    ("p3767-0000", "jetson-orin-nx"),
    ("p3767-0001", "jetson-orin-nx"),
    ("p3668", "jetson-xavier-nx"),
    ("p2888", "jetson-agx-xavier"),
    ("galen", "jetson-agx-xavier"),
    ("p3448", "jetson-nano"),
    ("p3310", "jetson-tx2"),
    ("p3489", "jetson-tx2"),
    ("raspberrypi,5-compute-module", "rpi-cm5"),
    ("raspberrypi,5-model-b", "rpi5"),
    ("raspberrypi,4-compute-module", "rpi-cm4"),
    ("raspberrypi,400", "rpi400"),
    ("raspberrypi,4-model-b", "rpi4"),
    ("raspberrypi,3-model-b", "rpi3"),
    ("radxa,rock-5b", "rock5b"),
)


# The monitor's own header, as `sbc-bench -m` and `armbianmonitor -m` print it on their own
# (no report around it): "Time        CPU    load %cpu %sys %usr %nice %io %irq   CPU  C.St."
_MONITOR_HEADER_RE = re.compile(r"^Time\s+\S.*\bload\s+%cpu\s+%sys\b")


def detect(text: str) -> Mark | None:
    """The report title line, a monitor section, or a bare monitor capture (header and rows)."""
    head = text.lstrip()[:200]
    if head.startswith("sbc-bench v"):
        return Mark(FMT, "title line")
    if re.search(r"^System health while running ", text, re.M):
        return Mark(FMT, "monitor section")
    lines = head_lines(text, 60)
    if (
        any(_MONITOR_HEADER_RE.match(ln) for ln in lines)
        and (rows := sum(1 for ln in lines if _MON_RE.match(ln))) >= 2
    ):
        return Mark(FMT, f"monitor header and {rows} monitor rows in the head")
    return None


def looks_like(text: str) -> bool:
    """Whether :func:`detect` recognises ``text``."""
    return detect(text) is not None


def board_from_report(title_model: str, dt_compat: str | None) -> str | None:
    """Board family from the DT compatible if present, else from the title's model string."""
    if dt_compat:
        for key, board in _DT_BOARDS:
            if key in dt_compat:
                return board
    return board_from_model(title_model)


# A monitor line is split at blanks, so a comma between digits inside a cell (`51,2°C`, `1,85`,
# `0,8835V`: sbc-bench's awk/printf under a locale with decimal commas) is that number's decimal
# mark, never a field separator (session 31w).  Cells that hold whole numbers (the clock in MHz, a
# meter's mW) are not read that way: `1,200MHz` may be a thousands group, so such a file is refused.
_DECIMAL_COMMA_RE = re.compile(r"^(-?\d+),(\d+)$")
_COMMA_IN_NUMBER_RE = re.compile(r"\d,\d")


class _AmbiguousComma(ValueError):
    """A whole-number cell (MHz, mW) holding a comma: a decimal mark or a thousands group."""


def _number(text: str) -> float:
    """``text`` as a float, a decimal comma read as the decimal mark; ValueError if no number."""
    return float(_DECIMAL_COMMA_RE.sub(r"\1.\2", text))


def _value(token: str, unit: str) -> float | None:
    if not token.endswith(unit):
        return None
    try:
        return _number(token[: -len(unit)])
    except ValueError:
        return None


def _clocks(label: str, token: str) -> dict[str, int] | None:
    if _CLOCK_RE.match(token) is None:
        return None
    values = [float(v) for v in token[: -len("MHz")].split("/")]
    if len(values) == 1:
        return {"cpu": mhz_to_hz(values[0])}
    if label == "fake/real" and len(values) == 2:  # firmware-measured clock is the effective one
        return {"cpu": mhz_to_hz(values[1]), "cpu_cpufreq": mhz_to_hz(values[0])}
    if label == "big.LITTLE" and len(values) == 2:
        return {
            "cpu": mhz_to_hz(max(values)),
            "cpu_big": mhz_to_hz(values[0]),
            "cpu_little": mhz_to_hz(values[1]),
        }
    out = {"cpu": mhz_to_hz(max(values))}
    names = label.split("/") if _CLUSTER_LABEL_RE.match(label) else []
    if len(names) == len(values):  # "cpu0/cpu4/cpu6": one clock per cpufreq policy
        out.update({f"cpu_policy{name[3:]}": mhz_to_hz(v) for name, v in zip(names, values, strict=True)})
    return out


# One decoded monitor line: temperatures, clocks, loads, power per source (W: "PMIC", "meter") and
# core voltages (V)
_Row = tuple[dict[str, float], dict[str, int], dict[str, float], dict[str, float], dict[str, float]]


def _monitor_row(columns: tuple[str, ...], tokens: list[str], sensor: str) -> _Row | None:
    """Decode one monitor line; None if any present field is unreadable.

    Old sbc-bench versions leave the clock column empty where cpufreq is missing, so a line
    one token short whose first token is the load average has no clock (not a damaged line);
    some (v0.6.x on a Jetson Nano) print the unit alone, ``     MHz``, others ``---`` or ``n/aMHz``
    (no cpufreq at all): the same empty clock.
    """
    t_idx = columns.index("Temp") if "Temp" in columns else len(_DEFAULT_COLUMNS) - 1
    tokens = _aligned(columns, tokens)
    if not t_idx < len(tokens) <= len(columns):
        return None
    if tokens[0] and _COMMA_IN_NUMBER_RE.search(tokens[0]):
        raise _AmbiguousComma(f"the clock {tokens[0]!r}")
    freqs = {} if tokens[0] == "" else _clocks(columns[0], tokens[0])
    cpu_pct = _value(tokens[2], "%") if "%cpu" in columns[:3] else None
    if freqs is None or cpu_pct is None or not 0.0 <= cpu_pct <= 100.0:
        return None
    try:
        _number(tokens[1])  # load average: not imported, but must be a number on a sane line
    except ValueError:
        return None
    temps: dict[str, float] = {}
    temp_tok = tokens[t_idx]
    if temp_tok not in _NO_TEMP:
        temp = _value(temp_tok, "°C")
        if temp is None:
            return None
        if temp != 0.0:  # "0°C" is what sbc-bench prints when it found no thermal source
            temps[sensor] = temp
    power: dict[str, float] = {}
    volts: dict[str, float] = {}
    for name, tok in zip(columns[t_idx + 1 :], tokens[t_idx + 1 :], strict=False):
        if name.lower() in _VCORE_COLUMNS:  # "0.8835V"; an implausible reading is left out, the row kept
            v = _value(tok, "V")
            core = None if v is None else core_volts(v)
            if core is not None:
                volts["cpu"] = core
        elif name == "PMIC":
            pmic = _value(tok, "W")
            if pmic is None:
                return None
            power["PMIC"] = pmic
        elif name.lower() in _METER_COLUMNS:  # an external meter (sbc-bench -p / Netio): mW
            if _COMMA_IN_NUMBER_RE.search(tok):
                raise _AmbiguousComma(f"the meter reading {tok!r}")
            mw = _value(tok, "mW") if tok.endswith("mW") else (float(tok) if _is_float(tok) else None)
            if mw is None:
                return None
            if mw > 0.0:  # "0": the meter had no reading yet (a running board draws watts)
                power["meter"] = mw / 1000.0
    return temps, freqs, {"cpu": fraction(cpu_pct)}, power, volts


def _aligned(columns: tuple[str, ...], tokens: list[str]) -> list[str]:
    """A monitor line's tokens with an empty first (clock) token where the line has no clock."""
    if tokens and tokens[0] in _NO_CLOCK:
        tokens = ["", *tokens[1:]]
    if tokens and _CLOCK_RE.match(tokens[0]) is None and _is_float(tokens[0]) and len(tokens) < len(columns):
        tokens = ["", *tokens]
    return tokens


def _header_columns(line: str) -> tuple[str, ...]:
    """Column labels of a monitor header; "CPU n/a" (no cpufreq) is one label, not two."""
    words = line.split()[1:]
    if words[:2] == ["CPU", "n/a"]:
        words = ["CPU n/a", *words[2:]]
    return tuple(words)


def _is_float(token: str) -> bool:
    try:
        _number(token)
    except ValueError:
        return False
    return True


def _first_sensor_block(lines: list[str]) -> list[str]:
    """The lines of the report's first "Hardware sensors" block (lm-sensors output), [] without one.

    sbc-bench prints that block before its benchmarks and again after them, and the monitor
    tables last; only the first block describes the board before the logged run (the second
    is a moment after every reading)."""
    start = next((i for i, ln in enumerate(lines) if ln.strip() == "Hardware sensors:"), None)
    if start is None:
        return []
    block = lines[start + 1 :]
    end = next((i for i, ln in enumerate(block) if ln.startswith("#####")), len(block))
    return block[:end]


def _fans_before_run(lines: list[str]) -> tuple[float, ...]:
    """Fan tachometer readings of the report's first "Hardware sensors" block only."""
    return tuple(float(m.group(1)) for ln in _first_sensor_block(lines) if (m := _FAN_RPM_RE.match(ln)))


def _sensor_chips(lines: list[str]) -> tuple[str, ...]:
    """The lm-sensors chip names of the report's first "Hardware sensors" block (``pwmfan-isa-0000``,
    ``cpu_thermal-virtual-0``): each chip's block starts with its name alone on a line after a blank
    one.  Empty when the report prints no such block."""
    block = ["", *_first_sensor_block(lines)]
    return tuple(
        ln.strip()
        for prev, ln in itertools.pairwise(block)
        if not prev.strip() and _CHIP_RE.match(ln.strip())
    )


def _fan_evidence(lines: list[str]) -> tuple[str, tuple[float, float] | None]:
    """Hardware evidence in the report that the board has a fan, and the switch it declares.

    A fan's presence is a fact of the hardware, the same before, during and after the run, so
    every sensor block counts here (unlike :func:`_fans_before_run`, whose speeds describe a
    moment): a tachometer line at any speed (a fan below its first step reads 0 RPM, and a Pi 5
    without a fan prints no ``pwmfan`` chip at all), or the firmware's ``gpio-fan`` overlay in
    the config dump, whose ``temp``/``hyst`` give the one step of its switch (the overlay's
    defaults where they are not given).  No temperature is read.  ("", None) when nothing says so.
    """
    for ln in lines:
        if m := _GPIO_FAN_RE.match(ln):
            params = dict(_OVERLAY_PARAM_RE.findall(m.group(1)))
            on_c = float(params["temp"]) / 1000 if "temp" in params else GPIO_FAN_DEFAULT_C[0]
            hyst_c = float(params["hyst"]) / 1000 if "hyst" in params else GPIO_FAN_DEFAULT_C[1]
            return f"config: {ln.strip()}", (on_c, hyst_c)
    if any(_FAN_RPM_RE.match(ln) for ln in lines):
        return "a fan tachometer in the hardware sensors", None
    return "", None


def _before_run(lines: list[str]) -> tuple[float | None, tuple[float, float, float] | None]:
    """Seconds since boot and the 1/5/15-minute load averages of the report's `Uptime:` line."""
    for ln in lines:
        if m := _UPTIME_RE.match(ln):
            days, hours, minutes, only_min = m.group(1), m.group(2), m.group(3), m.group(4)
            up_min = int(days or 0) * 1440 + (
                int(hours) * 60 + int(minutes) if hours is not None else int(only_min or 0)
            )
            avg = tuple(float(m.group(i).replace(",", ".")) for i in (5, 6, 7))
            return up_min * 60.0, (avg[0], avg[1], avg[2])
    return None, None


def _uptime_reading(lines: list[str]) -> tuple[float, float, float] | None:
    """(time of day s, temperature °C, 1-minute load average) of the `Uptime:` line; None without a temperature."""
    for ln in lines:
        if m := _UPTIME_READING_RE.match(ln):
            tod = parse_hms(m.group(1))
            return None if tod is None else (tod, float(m.group(3)), float(m.group(2).replace(",", ".")))
    return None


def _cpus(lines: list[str]) -> int | None:
    """The CPU count iostat prints in the report's header, None without it."""
    return next((int(m.group(1)) for ln in lines if (m := _CPUS_RE.search(ln))), None)


def load_between(load_before: float, load_after: float, interval_s: float, cpus: int) -> float:
    """Mean CPU utilisation (0..1) over an interval from the 1-minute load averages at its two ends.

    The kernel's average follows ``L <- L e + n (1 - e)`` with ``e = exp(-5 s / 60 s)``
    (``kernel/sched/loadavg.c``), so over ``d`` seconds of a constant ``n`` runnable tasks
    ``L_after = L_before exp(-d / 60) + n (1 - exp(-d / 60))``: solved for ``n`` and spread over the
    CPUs.  A load average also counts tasks waiting on disk, so this can overstate the CPU's share."""
    decay = float(np.exp(-interval_s / LOAD_AVERAGE_1MIN_TAU_S))
    tasks = (load_after - load_before * decay) / (1.0 - decay)
    return float(np.clip(tasks / cpus, 0.0, 1.0))


def _firmware_settings(lines: list[str]) -> dict[str, int]:
    """The clock and voltage settings the firmware applied, from the "Actual ThreadX settings" block.

    That block (not the config.txt listing above it) is what the firmware did with the file: a
    config.txt may set a key in several ``[pi4]``/``[all]`` sections, and the firmware rounds some
    (``arm_freq=2400`` in the file, 2350 in force)."""
    start = next((i for i, ln in enumerate(lines) if ln.strip() == _FIRMWARE_HEADING), None)
    if start is None:
        return {}
    out: dict[str, int] = {}
    for ln in lines[start + 1 :]:
        if not ln.strip():
            break
        if (m := _FIRMWARE_RE.match(ln.strip())) and m.group(1) in FIRMWARE_KEYS:
            out[m.group(1)] = int(m.group(2), 0)
    return out


def parse(path: str | Path) -> ImportedLog:
    """Parse an sbc-bench report."""
    return parse_text(read_text(path), str(path))


def parse_text(text: str, source: str = "<text>") -> ImportedLog:
    """Collect every monitor section into one series; header lines give board and sensor."""
    return _parse_sections(text, source)[0]


def section_starts(path: str | Path) -> tuple[tuple[str, float], ...]:
    """Each monitor section's benchmark name and the time (s, on the imported log's axis) of its first row.

    Which benchmark ran when is what tells a memory-bound phase (7-zip) from a compute-bound one
    (cpuminer) at the same utilisation; the imported samples keep only the numbers, so a study of
    the phases (``bench/allcore.py``) reads the names here, on the same time axis."""
    return parse(path).phases


def _before_first_reading(
    lines: list[str], first_row: tuple[float, float] | None
) -> tuple[tuple[float, float, float | None], str] | None:
    """The `Uptime:` line's reading before the first monitor line: ((lead s, °C, load or None), note).

    The line is printed before sbc-bench's preparation (the cpufreq OPP check runs a single-threaded
    load on each cluster) and its first benchmark, so it is a measured point of the warm-up the monitor
    starts in.  The load over the interval up to the first monitor line is what sbc-bench's own lines
    say: the 1-minute load averages of the Uptime line and of that monitor line (:func:`load_between`);
    without the report's CPU count it is unknown (None).  Kept beside the samples, not as the first
    of them: as a sample (the fit's start moved to it, the load above until the first monitor line)
    it cost more held-out counts than it gained (docs/calibration.md, "the Uptime line's reading")."""
    reading = _uptime_reading(lines)
    if reading is None or first_row is None:
        return None
    tod, temp, load_before = reading
    lead_s = (first_row[0] - tod) % 86400.0
    if not 0.0 < lead_s <= MAX_UPTIME_LEAD_S:
        return None
    cpus = _cpus(lines)
    load = None if cpus is None else load_between(load_before, first_row[1], lead_s, cpus)
    note = (
        f"the Uptime line reads {temp:g} °C {lead_s:.0f} s before the first monitor line (kept beside the "
        "samples, not fitted); "
        + (
            f"the CPU load until it {load:.0%}, from the two lines' 1-minute load averages "
            f"({load_before:g} -> {first_row[1]:g}, {cpus} CPUs)"
            if load is not None
            else "the load until it unknown (no CPU count in the report)"
        )
    )
    return (lead_s, temp, load), note


def _parse_sections(text: str, source: str) -> tuple[ImportedLog, tuple[str, ...]]:
    """The imported log and, per sample, the name of the monitor section it came from."""
    lines = text.splitlines()
    title = next((ln for ln in lines if ln.strip()), "").strip()
    tm = _TITLE_RE.match(title)
    model = tm.group(2) if tm else ""
    dt = next((m.group(1) for ln in lines if (m := _DT_RE.match(ln))), None)
    zone = next((m.group(1) for ln in lines if (m := _THERMAL_RE.match(ln))), None)
    sensor = sensor_name(zone.removesuffix("_zone")) if zone else "cpu"
    notes: list[str] = []
    if tm and model.strip():
        notes.append(
            f"sbc-bench {tm.group(1)} report: {model}" + (f" ({tm.group(3)})" if tm.group(3) else "")
        )
    elif "System health while running" in text:
        # a title blanked or cut (a pasted report, a privacy edit): no board is guessed from what
        # is left of it, and the note says why none is named (session 30w)
        notes.append(
            "the report's title line names no board (blank, cut or missing): the board is "
            + ("taken from the device tree only" if dt else "not named by the log")
        )
    notes.append(
        f"temperature from thermal zone {zone!r}" if zone else "thermal zone not named: stored as 'cpu'"
    )
    clock = DayClock()
    times: list[float] = []
    rows: list[_Row] = []
    skipped = 0
    since_boot = 0
    sections: list[str] = []
    row_sections: list[str] = []
    columns: tuple[str, ...] = _DEFAULT_COLUMNS
    in_section = False
    seen_rows = False
    first_row: tuple[float, float] | None = None  # the first imported line's time of day and load average
    now_lines = 0
    extra_cols: set[str] = set()
    # `sbc-bench -m` / `armbianmonitor -m` captured alone: no report sections, one monitor whose
    # header may repeat (every 15 lines with SPACING); only its first line is since boot
    bare = not any(_SECTION_RE.match(ln) for ln in lines)
    for no, line in enumerate(lines, 1):
        if bare and _MONITOR_HEADER_RE.match(line):
            if not sections:
                sections.append("monitor (no report around it)")
            in_section = True
            seen_rows = seen_rows or bool(rows)
            columns = _header_columns(line)
            continue
        if m := _SECTION_RE.match(line):
            in_section, seen_rows, columns = True, False, _DEFAULT_COLUMNS
            sections.append(m.group(1))
            continue
        if _NOW_RE.search(line):
            in_section = False
            now_lines += 1
            continue
        if not in_section:
            continue
        if line.startswith("Time "):
            columns = _header_columns(line)
            if "Temp" in columns:
                extra_cols.update(columns[columns.index("Temp") + 1 :])
            continue
        if not line.strip():
            if seen_rows and not bare:
                in_section = False
            continue
        mm = _MON_RE.match(line)
        if mm is None:
            if line[:1].isdigit():  # a damaged monitor line: count it, the table goes on
                skipped += 1
            else:  # prose after the table: the section is over
                in_section = seen_rows = False
            continue
        tod = parse_hms(mm.group(1))
        body = _PADDED_CLOCK_RE.sub(r"\1/\2", mm.group(2))
        try:
            row = _monitor_row(columns, body.split(), sensor) if tod is not None else None
        except _AmbiguousComma as e:
            raise LogFormatError(
                f"{source}: line {no}: {e} holds a comma between digits, which in a whole-number column "
                "may be a thousands group or a decimal comma; remove the commas in that column (or "
                "rewrite the report under LC_ALL=C) and import again"
            ) from None
        t = clock.seconds(tod) if row is not None and tod is not None else None
        if row is None or t is None:
            skipped += 1
            continue
        if first_row is None and tod is not None:
            first_row = (tod, _number(_aligned(columns, body.split())[1]))
        if not seen_rows:  # the section's first line: utilisation since boot, not since a row
            row = (row[0], row[1], {}, row[3], row[4])
            since_boot += 1
        seen_rows = True
        times.append(t)
        rows.append(row)
        row_sections.append(sections[-1] if sections else "")
    if not rows:
        raise no_samples_error(source, "sbc-bench 'System health while running' lines")
    before = _before_first_reading(lines, first_row)
    if before is not None:
        notes.append(before[1])
    # Old sbc-bench versions (0.7.x) sometimes start two monitors for one section: the header
    # appears twice and the lines come in pairs with one stamp; the later line of a pair is
    # placed within that second (the stamps' resolution), not tens of seconds later at the next
    times, tied = spread_ties(times, within_s=1.0)
    if tied:
        notes.append(
            f"{tied} monitor line(s) shared their second with the line before (two monitors wrote into one "
            "section): placed within that second"
        )
    notes.append(f"{len(sections)} monitor sections concatenated: " + ", ".join(sections))
    if since_boot:
        notes.append(
            f"utilisation of the first line of each of {since_boot} monitor section(s) not imported: it is the "
            "average since boot (sbc-bench's monitor starts its /proc/stat deltas from zero); every other "
            "line's is the average since the line before"
        )
    if now_lines:
        notes.append(f"{now_lines} 'System health now' line(s) not imported (repeat the last monitor line)")
    if not any(r[0] for r in rows):
        notes.append("no temperature in the monitor (sbc-bench found no usable thermal source)")
    unused = sorted(c for c in extra_cols - {"PMIC"} if c.lower() not in _METER_COLUMNS | _VCORE_COLUMNS)
    if any(c.lower() in _METER_COLUMNS for c in extra_cols):
        notes.append(
            "external meter column (mW, whole board at the wall side) kept as the rail 'meter'"
            + (
                "; it lags the PMIC's readings, so it is not the board's power_w"
                if "PMIC" in extra_cols
                else " and as power_w"
            )
        )
    clockless = sum(1 for r in rows if not r[1])
    if clockless:
        notes.append(f"{clockless} monitor row(s) with an empty clock column (no cpufreq): no clock for them")
    if unused:
        notes.append(f"column(s) {', '.join(unused)} not imported (no field for voltages)")
    logged_volts = sum(1 for r in rows if r[4])
    if logged_volts:
        notes.append(f"core voltage from the VCore column (vcgencmd measure_volts) on {logged_volts} row(s)")
    board = board_from_report(model, dt)
    fan_rpm = _fans_before_run(lines)
    if fan_rpm:
        notes.append(
            f"fan tachometer before the run: {', '.join(f'{v:g}' for v in fan_rpm)} RPM (hardware sensors)"
        )
    fan_evidence, fan_switch_c = _fan_evidence(lines)
    if fan_evidence:
        notes.append(f"the board has a fan ({fan_evidence})")
    # Where a report has both, the meter follows the PMIC's rail ~45-60 s late (a first-order lag of
    # the PMIC fits it best: docs/calibration.md, ninth session), so it is no instantaneous power_w.
    lagging_meter = "PMIC" in extra_cols
    if "PMIC" in extra_cols:
        notes.append(
            "PMIC column kept as the rail 'PMIC' (the sum of the PMIC's own rails, not what the board draws): "
            "no board power_w"
        )
    samples = tuple(
        ImportedSample(
            t_s=t,
            temps_c=temps,
            freqs_hz=freqs,
            loads=loads,
            power_w=None if lagging_meter else power.get("meter"),
            rails_w=power,
            volts_v=volts,
        )
        for t, (temps, freqs, loads, power, volts) in zip(rebase(times), rows, strict=True)
    )
    uptime_s, load_average = _before_run(lines)
    if uptime_s is not None and load_average is not None:
        notes.append(
            f"before the run: up {uptime_s / 60:.0f} min, load average {', '.join(f'{v:g}' for v in load_average)}"
        )
    notes += section_notes(lines)
    firmware = _firmware_settings(lines)
    if firmware:
        notes.append(
            "firmware clock/voltage settings in force: "
            + ", ".join(f"{k}={v}" for k, v in sorted(firmware.items()))
        )
    imported = ImportedLog(
        FMT,
        source,
        board,
        samples,
        skipped,
        tuple(notes),
        model,
        fan_rpm,
        uptime_s,
        load_average,
        load_starts_at_gaps=True,  # each section's first line: its benchmark starts there
        firmware=firmware,
        fan_evidence=fan_evidence,
        fan_switch_c=fan_switch_c,
        sensor_chips=_sensor_chips(lines),
        before_run_reading=None if before is None else before[0],
        phases=_phases(samples, row_sections),
    )
    return imported, tuple(row_sections)


def _phases(samples: tuple[ImportedSample, ...], names: list[str]) -> tuple[tuple[str, float], ...]:
    """Each monitor section's name and the time of its first sample, in the order they ran."""
    out: list[tuple[str, float]] = []
    for sample, name in zip(samples, names, strict=True):
        if not out or out[-1][0] != name:
            out.append((name, sample.t_s))
    return tuple(out)
