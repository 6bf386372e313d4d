"""`vcgencmd` loops as people write them (session 12, docs/importing.md "Formats from the wild"):
each read to the values on its lines.  The lines are synthetic, in the shapes of the loops
named there; the numbers are this test's own."""

from __future__ import annotations

from pathlib import Path

from thermogov.importers import detect_text, parse_log


def _log(tmp_path: Path, text: str):
    path = tmp_path / "loop.log"
    path.write_text(text, encoding="utf-8")
    return parse_log(path)


def test_date_temp_clock_throttled_loop_keeps_the_clock(tmp_path: Path) -> None:
    """`date; measure_temp; measure_clock arm; get_throttled`: one temperature in four lines
    was taken for a `Label: value` log, which dropped every clock reading."""
    text = "".join(
        f"Tue Mar  5 14:0{i}:00 CET 2024\ntemp={t}'C\nfrequency(48)={f}\nthrottled={thr}\n"
        for i, (t, f, thr) in enumerate(
            [("51.2", 1800404352, "0x0"), ("63.8", 1800404352, "0x0"), ("80.6", 1500345728, "0x20002")]
        )
    )
    assert detect_text(text) == "vcgencmd"
    log = _log(tmp_path, text)
    assert [s.t_s for s in log.samples] == [0.0, 60.0, 120.0]
    assert [s.temps_c for s in log.samples] == [{"cpu": 51.2}, {"cpu": 63.8}, {"cpu": 80.6}]
    assert [s.freqs_hz for s in log.samples] == [
        {"cpu": 1800404352},
        {"cpu": 1800404352},
        {"cpu": 1500345728},
    ]


def test_several_readings_on_one_line_are_all_read(tmp_path: Path) -> None:
    """`echo "$(date +%T) $(vcgencmd measure_temp) $(vcgencmd measure_clock arm)"`: the clock
    after the temperature on the same line was dropped."""
    log = _log(
        tmp_path,
        "09:15:00 temp=44.0'C frequency(48)=600117184\n"
        "09:15:10 temp=58.4'C frequency(48)=2400033792\n"
        "09:15:20 temp=61.0'C frequency(48)=2400033792\n",
    )
    assert [(s.t_s, s.temps_c["cpu"], s.freqs_hz["cpu"]) for s in log.samples] == [
        (0.0, 44.0, 600117184),
        (10.0, 58.4, 2400033792),
        (20.0, 61.0, 2400033792),
    ]


def test_bracketed_stamp_with_label_words_before_the_reading(tmp_path: Path) -> None:
    """`[HH:MM:SS] CPU temp=...`: the stamp was not seen, and 1 s per reading assumed."""
    log = _log(
        tmp_path,
        "[07:00:00] CPU temp=40.1'C\n[07:00:05] CPU temp=42.9'C\n[07:00:10] CPU temp=44.4'C\n",
    )
    assert [s.t_s for s in log.samples] == [0.0, 5.0, 10.0]
    assert [s.temps_c["cpu"] for s in log.samples] == [40.1, 42.9, 44.4]
    assert not any("no timestamps" in n for n in log.notes)


def test_watch_capture_takes_the_time_from_its_title_line(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        "Every 5.0s: vcgencmd measure_temp     pi4: Wed Jun 12 08:00:00 2024\n\ntemp=47.2'C\n"
        "Every 5.0s: vcgencmd measure_temp     pi4: Wed Jun 12 08:00:05 2024\n\ntemp=47.7'C\n",
    )
    assert [(s.t_s, s.temps_c["cpu"]) for s in log.samples] == [(0.0, 47.2), (5.0, 47.7)]
