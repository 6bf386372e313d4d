"""The importer's gaps left by session 26w, closed in session 27 (docs/importing.md "Session
27w"); each text is synthetic, in the shape of a real log, with this test's own numbers.

* a Python logger's f-string that lost its separators, ``Date: <stamp>Time: ,Temp: 69.6`` (the
  stamp glued to the next label, an empty ``Time:``, the reading after a bare comma), was no
  record of any reader: "not a recognised log";
* the same logger's ``Date: <stamp>,Time: 67.2`` (the temperature labelled ``Time``) was "not a
  recognised log", naming neither the label nor a fix;
* a loop that prints its date once every few records was read at an even pace of ``--interval``
  (1 s when not given), its dates set aside: a loop of 10 s passes came out ten times too fast.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov.importers import parse_log
from thermogov.importers.stamps import parse_stamp
from thermogov.interfaces import LogFormatError


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(ln + "\n" for ln in lines))
    return path


@pytest.mark.parametrize(
    "shape",
    [
        "Date: 14-03-2025 09:21:{s:02d}Time: ,Temp: {t:.3f}",  # glued, empty label, bare comma
        "Date: 14-03-2025 09:21:{s:02d},Temp: {t:.3f}",  # a comma after the stamp
        "[2025-03-14 09:21:{s:02d}]CPU temp: {t:.1f}'C",  # glued after a bracket
    ],
)
def test_a_stamp_glued_to_its_label_is_read(tmp_path: Path, shape: str) -> None:
    temps = [57.125 - 0.5 * k for k in range(9)]
    seconds = [3 * k + (1 if k > 4 else 0) for k in range(9)]  # one pass a second late
    path = _write(
        tmp_path / "cpu_temp.csv", [shape.format(s=s, t=t) for s, t in zip(seconds, temps, strict=True)]
    )
    log = parse_log(path)
    assert log.fmt == "labelled"
    assert [s.t_s for s in log.samples] == [float(s - seconds[0]) for s in seconds]
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(temps, abs=0.051)
    assert log.skipped_lines == 0


def test_a_temperature_under_a_label_naming_nothing_is_refused_naming_it(tmp_path: Path) -> None:
    lines = [f"Date: 14-03-2025 09:20:{k:02d},Time: {58.5 - 0.25 * k:.3f}" for k in range(7)]
    path = _write(tmp_path / "cpu_temp.csv", lines)
    line = one_line_error(thermogov("import", str(path), "--out", str(tmp_path / "o")), "'Time'")
    assert "7 of the first 7 lines" in line and "not read by guess" in line
    assert "sed 's/Time:/Temp:/' FILE" in line
    assert not (tmp_path / "o").exists()
    with pytest.raises(LogFormatError, match=r"bare number under 'Time'"):
        parse_log(path, "labelled")
    # renamed as the message says, it reads
    _write(path, [ln.replace("Time:", "Temp:") for ln in lines])
    log = parse_log(path)
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([58.5 - 0.25 * k for k in range(7)])
    assert [s.t_s for s in log.samples] == [float(k) for k in range(7)]


def test_a_label_with_a_slash_gets_a_sed_that_works(tmp_path: Path) -> None:
    lines = [f"2025-03-14 09:20:{k:02d}: T/C: {58.5 - 0.25 * k:.3f}" for k in range(5)]
    path = _write(tmp_path / "t.log", lines)
    with pytest.raises(LogFormatError, match=r"sed 's\|T/C:\|Temp:\|' FILE"):
        parse_log(path)


def _paced(starts: list[str], every: int, tail: int) -> list[str]:
    lines: list[str] = []
    k = 0
    for g, date in enumerate(starts):
        lines.append(date)
        for _ in range(every if g < len(starts) - 1 else tail):
            lines += [f"CPU Temp: {50.0 + 0.25 * k:.2f}'C", f"CPU Freq: {1500 - 100 * (k % 3)} MHz"]
            k += 1
    return lines


def test_dates_every_few_records_spread_the_records_over_their_span(tmp_path: Path) -> None:
    # `while :; do date; for i in 1..6; do echo "CPU Temp: ..."; ...; sleep 10; done; done`:
    # one date every 6 records; a pass takes 10 s, one group 11 s (the commands were slow)
    starts = [
        "Fri 14 Mar 09:00:00 UTC 2025",
        "Fri 14 Mar 09:01:00 UTC 2025",
        "Fri 14 Mar 09:02:06 UTC 2025",
        "Fri 14 Mar 09:03:06 UTC 2025",
    ]
    path = _write(tmp_path / "temps.txt", _paced(starts, 6, 4))
    log = parse_log(path)
    assert log.fmt == "labelled"
    times = [s.t_s for s in log.samples]
    want = [10.0 * k for k in range(6)] + [60.0 + 11.0 * k for k in range(6)]
    want += [126.0 + 10.0 * k for k in range(6)] + [186.0 + (186.0 / 18) * k for k in range(4)]
    assert times == pytest.approx(want)
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([50.0 + 0.25 * k for k in range(22)])
    assert [s.freqs_hz["cpu"] for s in log.samples][:3] == [1_500_000_000, 1_400_000_000, 1_300_000_000]
    note = next(n for n in log.notes if "date line(s) for 22 records" in n)
    assert "one every 6 records" in note and "10-11 s a record" in note and "3 record(s)" in note
    assert log.skipped_lines == 0


def test_the_date_after_its_records_counts_the_same(tmp_path: Path) -> None:
    # the loop prints its records, then the date: the first group is before the first date
    lines: list[str] = []
    k = 0
    for m in range(4):
        for _ in range(5):
            lines.append(f"CPU Temp: {50.0 + 0.25 * k:.2f}'C")
            k += 1
        lines.append(f"Fri 14 Mar 09:0{m}:50 UTC 2025")
    times = [s.t_s for s in parse_log(_write(tmp_path / "t.txt", lines)).samples]
    assert len(times) == 20
    assert times == pytest.approx([12.0 * k for k in range(20)])


@pytest.mark.parametrize(
    ("counts", "why"),
    [
        ((6, 4, 6, 3), "uneven counts"),  # no loop's shape: the dates are no pace
        ((6, 6), "two dates"),  # one span: its evenness cannot be seen
    ],
)
def test_dates_at_uneven_counts_keep_the_even_pace(tmp_path: Path, counts: tuple[int, ...], why: str) -> None:
    lines: list[str] = []
    k = 0
    for g, n in enumerate(counts):
        lines.append(f"Fri 14 Mar 09:0{g}:00 UTC 2025")
        for _ in range(n):
            lines.append(f"CPU Temp: {50.0 + 0.25 * k:.2f}'C")
            k += 1
    log = parse_log(_write(tmp_path / "t.txt", lines), interval_s=10.0)
    assert [s.t_s for s in log.samples] == [10.0 * i for i in range(k)], why
    assert any("the records read at an even pace" in n for n in log.notes), log.notes


def test_the_five_shapes_of_one_file_are_still_refused_naming_the_first_part(tmp_path: Path) -> None:
    # a logger whose author changed the format five times in one file: now four of the five
    # shapes read by themselves, but the file as a whole is still refused, naming where to split
    lines = [f"14-03-2025 09:10:{k:02d},{55.5 + 0.125 * k:.3f}" for k in range(12)]
    lines += [f"Date: 14-03-2025 09:20:{k:02d},Time: {56.5 - 0.25 * k:.3f}" for k in range(6)]
    lines += [f"Date: 14-03-2025 09:21:{k:02d}Time: ,Temp: {57.5 - 0.25 * k:.3f}" for k in range(6)]
    lines += [f"Date: 14-03-2025 09:22:{k:02d} Temp: {58.5 - 0.25 * k:.3f}" for k in range(6)]
    lines += [f"Date: 14-03-2025 09:23:{k:02d} Temp: {59.5 - 0.5 * k:.1f}°C" for k in range(6)]
    path = _write(tmp_path / "cpu_temp.csv", lines)
    line = one_line_error(thermogov("import", str(path), "--out", str(tmp_path / "o")), "lines 1-12")
    assert "format changes" in line and "6 other" in line and "like line 19" in line
    # the labelled parts, split off, read: 18 records
    _write(path, lines[18:])
    assert len(parse_log(path).samples) == 18


def test_a_date_at_host_line_and_arrowed_labels(tmp_path: Path) -> None:
    # `while true; do echo "$(date) @ $(hostname)"; echo "GPU => $(vcgencmd measure_temp)" | sed
    # 's/temp=//'; echo "CPU => $((cpu/1000))'C"; sleep 2; done`: was "not a recognised log"
    lines: list[str] = []
    for k in range(6):
        lines += [
            f"Sun Mar 16 09:00:{2 * k:02d} UTC 2025 @ my-pi4",
            f"GPU => {48.5 + k:.1f}'C",
            f"CPU => {50 + k}'C",
        ]
    log = parse_log(_write(tmp_path / "TemperatureReport-16-03-2025.csv", lines))
    assert log.fmt == "labelled"
    assert [s.t_s for s in log.samples] == [2.0 * k for k in range(6)]
    assert [s.temps_c for s in log.samples] == [{"gpu": 48.5 + k, "cpu": 50.0 + k} for k in range(6)]


def test_an_iso_basic_date_before_a_vcgencmd_reading(tmp_path: Path) -> None:
    # `TODAY=$(date +%Y%m%dT%H:%M:%S); echo "$TODAY,$(vcgencmd measure_temp)" >> $CSV` from cron,
    # its first line replaced by a header: the stamps were no time ("no timestamps: 1 s assumed")
    lines = ["DATETIME,TEMPERATURE"] + [
        f"20250316T09:{5 * k:02d}:00,temp={47.2 + 0.5 * k:.1f}'C" for k in range(6)
    ]
    log = parse_log(_write(tmp_path / "20250316-pi01-data_temperature_output.csv", lines))
    assert [s.t_s for s in log.samples] == [300.0 * k for k in range(6)]
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([47.2 + 0.5 * k for k in range(6)])
    assert not any("no timestamps" in n for n in log.notes), log.notes


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("20250316T09:01:00", 1742115660.0),
        ("20250316T090100", 1742115660.0),
        ("20250316T09:01:00+01:00", 1742112060.0),
        ("20251316T09:01:00", None),  # month 13
        ("20250316 09:01:00", None),  # no T: an 8-digit number beside a clock is no date
    ],
)
def test_iso_basic_dates(text: str, want: float | None) -> None:
    stamp = parse_stamp(text)
    assert (stamp[0] if stamp else None) == want


def _cut_tegrastats(cores: int) -> list[str]:
    # a logger that greps fields out of each tegrastats line and joins them with commas, the
    # per-core `CPU [..]` list among them unquoted
    lines = ["time,RAM_usage,SWAP_usage,CPU_usage,EMC_FREQ,GR3D_FREQ,GPU_temp,CPU_temp"]
    for k in range(6):
        usage = ",".join(f"{(3 * k + c) % 40}%@1479" for c in range(cores))
        lines.append(
            f"2025-03-16 09:00:{5 * k:02d},2100/3964MB,0/1982MB,{usage},0%,{5 * k}%,{41.5 + k}C,{44.0 + k}C"
        )
    return lines


@pytest.mark.parametrize("cores", [4, 6])
def test_an_unquoted_list_field_is_refused_naming_the_columns_by_position(tmp_path: Path, cores: int) -> None:
    path = _write(tmp_path / "tegra_stats_log.csv", _cut_tegrastats(cores))
    last = 8 + cores - 1
    line = one_line_error(thermogov("import", str(path), "--out", str(tmp_path / "o")), f"has {last}:")
    assert f"cells #4-#{3 + cores}" in line and "'CPU_usage'" in line
    assert f"--columns t=1,temp.gpu={last - 1},temp.cpu={last}" in line
    assert not (tmp_path / "o").exists()
    # mapped as the message says, the GPU's temperature is the gpu's, not the cpu's
    log = parse_log(path, columns=f"t=1,temp.gpu={last - 1},temp.cpu={last}")
    assert [s.temps_c for s in log.samples] == [{"gpu": 41.5 + k, "cpu": 44.0 + k} for k in range(6)]
    assert [s.t_s for s in log.samples] == [5.0 * k for k in range(6)]


def test_a_title_line_or_side_by_side_zones_are_no_list_field(tmp_path: Path) -> None:
    # a title with commas before a header-less table of three zones side by side: read as before
    rows = [
        f"2025-03-16 09:00:{5 * k:02d},{45.0 + k:.1f}'C,{46.0 + k:.1f}'C,{47.0 + k:.1f}'C" for k in range(6)
    ]
    log = parse_log(_write(tmp_path / "zones.csv", ["Pi 4, fan off, run 2", *rows]))
    assert len(log.samples) == 6
    assert sorted(log.samples[0].temps_c.values()) == [45.0, 46.0, 47.0]
