"""Adversarial files through the installed ``thermogov import``: the findings of the fuzz
campaign in docs/importing.md ("Adversarial inputs"), each kept as a case.

A file that is no log (a FIFO nobody writes, a device) is refused in one line with exit 2 and
nothing written; a log whose time column holds a NaN, an infinity or a garbled stamp imports
with those rows dropped and said, never with a duration of ``inf`` or 10^300 s; time columns in
µs or ns (stated in the header, or an epoch of that magnitude) read as seconds.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

ROWS = 40  # one row a second: 0..39 s


def _table(path: Path, times: list[str], header: str = "time,temp,freq,load") -> Path:
    rows = [f"{t},{45 + 0.2 * k:.1f},{1500 - 100 * (k % 5)},{50 + 10 * (k % 3)}" for k, t in enumerate(times)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _imported(path: Path, out: Path) -> dict:
    p = thermogov("import", str(path), "--out", str(out), "--json")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    return json.loads(p.stdout)


def test_a_fifo_nobody_writes_is_refused_instead_of_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    p = thermogov("import", str(fifo), "--out", str(tmp_path / "out"), timeout=60)
    one_line_error(p, "log.fifo")
    assert not (tmp_path / "out").exists()


def test_a_device_is_refused_as_no_regular_file(tmp_path: Path) -> None:
    p = thermogov("import", "/dev/zero", "--out", str(tmp_path / "out"), timeout=60)
    assert "not a regular file" in one_line_error(p, "/dev/zero")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("garbled", "at"),
    [("1e300", 20), ("1e400", 20), ("-1e300", 0), ("inf", ROWS - 1)],
    ids=["huge stamp mid-log", "stamp overflowing to inf", "huge negative first stamp", "inf last"],
)
def test_a_garbled_time_drops_its_row_not_the_log(tmp_path: Path, garbled: str, at: int) -> None:
    times = [str(k) for k in range(ROWS)]
    times[at] = garbled
    info = _imported(_table(tmp_path / "log.csv", times), tmp_path / "out")
    s = info["summary"]
    assert math.isfinite(s["duration_s"])
    assert s["samples"] == ROWS - 1  # only the garbled row is lost, not every row after it
    assert s["duration_s"] == (ROWS - 2 if at in (0, ROWS - 1) else ROWS - 1)
    assert any("garbled" in n or "NaN, infinite" in n for n in info["notes"]), info["notes"]


def test_an_infinite_time_in_a_stressberry_list_is_dropped(tmp_path: Path) -> None:
    log = tmp_path / "run.dat"
    log.write_text(
        "# This file was created by stressberry v0.3.1 on 2020-06-19 12:55:06\n"
        "name: adversarial\n"
        "time: [0.0, 2.0, 4.0, 6.0, 8.0, inf]\n"
        "temperature: [40.0, 40.5, 45.0, 46.0, 46.5, 47.0]\n"
        "cpu frequency: [600.0, 600.0, 1500.0, 1500.0, 1500.0, 1500.0]\n"
        "ambient: []\n",
        encoding="utf-8",
    )
    s = _imported(log, tmp_path / "out")["summary"]
    assert (s["samples"], s["duration_s"]) == (5, 8.0)


@pytest.mark.parametrize(
    ("header", "scale", "offset", "unit"),
    [
        ("time_ns,temp,freq,load", 10**9, 0, "nanoseconds"),
        ("time_us,temp,freq,load", 10**6, 0, "microseconds"),
        ("time,temp,freq,load", 10**9, 1_733_300_000 * 10**9, "epoch nanoseconds"),
        ("time,temp,freq,load", 10**6, 1_733_300_000 * 10**6, "epoch microseconds"),
    ],
    ids=["ns named", "us named", "epoch ns", "epoch us"],
)
def test_sub_millisecond_time_columns_read_as_seconds(
    tmp_path: Path, header: str, scale: int, offset: int, unit: str
) -> None:
    times = [str(offset + k * scale) for k in range(ROWS)]
    info = _imported(_table(tmp_path / "log.csv", times, header), tmp_path / "out")
    assert info["summary"]["duration_s"] == ROWS - 1
    assert any(unit in n for n in info["notes"]), info["notes"]


LABELLED = "".join(
    f"Timestamp: 2024-12-04 10:00:{k:02d}\nTemperatura: {44 + 0.5 * k:.1f}°C\nFrequenza CPU: {600 + 100 * k} MHz\n"
    for k in range(6)
)


@pytest.mark.parametrize(
    "encoding",
    ["utf-16", "utf-16-le", "utf-16-be", "latin-1"],
    ids=["utf-16 BOM", "utf-16le", "utf-16be", "latin-1"],
)
def test_a_log_saved_in_another_text_encoding_imports_like_utf8(tmp_path: Path, encoding: str) -> None:
    """Windows PowerShell's ``>`` writes UTF-16LE; an ISO-8859-1 locale writes ° as one byte."""
    (tmp_path / "utf8.log").write_text(LABELLED, encoding="utf-8")
    (tmp_path / "other.log").write_bytes(LABELLED.encode(encoding))
    want = _imported(tmp_path / "utf8.log", tmp_path / "a")["summary"]
    got = _imported(tmp_path / "other.log", tmp_path / "b")["summary"]
    assert (got["samples"], got["max_fused_c"], got["duration_s"]) == (
        want["samples"],
        want["max_fused_c"],
        want["duration_s"],
    )
    assert want["samples"] == 6


def test_random_bytes_stay_binary_and_are_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.log"
    junk.write_bytes(bytes(range(256)) * 8)
    p = thermogov("import", str(junk), "--out", str(tmp_path / "out"))
    assert "binary" in one_line_error(p, "junk.log")
    assert not (tmp_path / "out").exists()


KELVIN_ROWS = "".join(f"{k},{318.15 + 0.5 * k:.2f},{600 + 100 * k}\n" for k in range(8))


@pytest.mark.parametrize(
    ("header", "extra"),
    [
        ("time,temp_K,freq", ()),
        ("time,Temp (K),freq", ()),
        ("time,temp,freq", ("--columns", "t=time,temp=temp:K,freq=freq")),
    ],
    ids=["temp_K", "Temp (K)", "--columns :K"],
)
def test_a_stated_kelvin_column_reads_as_celsius(tmp_path: Path, header: str, extra: tuple[str, ...]) -> None:
    log = tmp_path / "k.csv"
    log.write_text(header + "\n" + KELVIN_ROWS, encoding="utf-8")
    p = thermogov("import", str(log), "--out", str(tmp_path / "out"), "--json", *extra)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["summary"]["max_fused_c"] == pytest.approx(318.15 + 3.5 - 273.15)


def test_an_unstated_kelvin_column_is_refused_with_the_kelvin_hint(tmp_path: Path) -> None:
    """Values of 233..423 are also where a clock read as a temperature lands: never guessed."""
    log = tmp_path / "k.csv"
    log.write_text("time,temp,freq\n" + KELVIN_ROWS, encoding="utf-8")
    p = thermogov("import", str(log), "--out", str(tmp_path / "out"))
    assert "temp=temp:K" in one_line_error(p, "k.csv")
    assert not (tmp_path / "out").exists()
