"""What an sbc-bench report holds besides its monitor tables, read or said (session 32w).

The importer's samples come from the "System health while running ..." monitors only: the one
section with a time of day on every line.  The report's other sections hold no time axis, so
none of their lines may become a sample; what they say about the run in a stated unit is kept
as a note, and the rest is named in one line, so nothing is dropped without a word:

* ``Throttling statistics (time spent on each cpufreq OPP)``: per cpufreq policy, the seconds
  spent at each OPP in MHz during the benchmarks (cpufreq-stats ``time_in_state``, kernel
  Documentation/cpu-freq/cpufreq-stats.rst).  A residency, not a series: summarised as the
  share of the time below the highest OPP used, which is when cpufreq held the clock down.
* ``Querying ThreadX on RPi for thermal or undervoltage issues``: ``vcgencmd get_throttled``
  printed in binary; bits 0-3 are now and 16-19 since boot (under-voltage, ARM frequency capped,
  throttled, soft temperature limit: Raspberry Pi documentation, "vcgencmd get_throttled").
* ``Clockspeeds (idle vs. heated up)``: one temperature before and one after the benchmarks,
  each with the clocks measured then, no time of day; said, with sbc-bench's "(throttled)" mark.
* ``Results validation``'s ``Throttling occured`` line; ``Hardware sensors`` (lm-sensors text:
  temperatures with no time, the fan RPM read by the importer), ``Checking cpufreq OPP``
  (clocks measured on an idle board): named.  ``System health now`` (a copy of a monitor line)
  has its own note in the importer.
"""

from __future__ import annotations

import re

_STATS_RE = re.compile(r"^Throttling statistics \(time spent on each cpufreq OPP\)(?: for CPUs (\S+))?")
_OPP_TIME_RE = re.compile(r"^\s*(\d+(?:\.\d+)?) MHz:\s+(\d+(?:\.\d+)?) sec\s*$")
_THREADX_HEADING = "Querying ThreadX on RPi for thermal or undervoltage issues:"
_BITS_RE = re.compile(r"^\s*([01]{4,32})\s*$")
# vcgencmd get_throttled's bits (Raspberry Pi documentation)
_THROTTLE_BITS = {
    0: "under-voltage now",
    1: "ARM frequency capped now",
    2: "throttled now",
    3: "soft temperature limit now",
    16: "under-voltage since boot",
    17: "ARM frequency capped since boot",
    18: "throttled since boot",
    19: "soft temperature limit since boot",
}
_CLOCKSPEEDS_RE = re.compile(r"^(Before|After) at (-?\d+(?:\.\d+)?)°C( \(throttled\))?:\s*$")
_NAMED = (
    ("Hardware sensors:", "Hardware sensors (lm-sensors readings with no time of day)"),
    ("Checking cpufreq OPP", "Checking cpufreq OPP (clocks measured on an idle board)"),
)


def section_notes(lines: list[str]) -> list[str]:
    """One note per section that says something about the run, and one naming the rest."""
    notes: list[str] = []
    notes += _residency(lines)
    notes += _threadx(lines)
    notes += _clockspeeds(lines)
    if any("Throttling occured" in ln or "Throttling occurred" in ln for ln in lines):
        notes.append("the report's results validation says throttling occurred during the benchmarks")
    named = [what for key, what in _NAMED if any(key in ln for ln in lines)]
    if named:
        notes.append("report sections with no time axis not imported as samples: " + "; ".join(named))
    return notes


def _residency(lines: list[str]) -> list[str]:
    out: list[str] = []
    for k, ln in enumerate(lines):
        if (m := _STATS_RE.match(ln)) is None:
            continue
        states: list[tuple[float, float]] = []
        for row in lines[k + 1 : k + 80]:
            if (r := _OPP_TIME_RE.match(row)) is not None:
                states.append((float(r.group(1)), float(r.group(2))))
            elif row.strip() and states:
                break
        used = [(mhz, s) for mhz, s in states if s > 0.0]
        if not used:
            continue
        total = sum(s for _, s in used)
        top = max(mhz for mhz, _ in used)
        below = sum(s for mhz, s in used if mhz < top)
        cpus = f" (CPUs {m.group(1)})" if m.group(1) else ""
        out.append(
            f"cpufreq residency{cpus} from 'Throttling statistics': {below:g} s of {total:g} s "
            f"({below / total:.1%}) below the highest OPP used, {top:g} MHz (lowest used "
            f"{min(mhz for mhz, _ in used):g} MHz); no time axis, not imported as samples"
        )
    return out


def _threadx(lines: list[str]) -> list[str]:
    start = next((k for k, ln in enumerate(lines) if ln.strip() == _THREADX_HEADING), None)
    if start is None:
        return []
    bits = next((m.group(1) for ln in lines[start + 1 : start + 4] if (m := _BITS_RE.match(ln))), None)
    if bits is None:
        return []
    value = int(bits, 2)
    flags = [what for bit, what in sorted(_THROTTLE_BITS.items()) if value >> bit & 1]
    return [
        f"vcgencmd get_throttled in the report's ThreadX query: 0x{value:x} ("
        + (", ".join(flags) if flags else "no flag set")
        + ")"
    ]


def _clockspeeds(lines: list[str]) -> list[str]:
    found = [m for ln in lines if (m := _CLOCKSPEEDS_RE.match(ln))]
    if not found:
        return []
    said = ", ".join(f"{m.group(1).lower()} at {float(m.group(2)):g} °C{m.group(3) or ''}" for m in found)
    return [f"'Clockspeeds (idle vs. heated up)': {said}; no time of day, not imported as samples"]
