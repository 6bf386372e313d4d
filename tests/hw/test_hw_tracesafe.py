"""Never a crash loop: the run record may fail, the governing and the restore may not."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys
from tests.hw.cliargs import run_options
from tests.hw.fakesys import KernelTree
from thermogov.hw import tracesafe
from thermogov.hw.daemon import RunOptions, run
from thermogov.hw.journal import Journal
from thermogov.interfaces import ConfigError
from thermogov.trace import TraceWriter

POLICY0 = "sys/devices/system/cpu/cpufreq/policy0"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"
CPU_LOWEST_KHZ = 729600  # the hysteresis policy's hot caps on the Orin Nano profile


def _opts(tmp: Path, **kw: Any) -> RunOptions:
    return run_options(tmp, **{"duration_s": 1.0, **kw})


class WarmingTree(KernelTree):
    """Every thermal zone reads cool for the first ``cool_reads`` reads, then 90 °C."""

    def __init__(self, root: Path, cool_reads: int) -> None:
        super().__init__(root, "new")
        self.cool_reads = cool_reads
        self.temp_reads = 0

    def _read_bytes(self, real: str) -> bytes:
        if real.endswith("/temp") and "thermal_zone" in real:
            self.temp_reads += 1
            return b"50000\n" if self.temp_reads <= self.cool_reads else b"90000\n"
        return super()._read_bytes(real)


def test_a_trace_write_failure_drops_the_trace_and_governing_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=50000, gpu_mc=50000)
    before = t.snapshot()
    kt = WarmingTree(tmp_path / "root", cool_reads=10**9)
    real_ticks = TraceWriter.ticks
    rows: list[float] = []
    writes_at_drop: list[int] = []

    def ticks(self: TraceWriter, recs: Any) -> None:  # every row goes through ticks()
        if rows:  # the disk fills up at the second hand-over (t = 1 s), after the first rows
            writes_at_drop.append(len(kt.writes))
            kt.cool_reads = kt.temp_reads  # and the board gets hot only from now on
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        rows.extend(rec.t_s for rec in recs)
        real_ticks(self, recs)

    monkeypatch.setattr(TraceWriter, "ticks", ticks)
    journal_seen: list[bool] = []
    kt.before_write.append(lambda real, data: journal_seen.append(Journal(tmp_path / "state").exists()))
    err = io.StringIO()
    summary = run(_opts(tmp_path, duration_s=1.5), out=io.StringIO(), err=err, tree=kt)
    warnings = [ln for ln in err.getvalue().splitlines() if "trace" in ln]
    assert len(warnings) == 1 and "ENOSPC" in warnings[0] and "governing continues" in warnings[0]
    assert "ENOSPC" in summary["trace_dropped"]
    assert rows and summary["ticks"] > len(rows) + 1  # the loop kept ticking after the drop
    # It kept governing: the board got hot only after the trace was dropped, and was capped.
    (n,) = writes_at_drop
    assert (f"{POLICY0}/scaling_max_freq", CPU_LOWEST_KHZ) in kt.writes[n:], (kt.writes, summary)
    assert all(journal_seen)  # the journal was on disk before every cap write
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


@pytest.mark.parametrize(
    ("what", "needle"),
    [("dev-null", "not a directory"), ("file-parent", "not a directory"), ("proc", "cannot create files")],
)
def test_an_unusable_out_folder_is_refused_before_the_board_is_touched(
    tmp_path: Path, what: str, needle: str
) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    (tmp_path / "afile").write_text("x")
    out = {
        "dev-null": Path(os.devnull),
        "file-parent": tmp_path / "afile" / "out",
        "proc": Path("/proc/thermogov-test-out"),
    }[what]
    if what == "proc" and not Path("/proc/self").exists():
        pytest.skip("no procfs here")
    kt = KernelTree(tmp_path / "root")
    with pytest.raises(ConfigError, match=needle) as e:
        run(_opts(tmp_path, out=out), out=io.StringIO(), err=io.StringIO(), tree=kt)
    assert "--out" in str(e.value)
    assert kt.writes == [] and t.snapshot() == before and not Journal(tmp_path / "state").exists()


def test_an_unusable_state_dir_is_refused_before_the_lock_and_the_board(tmp_path: Path) -> None:
    if not Path("/proc/self").exists():
        pytest.skip("no procfs here")
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root")
    with pytest.raises(ConfigError, match="--state-dir"):
        run(
            _opts(tmp_path, state_dir=Path("/proc/thermogov-state")),
            out=io.StringIO(),
            err=io.StringIO(),
            tree=kt,
        )
    assert kt.writes == [] and t.snapshot() == before and not (tmp_path / "run").exists()


def test_a_full_disk_for_the_trace_is_refused_before_the_board_is_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    real = os.statvfs

    class Full:
        def __init__(self, st: os.statvfs_result) -> None:
            self.f_frsize = st.f_frsize
            self.f_flag = st.f_flag  # the mount's flags as they are (discovery reads ST_RDONLY)
            self.f_bavail = 3  # three blocks left

    monkeypatch.setattr(tracesafe.os, "statvfs", lambda p: Full(real(p)))
    kt = KernelTree(tmp_path / "root")
    with pytest.raises(ConfigError, match=r"--out .*bytes free"):
        run(_opts(tmp_path), out=io.StringIO(), err=io.StringIO(), tree=kt)
    assert kt.writes == [] and t.snapshot() == before


def test_a_summary_that_cannot_be_written_still_ends_the_run_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from thermogov import runs

    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()

    def full(*a: Any, **k: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(runs, "append_ledger", full)
    err = io.StringIO()
    summary = run(
        _opts(tmp_path, duration_s=0.3), out=io.StringIO(), err=err, tree=KernelTree(tmp_path / "root")
    )
    assert summary["run_id"] and summary["stopped_by"] == "duration"
    assert "cannot write the summary" in err.getvalue()
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


class _Recorder:
    """Stands in for RunRecorder: what was handed over, and when the files were flushed."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []
        self.run_dir = Path("run")
        self.run_id = "r"

    def on_ticks(self, recs: Any) -> None:
        self.calls.extend(("tick", rec.t_s) for rec in recs)

    def on_samples(self, recs: Any) -> None:
        self.calls.extend(("sample", rec.t_s) for rec in recs)

    def flush(self) -> None:
        self.calls.append(("flush", -1.0))

    def finish(self, extra: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(("finish", -1.0))
        return dict(extra)


def test_records_are_handed_over_once_a_second_then_flushed_and_all_before_the_summary() -> None:
    from thermogov.governor import SampleRecord

    class Tick:
        def __init__(self, t_s: float) -> None:
            self.t_s = t_s

    fake = _Recorder()
    guard = tracesafe.TraceGuard(fake, lambda msg: None)  # type: ignore[arg-type]
    guard.on_sample(SampleRecord(0.0, "cpu", 50.0, True))
    guard.on_tick(Tick(0.0))  # type: ignore[arg-type]  # the first tick opens the grid
    assert fake.calls == [("sample", 0.0), ("tick", 0.0), ("flush", -1.0)]
    fake.calls.clear()
    for i in range(1, 10):
        guard.on_sample(SampleRecord(i / 10, "cpu", 50.0, True))
        guard.on_tick(Tick(i / 10))  # type: ignore[arg-type]
    assert fake.calls == []  # kept, not formatted, within the second
    guard.on_tick(Tick(1.0))  # type: ignore[arg-type]
    assert [c for c, _ in fake.calls].count("tick") == 10 and fake.calls[-1] == ("flush", -1.0)
    assert [t for c, t in fake.calls if c == "tick"] == [i / 10 for i in range(1, 10)] + [1.0]
    fake.calls.clear()
    guard.on_tick(Tick(1.1))  # type: ignore[arg-type]
    guard.finish({})
    assert fake.calls == [("tick", 1.1), ("flush", -1.0), ("finish", -1.0)]


def test_a_failing_hand_over_never_hands_a_record_over_twice() -> None:
    class Boom(_Recorder):
        def on_ticks(self, recs: Any) -> None:
            super().on_ticks(recs)
            raise RuntimeError("a bug in the recorder")

    class Tick:
        def __init__(self, t_s: float) -> None:
            self.t_s = t_s

    fake = Boom()
    guard = tracesafe.TraceGuard(fake, lambda msg: None)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError):
        guard.on_tick(Tick(0.0))  # type: ignore[arg-type]
    guard.finish({})  # the exit path hands over what is left: nothing
    assert [c for c in fake.calls if c[0] == "tick"] == [("tick", 0.0)]
