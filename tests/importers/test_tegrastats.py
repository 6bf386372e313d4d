"""tegrastats importer: real Jetson logs, the MIT-licensed power-GUI CSV excerpt, and one
synthetic line per dialect where no redistributable real log exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.importers import ImportedLog, ImportedSample, detect_format, parse_log, tegrastats
from thermogov.interfaces import LogFormatError, ThermogovError

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "logs"
GUI_EXCERPT = LOGS / "tegrastats_agxorin_powergui-style_excerpt.csv"


def spacings(log: ImportedLog) -> set[float]:
    return {round(b.t_s - a.t_s, 3) for a, b in zip(log.samples, log.samples[1:], strict=False)}


# --- real files (no licence / AGPL: read from $THERMOGOV_REAL_DATA) ------------------------


def test_nano_trtexec(real: Path) -> None:
    log = parse_log(real / "tegrastats_nano_trtexec_resnet50.log")
    assert (log.fmt, log.board_hint, log.skipped_lines) == ("tegrastats", "jetson-nano", 0)
    assert len(log.samples) == 114
    assert "no timestamps: assumed 1 s interval (tegrastats default)" in log.notes
    assert spacings(log) == {1.0} and log.samples[-1].t_s == 113.0
    first = log.samples[0]
    assert first.temps_c == {"pll": 24.0, "cpu": 27.5, "gpu": 28.0, "ao": 29.5, "thermal": 28.0}
    assert first.freqs_hz == {"cpu": 102_000_000, "emc": 204_000_000, "gpu": 76_000_000}
    assert first.loads["cpu"] == pytest.approx((10 + 3 + 0 + 0) / 400)
    assert first.power_w == 0.92
    assert first.rails_w == {"POM_5V_IN": 0.92, "POM_5V_GPU": 0.0, "POM_5V_CPU": 0.119}
    step = log.samples[28]  # line 29: TensorRT running, GPU pinned at its top clock
    assert step.loads["gpu"] == 0.99 and step.freqs_hz["gpu"] == 921_000_000
    assert step.power_w == 5.143 and step.temps_c["gpu"] == 27.0
    assert sum(1 for s in log.samples if s.loads["gpu"] == 0.99) == 83
    assert log.samples[-1].power_w == 1.613
    assert all("pmic" not in s.temps_c for s in log.samples)


def test_tx2_old_and_new_line_format(real: Path) -> None:
    log = parse_log(real / "tegrastats_tx2_idle_lightload.log")
    assert (len(log.samples), log.skipped_lines, log.board_hint) == (2660, 0, "jetson-tx2")
    old, new = log.samples[419], log.samples[420]  # lines 420/421: EMC/GR3D fields appear
    assert "gpu" not in old.loads and "emc" not in old.freqs_hz
    assert new.freqs_hz == {"cpu": 2_034_000_000, "emc": 1_600_000_000, "gpu": 1_134_000_000}
    assert new.loads["gpu"] == 0.18 and new.loads["emc"] == 0.07
    assert "420 line(s) without GR3D/EMC fields (tegrastats run without root?)" in log.notes
    first = log.samples[0]
    assert first.temps_c["bcpu"] == 35.0 and first.temps_c["board"] == 29.0 and "pmic" not in first.temps_c
    assert first.power_w == 3.624 and first.rails_w["VDD_DDR"] == 0.881
    assert min(s.power_w or 0 for s in log.samples) == 3.577
    assert max(s.power_w or 0 for s in log.samples) == 4.141
    assert log.samples[-1].temps_c["bcpu"] == 38.0
    halved = parse_log(real / "tegrastats_tx2_idle_lightload.log", interval_s=0.5)
    assert halved.duration_s == 1329.5
    assert "no timestamps: assumed 0.5 s interval (given)" in halved.notes


def test_xavier_nx_jp5_timestamped(real: Path) -> None:
    log = parse_log(real / "tegrastats_xaviernx_gpuburn_stressng.log")
    assert (len(log.samples), log.skipped_lines, log.board_hint) == (103, 0, "jetson-xavier-nx")
    assert log.samples[-1].t_s == 105.0 and spacings(log) == {1.0, 2.0}
    assert not any(n.startswith("no timestamps") for n in log.notes)
    first = log.samples[0]
    assert first.freqs_hz == {"cpu": 1_189_000_000}  # JP5 prints EMC/GR3D as bare percentages
    assert first.loads["gpu"] == 0.22 and first.loads["emc"] == 0.0
    assert first.power_w == 5.542 and first.rails_w["VDD_CPU_GPU_CV"] == 1.594
    assert first.temps_c == {"aux": 36.5, "cpu": 40.0, "thermal": 37.85, "ao": 37.5, "gpu": 38.0}
    burn = log.samples[11]  # 20:06:06, gpu_burn starts
    assert burn.loads["gpu"] == 0.99 and burn.power_w == 9.315
    last = log.samples[-1]
    assert last.power_w == 13.751 and last.temps_c["gpu"] == 53.0 and last.temps_c["cpu"] == 50.5


def test_xavier_nx_jp4_rails_without_mw(real: Path) -> None:
    log = parse_log(real / "tegrastats_xaviernx_jp4_idle.log")
    assert (len(log.samples), log.skipped_lines, log.board_hint) == (29, 0, "jetson-xavier-nx")
    assert log.samples[0].power_w == 4.321 and log.samples[-1].power_w == 3.917
    assert log.samples[0].freqs_hz == {"cpu": 1_190_000_000, "emc": 1_600_000_000, "gpu": 204_000_000}
    assert log.samples[2].freqs_hz["cpu"] == 1_902_000_000


def test_agx_orin_per_gpc_gpu_clock(real: Path) -> None:
    log = parse_log(real / "tegrastats_agxorin64_llm_energy.log")
    assert (len(log.samples), log.skipped_lines, log.board_hint) == (43, 0, "jetson-agx-orin")
    assert log.samples[-1].t_s == 45.0 and spacings(log) == {1.0, 2.0}
    first = log.samples[0]
    assert first.freqs_hz == {"cpu": 1_036_000_000, "emc": 665_000_000, "gpu": 305_000_000}
    assert first.loads["cpu"] == pytest.approx(87 / 800)  # mean over the 8 online cores
    assert first.loads["gpu"] == 0.43
    assert first.temps_c["cpu"] == 51.031 and first.temps_c["tj"] == 51.031
    assert first.rails_w == {"VDD_GPU_SOC": 2.797, "VDD_CPU_CV": 0.799, "VIN_SYS_5V0": 3.215}
    assert first.power_w == 6.811  # no board-input rail on AGX Orin: sum of rails
    assert any("power_w is the sum of VDD_CPU_CV+VDD_GPU_SOC+VIN_SYS_5V0" in n for n in log.notes)
    assert log.samples[-1].power_w == pytest.approx(2.398 + 0.399 + 2.612)


def test_gui_csv_full_file(real: Path) -> None:
    log = parse_log(real / "tegrastats_agxorin_powergui-style.csv")
    assert (len(log.samples), log.skipped_lines, log.board_hint) == (1200, 0, "jetson-agx-orin")
    assert log.duration_s == 1200.0 and spacings(log) == {1.0, 2.0}
    last = log.samples[-1]
    assert last.temps_c == {"cpu": 68.7, "gpu": 65.8, "soc0": 64.9, "soc1": 64.5, "soc2": 63.6, "tj": 68.7}
    assert last.power_w == 48.339 and last.rails_w["VIN_SYS_5V0"] == 15.12


# --- MIT-licensed excerpt (runs everywhere) -------------------------------------------------


def test_gui_csv_excerpt() -> None:
    log = parse_log(GUI_EXCERPT)
    assert detect_format(GUI_EXCERPT) == "tegrastats"
    assert (len(log.samples), log.skipped_lines, log.board_hint) == (10, 0, "jetson-agx-orin")
    assert [s.t_s for s in log.samples] == [float(i) for i in range(10)]
    first = log.samples[0]
    assert first.temps_c == {"cpu": 65.6, "gpu": 61.8, "soc0": 61.3, "soc1": 61.2, "soc2": 60.1, "tj": 65.6}
    assert first.freqs_hz == {"cpu": 1_971_200_000, "gpu": 1_185_750_000, "emc": 204_000_000}
    assert first.loads == {"cpu": pytest.approx(253 / 1200), "gpu": 0.98}
    assert first.rails_w == {
        "VDD_GPU_SOC": 22.68,
        "VDD_CPU_CV": 3.13,
        "VIN_SYS_5V0": 14.716,
        "VDDQ_VDD2_1V8AO": 7.022,
    }
    assert first.power_w == 47.548
    assert "emc load: 10 value(s) outside 0..100 % not imported" in log.notes
    assert "cv0: offline marker (-256000 °C) not imported" in log.notes
    last = log.samples[-1]
    assert last.temps_c["tj"] == 65.3 and last.power_w == 41.548 and last.loads["gpu"] == 0.05


def test_gui_csv_broken_rows(tmp_path: Path) -> None:
    lines = GUI_EXCERPT.read_text(encoding="utf-8").splitlines()
    broken = [
        lines[0],
        lines[1],
        "01:22:36,MAXN,True",  # truncated row (written for this test)
        "1:22:xx" + lines[2][8:],  # unreadable time
        lines[3],
        lines[2],  # 01:22:36 after 01:22:37: out of order
        lines[4],
    ]
    path = tmp_path / "gui.csv"
    path.write_text("\n".join(broken) + "\n", encoding="utf-8")
    log = parse_log(path)
    assert log.skipped_lines == 3
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 3.0]


# --- synthetic lines, written for this test following the documented formats ---------------

NANO = (
    "RAM 1000/3964MB (lfb 300x4MB) SWAP 0/1982MB (cached 0MB) IRAM 0/252kB(lfb 252kB) "
    "CPU [30%@1479,20%@1479,10%@1479,0%@1479] EMC_FREQ 10%@1600 GR3D_FREQ 99%@921 APE 25 "
    "PLL@30C CPU@35.5C PMIC@50C GPU@33C AO@38C thermal@34.25C POM_5V_IN 5000/4000 "
    "POM_5V_GPU 2500/2000 POM_5V_CPU 800/700"
)
TX2_OLD = (
    "RAM 2700/7850MB (lfb 5x4MB) CPU [10%@2035,5%@2035,off,off,20%@345,0%@345] BCPU@40C "
    "MCPU@40C GPU@42.5C PLL@40C AO@36C Tboard@33C Tdiode@36.25C PMIC@100C thermal@38.6C "
    "VDD_IN 4000/3900 VDD_CPU 800/780 VDD_GPU 400/380 VDD_SOC 700/690 VDD_WIFI 0/0 VDD_DDR 900/890"
)
TX2_NEW = TX2_OLD.replace(" BCPU@", " EMC_FREQ 12%@1866 GR3D_FREQ 45%@1300 APE 150 MTS fg 0% bg 1% BCPU@")
NX_JP4 = (
    "RAM 2000/7773MB (lfb 1000x4MB) SWAP 0/3887MB (cached 0MB) CPU [50%@1420,40%@1420,off,off,off,off] "
    "EMC_FREQ 10%@1600 GR3D_FREQ 30%@510 APE 150 MTS fg 0% bg 3% AO@40C GPU@41.5C PMIC@50C AUX@40C "
    "CPU@42C thermal@41.2C VDD_IN 6000/5500 VDD_CPU_GPU_CV 1500/1400 VDD_SOC 1200/1150"
)
NX_JP5 = (
    "RAM 2300/6834MB (lfb 20x4MB) SWAP 0/3417MB (cached 0MB) CPU [90%@1190,80%@1190,70%@1190,"
    "60%@1190,off,off] EMC_FREQ 5% GR3D_FREQ 50% AUX@45C CPU@48.5C thermal@46C AO@45.5C GPU@47C "
    "PMIC@50C VDD_IN 9000mW/8000mW VDD_CPU_GPU_CV 4000mW/3500mW VDD_SOC 1500mW/1400mW"
)
AGX_ORIN = (
    "RAM 12000/62841MB (lfb 200x4MB) SWAP 0/31420MB (cached 0MB) CPU [10%@2201,20%@2201,30%@1500,"
    "40%@1500,off,off,off,off,off,off,off,off] EMC_FREQ 20%@3199 GR3D_FREQ 75%@[1300,1299] "
    "NVENC off NVDEC off VIC off APE 174 cv0@-256C cpu@60.5C soc2@55C soc0@56.25C cv1@-256C "
    "gpu@58C tj@60.5C soc1@55.5C cv2@-256C VDD_GPU_SOC 12000mW/11000mW VDD_CPU_CV 3000mW/2900mW "
    "VIN_SYS_5V0 5000mW/4900mW"
)
ORIN_NANO = (
    "RAM 2000/7620MB (lfb 500x4MB) SWAP 0/3810MB (cached 0MB) CPU [5%@1510,3%@1510,2%@1510,"
    "1%@1510,0%@1510,0%@1510] EMC_FREQ 1%@2133 GR3D_FREQ 0%@[624] VIC off APE 200 cpu@47.718C "
    "soc2@46.156C soc0@46.281C gpu@46.093C tj@47.718C soc1@46.312C VDD_IN 4807mW/4807mW "
    "VDD_CPU_GPU_CV 563mW/563mW VDD_SOC 1367mW/1367mW"
)
AGX_XAVIER = (
    "RAM 3000/15692MB (lfb 2000x4MB) SWAP 0/7846MB (cached 0MB) CPU [10%@2265,5%@2265,0%@2265,"
    "0%@2265,0%@2265,0%@2265,0%@2265,0%@2265] EMC_FREQ 2%@2133 GR3D_FREQ 0%@1377 APE 150 "
    "MTS fg 0% bg 0% AO@36C GPU@36.5C Tdiode@39.5C AUX@35.5C CPU@37.5C thermal@36.3C Tboard@35C "
    "GPU 155/155 CPU 311/311 SOC 932/932 CV 0/0 VDDRQ 155/155 SYS5V 1849/1849"
)
THOR_BUSY = (
    "RAM 8000/125749MB (lfb 30x4MB) CPU [50%@2601,off,25%@2601,0%@972] EMC_FREQ 30%@4266 "
    "GR3D_FREQ 60%@[1575,1575,1575] NVENC0_FREQ @1692 VIC off cpu@52.968C/52.968C tj@55.5C/56.25C "
    "gpu@54.125C/55C soc012@50.5C/51C VDD_GPU -400mW/-400mW/-400mW VDD_CPU_SOC_MSS "
    "9000mW/8000mW/9500mW VIN_SYS_5V0 6000mW/5900mW/6100mW VIN 30000mW/28000mW/31000mW NEW_FIELD 7"
)
THOR_IDLE = (
    "RAM 3000/125749MB (lfb 100x4MB) CPU [0%,5%,off,10%]@2601 EMC_FREQ @4266 "
    "GR3D_FREQ @[1575,1575,1575] cpu@49.5C/52.968C tj@51.25C/56.25C gpu@51C/55C "
    "VDD_GPU 6300mW/6300mW/6300mW VIN 28900mW/14450mW/28900mW"
)
TX1_OLD = (
    "RAM 1500/3983MB (lfb 400x4MB) SWAP 0/0MB (cached 0MB) cpu [20%,10%,off,30%]@1734 "
    "EMC 5%@1600 APE 25 GR3D 40%@998"
)


def one(line: str) -> ImportedSample:
    log = tegrastats.parse_text(line + "\n", "synthetic.log")
    assert len(log.samples) == 1 and log.skipped_lines == 0
    return log.samples[0]


def test_synthetic_nano() -> None:
    s = one(NANO)
    assert s.rails_w == {"POM_5V_IN": 5.0, "POM_5V_GPU": 2.5, "POM_5V_CPU": 0.8}  # not RAM/SWAP/IRAM
    assert s.power_w == 5.0 and s.freqs_hz["gpu"] == 921_000_000 and s.loads["gpu"] == 0.99
    assert "pmic" not in s.temps_c and s.temps_c["thermal"] == 34.25
    assert tegrastats.parse_text(NANO, "x").board_hint == "jetson-nano"


def test_synthetic_tx2_variants() -> None:
    old, new = one(TX2_OLD), one(TX2_NEW)
    assert old.loads == {"cpu": pytest.approx(0.0875)}  # 4 online cores, offline ones ignored
    assert old.freqs_hz == {"cpu": 2_035_000_000}
    assert new.freqs_hz == {"cpu": 2_035_000_000, "emc": 1_866_000_000, "gpu": 1_300_000_000}
    assert new.loads["emc"] == 0.12 and new.loads["gpu"] == 0.45
    assert old.temps_c["board"] == 33.0 and old.temps_c["tdiode"] == 36.25 and "pmic" not in old.temps_c
    assert old.power_w == 4.0
    assert tegrastats.parse_text(TX2_OLD, "x").board_hint == "jetson-tx2"


def test_synthetic_xavier_nx_jp4_and_jp5() -> None:
    jp4 = one(NX_JP4)
    assert jp4.power_w == 6.0 and jp4.freqs_hz["gpu"] == 510_000_000 and jp4.loads["cpu"] == 0.45
    text = f"10-02-2025 08:00:00 {NX_JP5}\n10-02-2025 08:00:02 {NX_JP5}\n"
    log = tegrastats.parse_text(text, "nx.log")
    assert [s.t_s for s in log.samples] == [0.0, 2.0] and log.board_hint == "jetson-xavier-nx"
    jp5 = log.samples[0]
    assert jp5.freqs_hz == {"cpu": 1_190_000_000} and jp5.loads == {"cpu": 0.75, "emc": 0.05, "gpu": 0.5}
    assert jp5.rails_w == {"VDD_IN": 9.0, "VDD_CPU_GPU_CV": 4.0, "VDD_SOC": 1.5}


def test_synthetic_orin_family() -> None:
    agx = tegrastats.parse_text(f"08-14-2025 15:00:00 {AGX_ORIN}\n", "orin.log")
    s = agx.samples[0]
    assert agx.board_hint == "jetson-agx-orin"
    assert s.freqs_hz == {"cpu": 2_201_000_000, "emc": 3_199_000_000, "gpu": 1_300_000_000}
    assert "cv0" not in s.temps_c and s.temps_c["soc0"] == 56.25
    assert s.power_w == 20.0
    assert "cv0: offline marker (-256 °C) not imported" in agx.notes
    nano = tegrastats.parse_text(ORIN_NANO, "orin-nano.log")
    assert nano.board_hint == "jetson-orin-nano" and nano.samples[0].freqs_hz["gpu"] == 624_000_000
    assert nano.samples[0].power_w == 4.807


def test_synthetic_agx_xavier_bare_rail_names() -> None:
    log = tegrastats.parse_text(AGX_XAVIER, "xavier.log")
    s = log.samples[0]
    assert log.board_hint == "jetson-agx-xavier"
    assert s.rails_w == {"GPU": 0.155, "CPU": 0.311, "SOC": 0.932, "CV": 0.0, "VDDRQ": 0.155, "SYS5V": 1.849}
    assert s.power_w == 3.402 and s.temps_c["board"] == 35.0


def test_synthetic_jetpack7_thor() -> None:
    text = f"08-20-2025 10:00:00 {THOR_BUSY}\n08-20-2025 10:00:01 {THOR_IDLE}\n"
    log = tegrastats.parse_text(text, "thor.log")
    assert log.board_hint == "jetson-agx-thor" and log.skipped_lines == 0
    busy, idle = log.samples
    assert busy.temps_c == {"cpu": 52.968, "tj": 55.5, "gpu": 54.125, "soc012": 50.5}  # current, not max
    assert busy.freqs_hz == {"cpu": 2_601_000_000, "emc": 4_266_000_000, "gpu": 1_575_000_000}
    assert busy.loads == {"cpu": 0.25, "emc": 0.3, "gpu": 0.6}
    assert busy.rails_w == {"VDD_GPU": -0.4, "VDD_CPU_SOC_MSS": 9.0, "VIN_SYS_5V0": 6.0, "VIN": 30.0}
    assert busy.power_w == 30.0
    assert idle.t_s == 1.0 and idle.freqs_hz == {
        "cpu": 2_601_000_000,
        "emc": 4_266_000_000,
        "gpu": 1_575_000_000,
    }
    assert idle.loads == {"cpu": pytest.approx(0.05)} and idle.power_w == 28.9


def test_synthetic_tx1_single_clock_after_bracket() -> None:
    s = one(TX1_OLD)
    assert s.freqs_hz == {"cpu": 1_734_000_000, "emc": 1_600_000_000, "gpu": 998_000_000}
    assert s.loads == {"cpu": 0.2, "emc": 0.05, "gpu": 0.4}
    assert s.temps_c == {} and s.power_w is None and s.rails_w == {}


def test_broken_lines_are_counted_not_fatal() -> None:
    text = "\n".join(
        [
            TX2_NEW,
            "tegrastats: command not found",
            "RAM 2700/7850MB (lfb 5x4MB) CPU [10%@2035,5%@20",  # truncated inside the CPU block
            "RAM 2700/7850MB (lfb 5x4MB) CPU [abc@2035] BCPU@40C",  # unreadable core entry
            "",
            TX2_OLD,
        ]
    )
    log = tegrastats.parse_text(text, "broken.log")
    assert log.skipped_lines == 3 and [s.t_s for s in log.samples] == [0.0, 1.0]
    half = tegrastats.parse_text(text, "broken.log", interval_s=0.5)
    assert [s.t_s for s in half.samples] == [0.0, 0.5]


def test_timestamp_going_backwards_is_skipped() -> None:
    stamps = ["10-02-2025 08:00:00", "10-02-2025 08:00:02", "10-02-2025 07:59:59", "10-02-2025 08:00:03"]
    log = tegrastats.parse_text("\n".join(f"{t} {NX_JP5}" for t in stamps), "back.log")
    assert [s.t_s for s in log.samples] == [0.0, 2.0, 3.0] and log.skipped_lines == 1
    assert "1 line(s) with a timestamp earlier than the previous line skipped" in log.notes


def test_no_tegrastats_lines_is_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\nworld\n", encoding="utf-8")
    with pytest.raises(LogFormatError) as exc:
        parse_log(path, fmt="tegrastats")
    msg = str(exc.value)
    assert msg == f"{path}: no tegrastats lines found; pass --format explicitly or check the file"
    assert "\n" not in msg and isinstance(exc.value, ThermogovError)
