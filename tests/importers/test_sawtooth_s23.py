"""A headerless ``temp,freq`` table whose temperature rises on nearly every row in a sawtooth.

Heating under load, a drop when the load stops, heating again: the temperature goes forward on
over 95 % of the rows, so it passed for an elapsed-seconds counter and became the clock, and the
log lost its only temperature (docs/importing.md, "Session 23", item 3).  A counter steps by its
interval; a temperature by whatever the heat gives.
"""

from __future__ import annotations

import random
from pathlib import Path

from thermogov.importers import parse_log


def _write(path: Path, cells: list[str]) -> Path:
    path.write_text("\n".join(cells) + "\n", encoding="utf-8")
    return path


def test_a_sawtooth_temperature_is_no_clock(tmp_path: Path) -> None:
    rnd = random.Random(1)
    cells, t = [], 45.0
    for k in range(120):
        t = 45.0 if k % 40 == 0 else t
        t += rnd.choice([0.1, 0.2, 0.3, 0.4, 0.5])
        cells.append(f"{t:.1f},{1500 if k % 3 else 1800}")
    log = parse_log(_write(tmp_path / "saw.csv", cells))
    assert len(log.samples) == 120
    assert [s.temps_c.get("cpu") for s in log.samples[:3]] == [float(c.split(",")[0]) for c in cells[:3]]
    assert log.samples[1].t_s - log.samples[0].t_s == 1.0  # one row per interval, none given
    assert any(n.startswith("no time column") for n in log.notes)


def test_an_uneven_but_regular_counter_is_still_the_clock(tmp_path: Path) -> None:
    rnd = random.Random(2)
    cells, t = [], 12.0
    for k in range(60):  # a loop's elapsed seconds: 1 s sleeps plus jitter, one pause
        t += 5.0 if k == 30 else 1.0 + rnd.uniform(0.0, 0.08)
        cells.append(f"{t:.2f},{50 + (k % 7) / 2:.1f}")
    log = parse_log(_write(tmp_path / "counter.csv", cells))
    assert len(log.samples) == 60
    assert round(log.samples[-1].t_s, 2) == round(
        float(cells[-1].split(",")[0]) - float(cells[0].split(",")[0]), 2
    )
    assert all("cpu" in s.temps_c for s in log.samples)
