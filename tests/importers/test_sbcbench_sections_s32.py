"""Session 32w: what an sbc-bench report holds besides its monitor, read or said (issue 10).

The samples come from the "System health while running" monitors only; the residency table,
the Pi firmware's throttle flags and the before/after clock check hold no time axis, so they
become notes, and the other sections are named in one line.  A synthetic report (this file's
own numbers in sbc-bench's layout, ThomasKaiser/sbc-bench) and, with ``$THERMOGOV_REAL_DATA``,
two real reports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realdata import REAL_DATA, absent
from thermogov.importers import parse_log


def _report() -> list[str]:
    monitor = [
        f"12:00:{s:02d}: 2208/1800MHz  3.10 100%   0%  99%   0%   0%   0%  {60 + s / 10:.1f}°C"
        for s in range(0, 60, 5)
    ]
    return [
        "sbc-bench v0.9.60 Radxa ROCK 5B (Sun, 06 Dec 2026 12:00:00 +0100)",
        "",
        "Hardware sensors:",
        "",
        "cpu_thermal-virtual-0",
        "temp1:        +39.8 C",
        "",
        "System health while running 7-zip multi core benchmark:",
        "",
        "Time        big.LITTLE   load %cpu %sys %usr %nice %io %irq   Temp",
        *monitor,
        "",
        "Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-5 (Cortex-A76):",
        "",
        "2208 MHz:  900.00 sec",
        "1800 MHz:   60.00 sec",
        "1008 MHz:   40.00 sec",
        " 408 MHz:       0 sec",
        "",
        "Querying ThreadX on RPi for thermal or undervoltage issues:",
        "",
        "11000000000000000110",
        "",
        "### Clockspeeds (idle vs. heated up):",
        "",
        "Before at 39.8°C:",
        "",
        "    cpu4-cpu5 (Cortex-A76): OPP: 2208, Measured: 2200",
        "",
        "After at 73.9°C (throttled):",
        "",
        "    cpu4-cpu5 (Cortex-A76): OPP: 2208, Measured: 1950",
        "",
        "Checking cpufreq OPP for cpu4-cpu5 (Cortex-A76):",
        "",
        "Cpufreq OPP: 2208    Measured: 2200 (2200.1/2199.9/2199.8)",
    ]


def test_the_other_sections_become_notes_never_samples(tmp_path: Path) -> None:
    path = tmp_path / "report.txt"
    path.write_text("\n".join(_report()) + "\n")
    log = parse_log(path)
    assert log.fmt == "sbc-bench" and len(log.samples) == 12
    assert {round(v, 1) for s in log.samples for v in s.temps_c.values()} == {
        60 + s / 10 for s in range(0, 60, 5)
    }
    notes = "\n".join(log.notes)
    assert (
        "cpufreq residency (CPUs 4-5) from 'Throttling statistics': 100 s of 1000 s (10.0%) below the highest "
        "OPP used, 2208 MHz (lowest used 1008 MHz)" in notes
    )
    assert (
        "get_throttled in the report's ThreadX query: 0xc0006 (ARM frequency capped now, throttled now, "
        "throttled since boot, soft temperature limit since boot)" in notes
    )
    assert "before at 39.8 °C, after at 73.9 °C (throttled); no time of day" in notes
    named = [n for n in log.notes if n.startswith("report sections with no time axis not imported")]
    assert len(named) == 1 and "Hardware sensors" in named[0] and "Checking cpufreq OPP" in named[0]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("sbcbench_rock5b_4qJG.txt", "(CPUs 6-7) from 'Throttling statistics': 89.05 s of 969.79 s (9.2%)"),
        ("sbcbench_rpi4b_3Llk.txt", "0xe0000 (ARM frequency capped since boot, throttled since boot"),
    ],
)
def test_a_real_reports_sections_are_said(name: str, said: str) -> None:
    path = REAL_DATA / name
    if not path.is_file():
        pytest.skip(absent(path))
    log = parse_log(path)
    assert any(said in n for n in log.notes), log.notes
