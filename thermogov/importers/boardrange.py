"""Logged values a board cannot produce, said once the board is known.

The range check every import ends with (:mod:`~thermogov.importers.validate`) is the same for
every board, so a 2400 MHz clock passes on any board: right for a Pi 5, impossible for a Pi 4
or an Orin Nano.  Once ``import`` knows the board (``--board``, or the board the log names),
each domain's logged clocks are compared with the top of that profile's OPP table: a clock above
it comes from another board (``--board`` given wrongly, a log copied from elsewhere), a clock read
in the wrong unit, or an overclock beyond what the profile lists.  The values are kept, as logged;
the note names the domain, the figure and the fix, so nothing out of the board's reach is taken
without a word.  Temperatures get the same treatment without a profile: no board this project
targets keeps running above 125 °C (its trip points shut it down first), so readings above are
named, as are readings below 0 °C (a board in the cold, or a sign lost).
"""

from __future__ import annotations

import numpy as np

from thermogov.board import BoardProfile, DomainProfile
from thermogov.importers.common import ImportedLog
from thermogov.importers.samplestore import columnar

# Measured clocks sit a little off the OPP they run at (`vcgencmd measure_clock arm` prints
# 1500345728 for 1500 MHz; tegrastats rounds); 5 % over the table's top is no longer that.
CLOCK_MARGIN = 0.05
# Above this no board here still runs: Jetson thermal shutdown is at or below 105 °C (Tj) and a
# Raspberry Pi's firmware throttles from 80-85 °C; 125 °C is the usual silicon junction maximum.
HOT_LIMIT_C = 125.0
# over_voltage counts 25 mV steps (documented -16..8, reports show up to 15); a magnitude beyond
# is no step count (the Pi 400 reports 0x11170) and is left out of the note
# (sim/calibration/overvolt.py reads it the same way).
OVER_VOLTAGE_STEPS = 16
COLD_LIMIT_C = 0.0


def clock_notes(log: ImportedLog, profile: BoardProfile) -> list[str]:
    """One note per domain of ``profile`` whose logged clock goes above its OPP table's top, saying
    which it is where the log tells: the stock clock of the model the log names (a Pi 400 or a C0
    Pi 4 runs 1800 MHz where the table stops at 1500), an overclock the log's firmware settings
    set (``arm_freq``, ``over_voltage``), or a clock out of the board's reach."""
    notes: list[str] = []
    for d in profile.domains:
        table = (*d.opp_hz, *d.listed_hz)
        col = columnar(log.samples).column("freqs_hz", d.name)  # NaN where a row has no clock
        seen = [int(f) for f in col[~np.isnan(col)].tolist()]
        if not table or not seen:
            continue
        top = max(table)
        over = [f for f in seen if f > top * (1 + CLOCK_MARGIN)]
        if over:
            head = (
                f"{d.name} clock reaches {max(over) / 1e6:.0f} MHz in {len(over)} sample(s), above "
                f"{profile.name}'s highest ({top / 1e6:.0f} MHz): kept as logged; "
            )
            notes.append(head + _why_above(max(over), d, log))
    return notes


def _why_above(peak_hz: int, d: DomainProfile, log: ImportedLog) -> str:
    """What a clock above the table is: the named model's own, a firmware overclock, or unknown."""
    stock = d.stock_clock_for(log.model) if log.model else 0
    if stock and peak_hz <= stock * (1 + CLOCK_MARGIN):
        return (
            f"the stock clock of the {log.model} ({stock / 1e6:.0f} MHz), not of another board; the "
            "profile's table stops below it, so the fit holds the table's top voltage there"
        )
    arm_mhz = log.firmware.get("arm_freq", 0)
    if arm_mhz and peak_hz <= arm_mhz * 1e6 * (1 + CLOCK_MARGIN):
        volts = log.firmware.get("over_voltage")
        set_by = f"arm_freq={arm_mhz}" + (
            f", over_voltage={volts}" if volts is not None and abs(volts) <= OVER_VOLTAGE_STEPS else ""
        )
        base = f"{log.model or 'the board'}'s stock {(stock or d.stock_clock_hz) / 1e6:.0f} MHz"
        return f"overclocked: the log's firmware settings ({set_by}) run it above {base}"
    return (
        "a log of another board (check --board), a clock in another unit or an overclock the profile "
        "does not list"
    )


def temperature_notes(log: ImportedLog) -> list[str]:
    """One note per sensor with readings above ``HOT_LIMIT_C`` or below ``COLD_LIMIT_C``."""
    notes: list[str] = []
    store = columnar(log.samples)
    for name in sorted(store.keys("temps_c")):
        col = store.column("temps_c", name)
        vals = col[~np.isnan(col)].tolist()
        hot = [v for v in vals if v > HOT_LIMIT_C]
        cold = [v for v in vals if v < COLD_LIMIT_C]
        if hot:
            notes.append(
                f"{name}: {len(hot)} reading(s) up to {max(hot):g} °C, above {HOT_LIMIT_C:g} °C where no board "
                "here still runs: kept; check the unit (°F? --columns temp=COL:F) or the sensor"
            )
        if cold:
            notes.append(
                f"{name}: {len(cold)} reading(s) down to {min(cold):g} °C, below {COLD_LIMIT_C:g} °C: kept; "
                "a board in the cold, or check the sign and the unit"
            )
    return notes
