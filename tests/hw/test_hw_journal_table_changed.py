"""A journal whose device's OPP table another agent shrank while thermogov ran (nvpmodel), then
``kill -9``: the next restore writes that value clamped into today's table and restores the rest,
through the installed script.  Before, the whole journal was refused (exit 2) and the CPU caps
stayed lowered on every later start (bench/board_shapes.py, ``nvpmodel-table-shrunk`` on the
``kill9`` and ``failure`` paths).  What the recorded range does not excuse is still refused.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.journal import Journal, JournalData, JournalEntry, checksum

CPU = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPU}/policy0"
P4 = f"{CPU}/policy4"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"  # the JetPack 5 Orin Nano's
GPU_CLASS = "sys/class/devfreq/17000000.ga10b"
TOP = fakesys.ORIN_NANO_GPU_HZ[-1]
SHRUNK = fakesys.ORIN_NANO_GPU_HZ[:3]  # nvpmodel's lower mode: the top OPPs gone


def _shrink_gpu_table(t: fakesys.FakeTree) -> None:
    """What nvpmodel does to the GPU: a shorter OPP list, the max no higher than its new top."""
    t.write(f"{GPU}/available_frequencies", " ".join(map(str, SHRUNK)) + "\n")
    t.write(f"{GPU}/max_freq", min(SHRUNK[-1], t.read_int(f"{GPU}/max_freq")))


def _killed_after(tmp: Path, *agent_steps: str) -> tuple[fakesys.FakeTree, dict[str, bytes | str]]:
    """A hot board governed to its lowest caps, the GPU table shrunk under it, then ``kill -9``.

    ``agent_steps`` may add a raise of policy4's max by another writer (jetson_clocks) after the
    shrink, which makes the daemon rewrite its journal while the table is the shrunk one.
    """
    t = fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    proc = procutil.start_run(tmp, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    _shrink_gpu_table(t)
    if "raise-p4" in agent_steps:
        t.write(f"{P4}/scaling_max_freq", 1497600)
        procutil.wait_line(proc, "another writer set policy4", stream="stderr")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert Journal(tmp / "state").exists()
    assert t.read_int(f"{P0}/scaling_max_freq") < 1510400  # the caps a restore must lift
    return t, before


def _expected_after(t: fakesys.FakeTree, before: dict[str, bytes | str]) -> dict[str, bytes | str]:
    """The tree of before, but for the agent's table and the GPU max clamped to its new top."""
    want = dict(before)
    want[f"{GPU}/available_frequencies"] = (t.root / GPU / "available_frequencies").read_bytes()
    want[f"{GPU}/max_freq"] = (t.root / GPU / "max_freq").read_bytes()
    return want


@pytest.mark.parametrize("command", ["restore", "run"])
def test_a_gpu_table_shrunk_before_kill_9_restores_every_limit_the_gpu_max_clamped(
    tmp_path: Path, command: str
) -> None:
    t, before = _killed_after(tmp_path)
    extra = ["--out", str(tmp_path / "out"), "--duration", "0.3s"] if command == "run" else []
    r = procutil.run_cli(command, *procutil.paths(tmp_path), *extra)
    assert r.returncode == 0, r.stderr
    said = [ln for ln in (r.stdout + r.stderr).splitlines() if "journaled" in ln]
    assert len(said) == 1 and "restored 3 limit window(s)" in said[0], r.stdout + r.stderr
    assert f"journaled {SHRUNK[0]}..{TOP} Hz, written {SHRUNK[0]}..{SHRUNK[-1]}" in said[0]
    assert "another agent changed its table" in said[0]
    assert t.read_int(f"{GPU}/max_freq") == SHRUNK[-1]  # an OPP of today's table
    assert t.snapshot() == _expected_after(t, before)  # the CPU caps lifted too
    assert not Journal(tmp_path / "state").exists()


def test_a_journal_rewritten_after_the_shrink_keeps_the_range_the_original_was_read_in(
    tmp_path: Path,
) -> None:
    t, before = _killed_after(tmp_path, "raise-p4")
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0, r.stderr
    assert t.read_int(f"{GPU}/max_freq") == SHRUNK[-1]
    want = _expected_after(t, before)
    want[f"{P4}/scaling_max_freq"] = (t.root / P4 / "scaling_max_freq").read_bytes()
    assert t.read_int(f"{P4}/scaling_max_freq") == 1497600  # the other writer's later choice
    assert t.snapshot() == want


def _gpu(lo: int, hi: int, hw: tuple[object, object] | None) -> JournalEntry:
    rec = {} if hw is None else {"hw_min": hw[0], "hw_max": hw[1]}
    return JournalEntry(
        "gpu", "17000000.ga10b", f"{GPU_CLASS}/min_freq", f"{GPU_CLASS}/max_freq", 1, lo, hi, **rec
    )  # type: ignore[arg-type]


def _cpu(policy: str, lo: int, hi: int) -> JournalEntry:
    label = policy.rsplit("/", 1)[-1]
    return JournalEntry(
        "cpu",
        label,
        f"{policy}/scaling_min_freq",
        f"{policy}/scaling_max_freq",
        1000,
        lo,
        hi,
        115200,
        1510400,
    )


REFUSED = {
    "outside the range it recorded": (
        _gpu(SHRUNK[0], TOP, (SHRUNK[0], SHRUNK[-1])),
        "max 625000000 is outside the hardware range it recorded 306000000..510000000",
    ),
    "a recorded range sharing nothing with today's": (
        _gpu(1_000_000_000, 1_100_000_000, (900_000_000, 1_300_000_000)),
        "shares no frequency with today's 306000000..510000000",
    ),
    "a recorded range upside down": (_gpu(SHRUNK[0], TOP, (TOP, SHRUNK[0])), "is not a range"),
    "a recorded range half missing": (_gpu(SHRUNK[0], TOP, (None, TOP)), "is not a range"),
    # Judged with the journal's other fields since session 19: no whole number, whatever the board.
    "a recorded range of strings": (_gpu(SHRUNK[0], TOP, ("306000000", str(TOP))), "'306000000'"),
    "no recorded range: judged as today": (_gpu(SHRUNK[0], TOP, None), "outside its hardware range"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_the_recorded_range_does_not_excuse_is_refused_with_nothing_written(
    tmp_path: Path, case: str
) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    _shrink_gpu_table(t)
    t.write(f"{P4}/scaling_max_freq", 729600)  # a valid entry that must not be written either
    entry, why = REFUSED[case]
    Journal(tmp_path / "state").write(
        JournalData(fakesys.dead_pid(), "", str(tmp_path / "root"), 0.0, (_cpu(P4, 729600, 1510400), entry))
    )
    before = t.snapshot()
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert why in r.stderr and "refused" in r.stderr
    assert t.snapshot() == before and Journal(tmp_path / "state").exists()


def _format_2(tmp: Path, entries: list[dict[str, object]]) -> None:
    """A journal as thermogov wrote it before the ranges were recorded (format 2)."""
    body: dict[str, object] = {
        "format": 2,
        "pid": fakesys.dead_pid(),
        "boot_id": "",
        "sysfs_root": str(tmp / "root"),
        "created": 0.0,
        "entries": entries,
        "states": [],
        "attrs": [],
    }
    body["sha256"] = checksum(body)
    (tmp / "state").mkdir()
    (tmp / "state" / "journal.json").write_text(json.dumps(body))


def _old_entry(policy: str, lo: int, hi: int) -> dict[str, object]:
    label = policy.rsplit("/", 1)[-1]
    return {
        "domain": "cpu",
        "label": label,
        "min_rel": f"{policy}/scaling_min_freq",
        "max_rel": f"{policy}/scaling_max_freq",
        "scale_hz": 1000,
        "min": lo,
        "max": hi,
    }


def test_a_format_2_journal_still_restores(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    before = t.snapshot()
    _format_2(tmp_path, [_old_entry(P0, 729600, 1510400), _old_entry(P4, 729600, 1510400)])
    for p in (P0, P4):
        t.write(f"{p}/scaling_max_freq", 729600)
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "restored 2 limit window(s)" in r.stdout
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()


def test_a_format_2_journal_claiming_recorded_ranges_is_corrupt(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    _format_2(tmp_path, [{**_old_entry(P0, 729600, 1510400), "hw_min": 115200, "hw_max": 1510400}])
    before = t.snapshot()
    r: subprocess.CompletedProcess[str] = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 2 and "corrupt journal" in r.stderr and len(r.stderr.splitlines()) == 1
    assert t.snapshot() == before
