"""tegrastats lines of every L4T generation found in the wild (session 12, docs/importing.md
"Formats from the wild"), each read to the values on the line.  Synthetic lines in each
generation's shape; the numbers are this test's own."""

from __future__ import annotations

import pytest

from thermogov.importers import tegrastats

MHZ = 1_000_000

CASES = [
    (  # TX1 / TK1 (L4T 28 and older): lower-case cpu, one clock after the bracket, EMC and GR3D
        "RAM 3100/3983MB (lfb 40x4MB) cpu [30%,50%,off,70%]@1734 EMC 12%@1600 APE 25 GR3D 40%@998",
        {},
        {"cpu": 1734 * MHZ, "emc": 1600 * MHZ, "gpu": 998 * MHZ},
        {"cpu": 0.5, "emc": 0.12, "gpu": 0.4},
        None,
    ),
    (  # TX2 (L4T 32): mW-less rails, PMIC@100C alarm level, Tboard
        "RAM 2000/7852MB (lfb 900x4MB) SWAP 0/3926MB (cached 0MB) CPU [20%@2035,off,off,10%@2035,0%@2035,30%@2035] "
        "EMC_FREQ 6%@1866 GR3D_FREQ 12%@1300 APE 150 PLL@41.5C MCPU@41.5C PMIC@100C Tboard@37C GPU@39C "
        "BCPU@41.5C thermal@40.1C Tdiode@38.25C VDD_SYS_GPU 610/600 VDD_SYS_SOC 840/830 VDD_4V0_WIFI 0/0 "
        "VDD_IN 4120/4100 VDD_SYS_CPU 990/980 VDD_SYS_DDR 700/690",
        {
            "pll": 41.5,
            "mcpu": 41.5,
            "board": 37.0,
            "gpu": 39.0,
            "bcpu": 41.5,
            "thermal": 40.1,
            "tdiode": 38.25,
        },
        {"cpu": 2035 * MHZ, "emc": 1866 * MHZ, "gpu": 1300 * MHZ},
        {"cpu": 0.15, "emc": 0.06, "gpu": 0.12},
        4.12,
    ),
    (  # Thor (JetPack 7): cur/avg/max rails, no EMC/GR3D, VIN is the board input
        "08-01-2026 09:00:00 RAM 50000/125000MB (lfb 300x4MB) CPU [40%@1890,20%@972,off,60%@2601] "
        "cpu@45.5C tj@46.0C soc012@44.0C gpu@44.5C soc345@43.75C VDD_GPU 5000mW/4900mW/5200mW "
        "VDD_CPU_SOC_MSS 9000mW/8800mW/9500mW VIN_SYS_5V0 7000mW/7000mW/7100mW VIN 31000mW/30500mW/32000mW",
        {"cpu": 45.5, "tj": 46.0, "soc012": 44.0, "gpu": 44.5, "soc345": 43.75},
        {"cpu": 2601 * MHZ},
        {"cpu": 0.4},
        31.0,
    ),
    (  # IGX / AGX Orin with a second GPU field and power-gated zones at -256 °C
        "10-02-2026 10:00:00 RAM 2000/30000MB (lfb 5000x4MB) SWAP 0/15000MB (cached 0MB) "
        "CPU [5%@1190,3%@1190,1%@1190,3%@1190] EMC_FREQ 1%@2133 GR3D_FREQ 20%@612 GR3D2_FREQ 35%@612 "
        "VIC_FREQ 729 APE 233 CV0@-256C CPU@45.25C SOC2@42.0C GPU@41.5C tj@46.0C",
        {"cpu": 45.25, "soc2": 42.0, "gpu": 41.5, "tj": 46.0},
        {"cpu": 1190 * MHZ, "emc": 2133 * MHZ, "gpu": 612 * MHZ},
        {"cpu": 0.03, "emc": 0.01, "gpu": 0.35},  # the busier GPU engine
        None,
    ),
    (  # DriveOS: hyphenated tmp451 zones (EXT0-local / EXT0-remote) were dropped before
        "RAM 9000/28000MB (lfb 100x4MB) CPU [10%@1900,30%@1900,off,off] EMC_FREQ 3%@3199 "
        "GR3D_FREQ 5%@[1275,1275] CPU@48.5C GPU@47.0C SOC@47.5C EXT0-local@38.25C EXT0-remote@49.75C",
        {"cpu": 48.5, "gpu": 47.0, "soc": 47.5, "ext0-local": 38.25, "ext0-remote": 49.75},
        {"cpu": 1900 * MHZ, "emc": 3199 * MHZ, "gpu": 1275 * MHZ},
        {"cpu": 0.2, "emc": 0.03, "gpu": 0.05},
        None,
    ),
]


@pytest.mark.parametrize(("line", "temps", "freqs", "loads", "power"), CASES)
def test_each_generation_reads_the_values_on_its_line(
    line: str, temps: dict[str, float], freqs: dict[str, int], loads: dict[str, float], power: float | None
) -> None:
    later = line.replace(":00 RAM", ":01 RAM", 1)  # stamped dialects: the next second
    log = tegrastats.parse_text(f"{line}\n{later}\n", "t.log")
    s = log.samples[0]
    assert (s.temps_c, s.freqs_hz, s.power_w) == (temps, freqs, power)
    assert s.loads == pytest.approx(loads)
    assert [x.t_s for x in log.samples] == [0.0, 1.0]  # the stamps, or the 1 s default


def test_jtop_drops_the_fixed_pmic_level_like_tegrastats() -> None:
    """jtop 3 copies tegrastats' `PMIC@100C` alarm level into `Temp PMIC`: it was kept as a
    100 °C sensor reading."""
    from thermogov.importers import jtop

    header = (
        "time,uptime,jetson_clocks,nvp model,CPU1,CPU2,GPU,Temp AO,Temp CPU,Temp PMIC,power cur,power avg"
    )
    rows = [
        "2021-03-04 10:00:01.000000,0:55:12,inactive,MAXN,20,30,0,40.5,37.5,100.0,2400,2300",
        "2021-03-04 10:00:02.000000,0:55:13,inactive,MAXN,90,100,50,40.5,38.0,100.0,5100,2500",
    ]
    log = jtop.parse_text("\n".join([header, *rows]) + "\n", "j.csv")
    assert [s.temps_c for s in log.samples] == [{"ao": 40.5, "cpu": 37.5}, {"ao": 40.5, "cpu": 38.0}]
    assert [s.power_w for s in log.samples] == [2.4, 5.1]
    assert any("PMIC@100C" in n for n in log.notes)
