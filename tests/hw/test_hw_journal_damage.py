"""A journal left by ``kill -9`` that is damaged, or whose folder became read-only, through the
installed script (bench/board_shapes.py, the ``journal`` path, found both)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil

P4_MAX = "sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq"


def _killed_run(tmp: Path) -> None:
    proc = procutil.start_run(tmp, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    proc.kill()
    proc.wait()
    assert (tmp / "state" / "journal.json").exists()


def _run(tmp: Path, *prefix: str) -> subprocess.CompletedProcess[str]:
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--duration", "0.5s"]
    return subprocess.run(
        [*prefix, *procutil.script(), "run", *args],
        capture_output=True,
        text=True,
        timeout=procutil.DEADLINE_S,
    )


def test_a_corrupt_journal_is_the_only_line_even_where_the_board_has_warnings(tmp_path: Path) -> None:
    # A read-only cluster makes `run` warn before the journal is read; the refusal of the torn
    # journal came after that warning: two lines for one bad input.
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=92000)
    (t.root / P4_MAX).chmod(0o444)
    _killed_run(tmp_path)
    (tmp_path / "state" / "journal.json").write_bytes(b"")
    killed = t.snapshot()
    r = _run(tmp_path)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "corrupt journal" in r.stderr
    assert t.snapshot() == killed


def _read_only(folder: Path) -> list[str]:
    f = str(folder)
    script = f'mount --bind "{f}" "{f}" && mount -o remount,ro,bind "{f}" "{f}" && exec "$@"'
    return ["unshare", "-m", "sh", "-c", script, "sh"]


def test_a_journal_on_a_read_only_state_dir_is_named_and_restore_says_only_the_file_is_left(
    tmp_path: Path,
) -> None:
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1)")
    probe = subprocess.run([*_read_only(tmp_path), "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot make a private read-only mount here (needs root)")
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=95000)
    before = t.snapshot()
    _killed_run(tmp_path)
    ro = _read_only(tmp_path / "state")
    r = _run(tmp_path, *ro)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "thermogov restore" in r.stderr  # before: only "pass a writable folder"
    restore = subprocess.run(
        [*ro, *procutil.script(), "restore", *procutil.paths(tmp_path)],
        capture_output=True,
        text=True,
        timeout=procutil.DEADLINE_S,
    )
    assert restore.returncode == 1, restore.stderr
    assert "limits restored, but the journal" in restore.stderr  # before: "Read-only file system"
    assert "Traceback" not in restore.stderr
    assert t.snapshot() == before
