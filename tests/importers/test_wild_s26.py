"""The importer's known gaps left by session 25w, closed in session 26 (docs/importing.md
"Session 26w"); each text is synthetic, in the shape of a real log, with this test's own numbers.

* a table of 2 rows (a ``$(date)<TAB>temp`` log) was "not a recognised log", naming no fix;
* a loop counter column (``sec`` 0, 1, 2 ...) between a ``date`` line before the header and one
  after the last row was taken as seconds although the dates span more (each pass of the loop
  took its sleep and the commands' time);
* a file whose author changed the line format midway was read as labelled records from the part
  in that shape, every line of the other parts dropped without a word (skipped 0, no note); a
  table with a labelled part before it called that part "title/prose";
* one banner ``date`` line before a loop of unstamped ``vcgencmd`` records (plus ``top`` output)
  kept the first record only: the others were skipped as having no time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov.importers import parse_log
from thermogov.importers.stamps import parse_stamp
from thermogov.interfaces import LogFormatError


@pytest.mark.parametrize(
    ("text", "temps", "last_t"),
    [
        (
            "Fri 11 Jul 2025 09:12:00 AM CEST\t51.3\nFri 11 Jul 2025 09:13:00 AM CEST\t52.8\n",
            [51.3, 52.8],
            60.0,
        ),
        ("t,temp\n0,44.6\n5,45.9\n", [44.6, 45.9], 5.0),
        ("time temp\n10:00:00 51.3\n10:00:30 52.8\n", [51.3, 52.8], 30.0),
    ],
)
def test_a_two_row_table_is_told_and_reads_with_format_csv(
    tmp_path: Path, text: str, temps: list[float], last_t: float
) -> None:
    path = tmp_path / "temp.log"
    path.write_text(text, encoding="utf-8")
    line = one_line_error(thermogov("import", str(path), "--out", str(tmp_path / "o")), "2 row(s)")
    assert "--format csv" in line and "temp.log" in line
    assert not (tmp_path / "o").exists()
    p = thermogov("import", str(path), "--format", "csv", "--out", str(tmp_path / "o2"), "--json")
    assert p.returncode == 0, p.stderr
    rows = (Path(json.loads(p.stdout)["run_dir"]) / "samples.csv").read_text().splitlines()[1:]
    assert [float(r.split(",")[2]) for r in rows] == temps
    assert float(rows[-1].split(",")[0]) == last_t


def _counter_log(start: str, end: str, rows: int) -> str:
    lines = [start, "sec,tmp,clk,thr"]
    for i in range(rows):
        lines.append(f"{i},{47 + min(i, 150) // 10},{1800 if 20 <= i < 160 else 600},0")
    return "\n".join([*lines, end]) + "\n"


def test_a_loop_counter_between_two_date_lines_takes_their_span(tmp_path: Path) -> None:
    # 200 passes (0..199) from 10:58:10 PM to 11:01:50 PM: 220 s, 1.1 s a pass
    path = tmp_path / "RUN.csv"
    path.write_text(_counter_log("Thu 08 May 2025 10:58:10 PM CEST", "Thu 08 May 2025 11:01:50 PM CEST", 200))
    log = parse_log(path)
    times = [s.t_s for s in log.samples]
    assert len(times) == 200
    assert times[1] == pytest.approx(1.1) and times[-1] == pytest.approx(199 * 1.1)
    assert any("loop counter" in n and "220 s" in n for n in log.notes), log.notes
    assert not any("taken as seconds" in n for n in log.notes)
    # where the dates agree with the counter (within 2 s), it stays seconds and the note says so
    path.write_text(_counter_log("Thu 08 May 2025 10:58:10 PM CEST", "Thu 08 May 2025 11:01:31 PM CEST", 200))
    log = parse_log(path)
    assert [s.t_s for s in log.samples][-1] == pytest.approx(199.0)
    assert any("taken as seconds" in n for n in log.notes)


def test_a_counter_of_minutes_between_date_lines_is_minutes(tmp_path: Path) -> None:
    # one row a minute, the counter 0..29, ISO date lines half an hour apart
    path = tmp_path / "slow.csv"
    path.write_text(_counter_log("2025-05-08 22:00:00", "2025-05-08 22:30:00", 30))
    times = [s.t_s for s in parse_log(path).samples]
    assert times[1] == pytest.approx(60.0) and times[-1] == pytest.approx(29 * 60.0)


def _mixed(parts: list[list[str]]) -> str:
    return "".join(ln + "\n" for part in parts for ln in part)


def test_a_file_that_changes_format_midway_names_the_lines(tmp_path: Path) -> None:
    table = [f"09-04-2025 18:{10 + k // 60:02d}:{k % 60:02d},{52.25 + 0.5 * k:.3f}" for k in range(10)]
    other = [f"Date: 09-04-2025 18:20:{k:02d},Time: {58.5 - 0.25 * k:.3f}" for k in range(6)]
    labelled = [f"Date: 09-04-2025 18:30:{k:02d} Temp: {61.5 - 0.5 * k:.1f}°C" for k in range(8)]
    path = tmp_path / "cpu_temp.csv"
    path.write_text(_mixed([table, other, labelled]))
    line = one_line_error(thermogov("import", str(path), "--out", str(tmp_path / "o")), "lines 1-10")
    assert "format changes" in line and "6 other" in line and "line 17" in line
    assert "sed -n '1,10p'" in line
    assert not (tmp_path / "o").exists()
    # the labelled part first, the table after it: read as the table, the labelled lines were
    # "title/prose" before it
    path.write_text(_mixed([labelled, table]))
    with pytest.raises(
        LogFormatError, match=r"lines 1-8 \('Date: 09-04-2025 18:30:00 Temp: 61.5°C'\), 8 lines"
    ):
        parse_log(path)
    # session 30w: 3 rows without a header before 8 labelled records are a part, named, not read
    path.write_text(_mixed([table[:3], labelled]))
    log = parse_log(path)
    assert len(log.samples) == 8
    assert any(n.startswith("lines 1-3 (a table of 3 row(s) without a header)") for n in log.notes)
    # session 28w: a shorter part in another format after the table is left out and said
    path.write_text(_mixed([table, labelled]))
    log = parse_log(path)
    assert len(log.samples) == 10
    assert any(n.startswith("lines 11-18 (8 lines like") and "sed -n '11,18p'" in n for n in log.notes)
    # each part, split as the message says, reads on its own
    for part, n in ((table, 10), (labelled, 8)):
        path.write_text(_mixed([part]))
        assert len(parse_log(path).samples) == n


def test_two_odd_lines_in_a_labelled_log_are_no_other_format(tmp_path: Path) -> None:
    labelled = [f"Date: 09-04-2025 18:30:{k:02d} Temp: {61.5 - 0.5 * k:.1f}°C" for k in range(8)]
    odd = ["09-04-2025 18:30:08,60.250", "09-04-2025 18:30:09,60.750"]
    path = tmp_path / "cpu_temp.log"
    path.write_text(_mixed([labelled[:4], odd, labelled[4:]]))
    assert len(parse_log(path).samples) == 8


def test_one_banner_date_before_a_loop_of_unstamped_records(tmp_path: Path) -> None:
    # `date >> LOG; for i in ...; do vcgencmd measure_temp >> LOG; top -b -n1 | head -n 4 >> LOG;
    # sleep 10; done`: one date line, then records with no time; all but the first were dropped
    lines = ["=== run 2 ===", "Sun  2 Mar 16:40:00 GMT 2025"]
    for k in range(7):
        lines += [
            f"temp={61.2 + 0.6 * k:.1f}'C",
            f"top - 16:40:{10 * k:02d} up 3:12,  1 user,  load average: 3.{k}1, 2.05, 1.10",
            f"%Cpu(s): {71 + k}.5 us,  1.5 sy,  0.0 ni, {26 - k}.0 id,  0.0 wa",
            "",
        ]
    path = tmp_path / "results.txt"
    path.write_text("\n".join(lines) + "\n")
    log = parse_log(path, interval_s=10.0)
    assert [s.t_s for s in log.samples] == [10.0 * k for k in range(7)]
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx(
        [61.2 + 0.6 * k for k in range(7)], abs=0.01
    )
    assert log.skipped_lines == 0
    assert any("1 date line(s) for 7 records" in n for n in log.notes), log.notes


def test_an_iso_stamp_with_a_literal_z_before_its_offset(tmp_path: Path) -> None:
    # `echo "$(date +'%FT%TZ%:z'),$(cat .../cpu*/cpufreq/scaling_cur_freq),$(cat .../temp)"`
    lines = ["TIMESTAMP,CPU_0_FREQ,CPU_1_FREQ,CPU_TEMP"]
    for k in range(6):
        f = 1_500_000 if 1 <= k <= 4 else 700_000
        lines.append(f"2025-02-03T08:00:{3 * k:02d}Z-05:00,{f},{f},{46_250 + 750 * k}")
    path = tmp_path / "cpu_log.csv"
    path.write_text("\n".join(lines) + "\n")
    log = parse_log(path)
    assert [s.t_s for s in log.samples] == [0.0, 3.0, 6.0, 9.0, 12.0, 15.0]
    assert [s.temps_c["cpu"] for s in log.samples] == pytest.approx([46.25 + 0.75 * k for k in range(6)])
    assert log.samples[1].freqs_hz["cpu"] == pytest.approx(1.5e9)

    assert parse_stamp("2025-02-03T08:00:01Z-05:00") == parse_stamp("2025-02-03T13:00:01Z")


def test_a_logger_that_added_a_column_midway(tmp_path: Path) -> None:
    # `date,temp,freq` rows, then the logger restarted with a load column: split on whitespace
    # (the date and the rest), the file was "no table of at least two columns found"
    lines = ["time,temp,freq"]
    lines += [f"2025-06-30 14:02:{k:02d},{48.5 + 0.2 * k:.1f},1400" for k in range(8)]
    lines += ["time,temp,load,freq"]
    lines += [f"2025-06-30 14:03:{k:02d},{52.5 + 0.1 * k:.1f},88,1800" for k in range(15)]
    path = tmp_path / "log.csv"
    path.write_text("\n".join(lines) + "\n")
    # session 28w: the two layouts joined by column name (was refused naming lines 2-9)
    log = parse_log(path)
    assert [s.freqs_hz["cpu"] for s in log.samples] == [1.4e9] * 8 + [1.8e9] * 15
    assert [s.loads.get("cpu") for s in log.samples] == [None] * 8 + [0.88] * 15
    assert any(n.startswith("lines 10-25: the header changes") for n in log.notes)
    # a whitespace table whose stamps carry a decimal-comma fraction stays a whitespace table
    path.write_text("".join(f"2025-06-30 14:02:{k:02d},125 {47 + k}.5 1500\n" for k in range(5)))
    log = parse_log(path)
    assert [s.temps_c["cpu"] for s in log.samples] == [47.5 + k for k in range(5)]
