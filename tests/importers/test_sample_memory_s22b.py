"""What a big log's samples cost per row (docs/importing.md, "Session 22b").

A table row's sample held an attribute dict and two empty dicts of its own (rails, voltages) on
top of its readings; these guard that neither comes back.  Sizes are not asserted (they depend
on the interpreter), only the structure that makes them small.
"""

from __future__ import annotations

import pickle
from pathlib import Path

from thermogov.importers import parse_log


def _table(tmp_path: Path) -> Path:
    p = tmp_path / "log.csv"
    rows = [f"{1764928800 + k},{45 + k / 10:.1f},1510,{k % 97},{5 + k / 1000:.3f}" for k in range(30)]
    p.write_text("epoch,temp_c,freq_mhz,cpu_pct,power_w\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return p


def test_samples_carry_no_attribute_dict(tmp_path: Path) -> None:
    s = parse_log(_table(tmp_path)).samples[0]
    assert not hasattr(s, "__dict__")
    assert pickle.loads(pickle.dumps(s)) == s  # dask and the cache still move samples between processes


def test_rows_without_rails_share_one_empty_dict(tmp_path: Path) -> None:
    samples = parse_log(_table(tmp_path)).samples
    assert len(samples) == 30
    assert all(s.rails_w == {} and s.volts_v == {} for s in samples)
    assert len({id(s.rails_w) for s in samples} | {id(s.volts_v) for s in samples}) == 1


def test_rails_of_one_row_are_not_anothers(tmp_path: Path) -> None:
    p = tmp_path / "tegrastats.log"
    lines = [
        f"RAM 2000/7620MB CPU [5%@1510,5%@1510] cpu@{40 + k}.0C VDD_IN {5000 + k}mW/5000mW" for k in range(5)
    ]
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    samples = parse_log(p).samples
    assert [s.rails_w["VDD_IN"] for s in samples] == [5.0 + k / 1000 for k in range(5)]
