"""`sensors -j` (lm-sensors JSON) loops: a stream of documents read to the `temp*_input` values.
Synthetic documents in the layout `sensors -j` prints (chip -> Adapter, feature -> subfeatures);
the numbers are this test's own."""

from __future__ import annotations

import json
from pathlib import Path

from thermogov.importers import detect_text, parse_log


def _doc(cpu: float, adc: float, fan: int) -> str:
    return json.dumps(
        {
            "cpu_thermal-virtual-0": {"Adapter": "Virtual device", "temp1": {"temp1_input": cpu}},
            "rp1_adc-isa-0000": {
                "Adapter": "ISA adapter",
                "in1": {"in1_input": 1.48},
                "temp1": {"temp1_input": adc, "temp1_crit": 110.0, "temp1_crit_alarm": 0.0},
            },
            "pwmfan-isa-0000": {"Adapter": "ISA adapter", "fan1": {"fan1_input": fan}},
        },
        indent=3,
    )


def test_date_lines_and_pretty_printed_documents(tmp_path: Path) -> None:
    text = "".join(
        f"Sat Feb 10 09:30:{s:02d} UTC 2024\n{_doc(c, a, f)}\n"
        for s, c, a, f in [(0, 44.9, 50.2, 0), (10, 58.3, 51.0, 2300), (20, 61.7, 51.9, 4100)]
    )
    assert detect_text(text) == "sensors-json"
    path = tmp_path / "sensors.json"
    path.write_text(text, encoding="utf-8")
    log = parse_log(path)
    assert log.fmt == "sensors-json"
    assert [s.t_s for s in log.samples] == [0.0, 10.0, 20.0]
    # chip with one temperature -> named by the chip; limits (crit) and fans are not readings
    assert [s.temps_c for s in log.samples] == [
        {"cpu": 44.9, "rp1_adc": 50.2},
        {"cpu": 58.3, "rp1_adc": 51.0},
        {"cpu": 61.7, "rp1_adc": 51.9},
    ]


def test_one_document_per_line_without_time_uses_the_interval(tmp_path: Path) -> None:
    lines = [
        json.dumps({"coretemp-isa-0000": {"Adapter": "ISA adapter", "Package id 0": {"temp1_input": t}}})
        for t in (40.0, 45.0, 47.0)
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = parse_log(path, interval_s=5.0)
    assert [(s.t_s, s.temps_c) for s in log.samples] == [
        (0.0, {"cpu": 40.0}),
        (5.0, {"cpu": 45.0}),
        (10.0, {"cpu": 47.0}),
    ]
