"""The columnar sample store (docs/importing.md, "Session 23").

A 200 MB table needed ~11 GB because each row was an ``ImportedSample`` of five dicts.  These
check that every imported log now holds its samples as columns, that a row reads back exactly as
the reader made it (dict order, int or float, a missing power), and that a table's held samples
are a few words per row.  The byte bound is structural (8 B per value and a shape id, against
~780 B per row as objects), not a timing.
"""

from __future__ import annotations

import math
import pickle
import tracemalloc
from pathlib import Path

from thermogov.importers import parse_log
from thermogov.importers.common import ImportedSample
from thermogov.importers.samplestore import ColumnBuilder, SampleColumns


def _table(tmp_path: Path, n: int) -> Path:
    p = tmp_path / "log.csv"
    rows = [
        f"{1764928800 + k},{45 + (k % 200) / 10:.1f},1510,{k % 97},{5 + k % 700 / 1000:.3f}" for k in range(n)
    ]
    p.write_text("epoch,temp_c,freq_mhz,cpu_pct,power_w\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return p


def test_every_log_comes_back_as_columns(tmp_path: Path) -> None:
    table = parse_log(_table(tmp_path, 30))
    tegra = tmp_path / "tegrastats.log"
    tegra.write_text("".join(f"RAM 2000/7620MB CPU [5%@1510,5%@1510] cpu@{40 + k}.0C\n" for k in range(5)))
    for log in (table, parse_log(tegra)):
        assert isinstance(log.samples, SampleColumns)
    assert pickle.loads(pickle.dumps(table)).samples == table.samples  # the cache and dask move logs


def test_rows_read_back_exactly() -> None:
    rows = [
        ImportedSample(0.0, {"cpu": 40.5, "gpu": 41.0}, {"cpu": 1_500_000_000}, {"cpu": 0.5}, 5.25, {}),
        ImportedSample(1, {"gpu": 42.0, "cpu": 40.0}, {}, {}, None, {"VDD_IN": 5.0}, {"cpu": 0.9}),
        ImportedSample(2.0, {"cpu": 39}, {"cpu": 10**30}, {"cpu": -0.0}, 3, {}),  # odd types kept
        ImportedSample(3.0, {"cpu": math.inf}, {"gpu": 1}, {}, None, {}),
    ]
    store = SampleColumns.of(rows)
    back = tuple(store)
    assert repr(back) == repr(tuple(rows))  # order of keys and int/float as the reader made them
    assert [type(s.t_s) for s in back] == [float, int, float, float]
    assert store[-1] == rows[-1] and store[1:3] == tuple(rows[1:3])
    assert store.keys("temps_c") == ["cpu", "gpu"] and store.keys("rails_w") == ["VDD_IN"]
    assert store.times.tolist() == [0.0, 1.0, 2.0, 3.0]
    gpu = store.column("temps_c", "gpu")
    assert gpu[0] == 41.0 and gpu[1] == 42.0 and math.isnan(gpu[2])


def test_builder_grows_in_chunks_and_takes_a_final_axis() -> None:
    b = ColumnBuilder()
    for k in range(5000):  # past several doublings of the first chunk
        b.append(0.0, ({"cpu": float(k)}, {}, {}, {}, {}), None if k % 2 else float(k))
    store = b.finish([k / 2 for k in range(5000)])
    assert len(store) == 5000 and store[4999].t_s == 2499.5 and store[4999].temps_c == {"cpu": 4999.0}
    assert store[4999].power_w is None and store[4998].power_w == 4998.0


def test_a_tables_samples_hold_words_not_objects(tmp_path: Path) -> None:
    path = _table(tmp_path, 20_000)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        log = parse_log(path)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(log.samples) == 20_000
    assert held / 20_000 < 150  # columns: ~50 B a row; as ImportedSample objects ~780 B
