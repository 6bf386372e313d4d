"""Session 33w: what 32w left (a cut stressberry list), and formats users hand us (issue 10).

* A stressberry file cut inside a list (a copy taken while it was written) is read to the list's
  last whole item, said; the item after the last separator may be a number cut short and is
  dropped.  It was refused.
* A sheet's serial dates (days since 1899-12-30, a date cell saved without its format) in a
  table's time column were read as seconds: every row at t = 0.
* Guards, read right on the base as here: a tegrastats log compressed with gzip/xz/bzip2,
  JetPack 6 tegrastats fields (``VDD_IN``, ``VIN_SYS_5V0``, ``CV0@-256C``, ``SOC2@``, ``tj@``),
  a Windows PowerShell redirect (UTF-16 LE with its BOM), an Excel CSV (UTF-8 BOM, ``;``, decimal
  commas, CR LF) and a jetson-stats 4.x CSV (``Temp tj``, ``Power TOT``, ``OFF`` cores).
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.importers.hostile import truncated_last_line
from tests.importers.test_wild_s31 import SAMPLES
from thermogov.importers import parse_log
from thermogov.interfaces import LogFormatError

N = 20


def _stressberry_time_last() -> str:
    lines = SAMPLES["stressberry.dat"][0]()
    time_list = next(ln for ln in lines if ln.startswith("time: ["))
    return "\n".join([*(ln for ln in lines if ln != time_list), time_list]) + "\n"  # time last


def test_a_stressberry_list_cut_mid_item_is_read_to_its_last_whole_item(tmp_path: Path) -> None:
    body = _stressberry_time_last()
    path = tmp_path / "cut.dat"
    path.write_bytes(truncated_last_line(body.encode()))  # `time: [0.050, ..., 190.0` cut in half
    log = parse_log(path)  # refused before
    kept = body.split("time: [")[1][: len(path.read_text().split("time: [")[1])].count(", ")
    assert len(log.samples) == kept  # the item after the last separator dropped
    assert [s.t_s for s in log.samples] == pytest.approx([10.0 * i for i in range(kept)])
    note = next(n for n in log.notes if n.startswith("the stressberry 'time' list is cut"))
    assert f"read to its last whole item ({kept} items), its last item" in note
    assert any("time has" in n and "extra entries dropped" in n for n in log.notes)


def test_a_stressberry_list_cut_at_a_separator_keeps_every_item(tmp_path: Path) -> None:
    lines = SAMPLES["stressberry.dat"][0]()
    time_list = next(ln for ln in lines if ln.startswith("time: ["))
    items = time_list.removeprefix("time: [").removesuffix("]").split(", ")
    cut = "time: [" + ", ".join(items[:10]) + ",\n  " + ", ".join(items[10:25]) + ","  # a line end lost
    path = tmp_path / "cut.dat"
    path.write_text("\n".join([*(ln for ln in lines if ln != time_list), cut]))
    log = parse_log(path)
    assert len(log.samples) == 25 and log.samples[-1].t_s == pytest.approx(240.0)
    assert any("read to its last whole item (25 items)" in n and "dropped" not in n for n in log.notes)


def test_a_stressberry_file_cut_before_a_whole_item_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "cut.dat"
    path.write_text(_stressberry_time_last().split("time: [")[0] + "time: [0.0")
    with pytest.raises(LogFormatError, match=r"the stressberry 'time' list is cut .* no whole item"):
        parse_log(path)


def _sheet(cells: Callable[[int], str]) -> bytes:
    rows = "".join(
        f"{cells(i)};{48 + i / 10:.1f};1500\r\n".replace(
            f"{48 + i / 10:.1f}", f"{48 + i / 10:.1f}".replace(".", ",")
        )
        for i in range(N)
    )
    return codecs.BOM_UTF8 + ("Time;CPU Temperature (°C);CPU Clock (MHz)\r\n" + rows).encode()


def test_a_time_column_of_spreadsheet_serial_dates_is_read_as_days(tmp_path: Path) -> None:
    path = tmp_path / "sheet.csv"
    path.write_bytes(_sheet(lambda i: f"{46000.5 + 2 * i / 86400:.8f}".replace(".", ",")))  # 2 s a row
    log = parse_log(path)  # every row at t = 0 before
    assert [s.t_s for s in log.samples] == pytest.approx([2.0 * i for i in range(N)], abs=1e-3)
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([48 + i / 10 for i in range(N)])
    assert any("spreadsheet serial dates" in n for n in log.notes)


@pytest.mark.parametrize(
    "cell",
    [lambda i: f"{30000 + i}", lambda i: f"{30000 + 0.5 * i:.1f}".replace(".", ",")],
    ids=["whole", "half-second"],
)
def test_seconds_in_the_serial_date_range_stay_seconds(tmp_path: Path, cell: Callable[[int], str]) -> None:
    # guard: a counter of whole numbers, or seconds at 0.5 s a row, is no sheet's date
    path = tmp_path / "secs.csv"
    path.write_bytes(_sheet(cell))
    log = parse_log(path)
    last, first = (float(cell(k).replace(",", ".")) for k in (N - 1, 0))
    assert log.samples[-1].t_s == pytest.approx(last - first)
    assert not any("serial dates" in n for n in log.notes)


def _jp6(i: int) -> str:
    return (
        f"12-07-2026 12:00:{i:02d} RAM 2400/7620MB (lfb 2x4MB) SWAP 0/3810MB (cached 0MB) "
        "CPU [1%@729,5%@729,0%@729,3%@729,off,off] EMC_FREQ 0%@2133 GR3D_FREQ 7%@[305,0] NVENC off "
        f"NVDEC off NVJPG off VIC off OFA off APE 200 CV0@-256C CPU@{45 + i / 10:.3f}C SOC2@43.5C "
        f"SOC0@44.1C CV1@-256C GPU@-256C tj@{45.5 + i / 10:.3f}C SOC1@43C CV2@-256C "
        f"VDD_IN {4000 + 10 * i}mW/4000mW VDD_CPU_GPU_CV 480mW/480mW VDD_SOC 1441mW/1441mW"
    )


_JP6 = ("\n".join(_jp6(i) for i in range(N)) + "\n").encode()


@pytest.mark.parametrize(
    "name, data",
    [
        ("tg.log", _JP6),
        ("tg.log.gz", gzip.compress(_JP6)),
        ("tg.log.xz", lzma.compress(_JP6)),
        ("tg.log.bz2", bz2.compress(_JP6)),
        ("tg-ps.log", codecs.BOM_UTF16_LE + _JP6.replace(b"\n", b"\r\n").decode().encode("utf-16-le")),
    ],
)
def test_jetpack6_tegrastats_plain_compressed_or_utf16_reads_the_same(
    tmp_path: Path, name: str, data: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    log = parse_log(path)
    assert log.fmt == "tegrastats" and len(log.samples) == N
    s = log.samples[5]
    assert s.temps_c == {"cpu": 45.5, "soc2": 43.5, "soc0": 44.1, "tj": 46.0, "soc1": 43.0}  # no -256
    assert s.power_w == pytest.approx(4.05)  # VDD_IN, the input rail, not a sum of rails
    assert s.freqs_hz["gpu"] == 305_000_000 and s.loads["gpu"] == pytest.approx(0.07)


def test_an_excel_csv_and_a_powershell_redirect_read_their_values(tmp_path: Path) -> None:
    excel = tmp_path / "excel.csv"
    excel.write_bytes(_sheet(lambda i: f"07.12.2026 12:00:{i:02d}"))
    ps = tmp_path / "ps.csv"
    text = "time,temp,freq\r\n" + "".join(f"{i},{48 + i / 10:.1f},1500\r\n" for i in range(N))
    ps.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    for path in (excel, ps):
        log = parse_log(path)
        assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([48 + i / 10 for i in range(N)])
        assert {s.freqs_hz["cpu"] for s in log.samples} == {1_500_000_000}
        assert [s.t_s for s in log.samples] == pytest.approx(list(range(N)))


def test_a_jetson_stats_4_csv_reads_its_columns(tmp_path: Path) -> None:
    head = (
        "time,uptime,CPU1,CPU2,CPU3,CPU4,CPU5,CPU6,RAM,SWAP,EMC,GPU,APE,NVENC,NVDEC,Fan pwmfan0,Temp cpu,"
        "Temp cv0,Temp gpu,Temp soc0,Temp tj,Power VDD_CPU_GPU_CV,Power VDD_SOC,Power TOT,jetson_clocks,nvp model"
    )
    rows = [
        f'2026-12-07 12:00:{i:02d}.000100,"1 day, 2:03:{i:02d}.5",{i},5,3,2,OFF,OFF,0.31,0.0,4,{2 * i},OFF,OFF,'
        f"OFF,30.2,{45 + i / 10:.2f},-256.0,-256.0,44.0,{45.5 + i / 10:.2f},480,1441,{4000 + 10 * i},OFF,15W"
        for i in range(N)
    ]
    path = tmp_path / "jtop4.csv"
    path.write_text("\n".join([head, *rows]) + "\n")
    log = parse_log(path)
    assert log.fmt == "jtop" and len(log.samples) == N
    s = log.samples[4]
    assert s.temps_c == {"cpu": 45.4, "soc0": 44.0, "tj": 45.9}
    assert s.loads["cpu"] == pytest.approx((4 + 5 + 3 + 2) / 400) and s.loads["gpu"] == pytest.approx(0.08)
    assert s.power_w == pytest.approx(4.04) and s.rails_w == {"VDD_CPU_GPU_CV": 0.48, "VDD_SOC": 1.441}
    assert s.t_s == pytest.approx(4.0)


def test_a_column_named_as_seconds_is_never_read_as_serial_dates(tmp_path: Path) -> None:
    # guard: a 1 kHz logger's monotonic seconds, 12.5 h after boot, fit the values' rule
    path = tmp_path / "power.csv"
    path.write_text(
        "elapsed,temp\n" + "".join(f"{45000 + i / 1000:.3f},{48 + i / 10:.1f}\n" for i in range(N))
    )
    log = parse_log(path)
    assert log.samples[-1].t_s == pytest.approx((N - 1) / 1000)
    assert not any("serial dates" in n for n in log.notes)
