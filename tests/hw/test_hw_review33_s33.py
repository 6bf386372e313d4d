"""Session 33r: root-daemon safety, round 33 (docs/hardware.md, "Session 33r").

In process on tmp trees (tests/hw/fakesys.py), the daemon on the virtual clock
(tests/hw/virtualclock.py) where it runs, a file system failing through a wrapped ``os`` call
that acts only on the one file named; never a sleep, never the real /sys or /run.
"""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hw import fakesys

P0 = "sys/devices/system/cpu/cpufreq/policy0"


# -- (3) storage failing under the daemon ------------------------------------------------------------
def _full_after_part(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """``os.write`` to a file whose name ends with ``name`` writes half of what it is given and
    returns that count, and every later write to it fails with ENOSPC: what a file system that
    fills up mid-write does (POSIX write: "only as many bytes as there is room for").  Returns the
    list of short counts returned (a test sees the fault acted)."""
    real = os.write
    short: list[int] = []
    full: set[int] = set()

    def write(fd: int, data: bytes | memoryview) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if not target.endswith(name):
            return real(fd, data)
        if fd in full:
            raise OSError(errno.ENOSPC, "No space left on device")
        full.add(fd)
        n = real(fd, bytes(data)[: max(len(data) // 2, 1)])
        short.append(n)
        return n

    monkeypatch.setattr(os, "write", write)
    return short


def test_a_journal_rewrite_cut_short_by_a_full_disk_keeps_the_journal_of_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state dir fills up in the middle of a mid-run rewrite: the write returns a short count.
    The rewrite fails with its one line (ENOSPC), the journal at the name is still the previous
    one and reads whole, and no half-written ``.tmp`` is left on the full disk.  BASE a8545f2: the
    count was ignored and the torn text renamed over the good journal, which a restore after a
    crash then refused as corrupt."""
    from thermogov.hw.journal import Journal, JournalData
    from thermogov.interfaces import ThermogovError

    journal = Journal(tmp_path / "state")
    first = JournalData(os.getpid(), "boot", str(tmp_path / "root"), 1.0, ())
    journal.write(first)
    short = _full_after_part(monkeypatch, "journal.json.tmp")
    with pytest.raises(ThermogovError, match=r"cannot rewrite the restore journal \(ENOSPC"):
        journal.write(JournalData(os.getpid(), "boot", str(tmp_path / "root"), 2.0, ()))
    assert short, "the fault acted"
    monkeypatch.undo()
    assert journal.load() == first
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["journal.json"]


def test_a_first_journal_whose_folder_fails_to_sync_is_not_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first journal is renamed into place, then the folder's fsync fails (EIO, a failing
    disk): the run stops, exit 1, nothing changed, and no journal is left (it records nothing
    that was changed).  BASE a8545f2: the file stayed, and the next start restored it as a dead
    run's."""
    from thermogov.hw import journal as journal_mod
    from thermogov.hw.journal import Journal, JournalData
    from thermogov.interfaces import RuntimeFailure

    def fsync_dir(path: Path) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(journal_mod, "_fsync_dir", fsync_dir)
    journal = Journal(tmp_path / "state")
    with pytest.raises(RuntimeFailure, match=r"cannot write the restore journal \(EIO.*nothing was changed"):
        journal.write(JournalData(os.getpid(), "boot", str(tmp_path / "root"), 1.0, ()))
    assert not journal.exists()


def test_a_journal_left_behind_by_a_failed_rewrite_is_not_called_the_same_values_at_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state dir goes read-only mid-run: a rewrite fails (the journal on disk is the earlier
    one), the run restores from memory and cannot delete the file.  The exit's line must not
    call it "the same values" (a restore from it would write the older windows back, over an
    adopted one): it names its last good write and says not to restore from it.  A journal whose
    writes all went through keeps the old line (guard).  BASE a8545f2: "it holds the same values"
    in both."""
    from thermogov.hw import journal as journal_mod
    from thermogov.hw.journal import Journal, JournalData
    from thermogov.interfaces import RuntimeFailure, ThermogovError

    def data(at: float) -> JournalData:
        return JournalData(os.getpid(), "boot", str(tmp_path / "root"), at, ())

    def read_only(*_a: object, **_kw: object) -> int:
        raise OSError(errno.EROFS, "Read-only file system")

    def unlink(self: Path, missing_ok: bool = False) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    kept, behind = Journal(tmp_path / "kept"), Journal(tmp_path / "behind")
    kept.write(data(1.0))
    behind.write(data(1.0))
    monkeypatch.setattr(journal_mod.confine, "open_private", read_only)
    with pytest.raises(ThermogovError, match="cannot rewrite the restore journal"):
        behind.write(data(2.0))
    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(RuntimeFailure) as lagging:
        behind.delete_restored(tmp_path / "root")
    assert "could not be deleted (EROFS" in str(lagging.value)
    assert "it holds the values of its last good write (00:00:01 UTC)" in str(lagging.value)
    assert "do not restore from it" in str(lagging.value) and "same values" not in str(lagging.value)
    with pytest.raises(RuntimeFailure, match="it holds the same values"):
        kept.delete_restored(tmp_path / "root")


def _hot_pi5_run(
    tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    duration_s: float,
    script: Callable[[float], None],
    **kw: object,
) -> tuple[fakesys.FakeTree, dict[str, bytes], str, BaseException | None]:
    """A hot Pi 5 governed in process on the virtual clock: (tree, its files before, stderr,
    what ``daemon.run`` raised or None)."""
    from tests.hw import virtualclock
    from tests.hw.cliargs import run_options
    from thermogov.hw import daemon

    t = fakesys.rpi5(tmp / "root", cpu_mc=85000)
    before = t.snapshot()
    virtualclock.install(monkeypatch, script)
    monkeypatch.setattr(daemon, "check_privileges", lambda dry: None)
    err = io.StringIO()
    raised: BaseException | None = None
    try:
        daemon.run(run_options(tmp, duration_s=duration_s, **kw), out=io.StringIO(), err=err)
    except Exception as e:  # the test asserts what escaped
        raised = e
    return t, before, err.getvalue(), raised


def test_the_first_journal_write_cut_short_stops_the_run_before_any_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal's first write meets a state dir that fills up mid-write: a runtime failure
    (exit 1) naming the journal and ENOSPC, nothing written to the board, no journal left.
    BASE a8545f2: the torn journal was put in place and the run governed on it."""
    from thermogov.interfaces import RuntimeFailure

    short = _full_after_part(monkeypatch, "journal.json.tmp")
    t, before, _err, raised = _hot_pi5_run(tmp_path, monkeypatch, 2.0, lambda s: None)
    assert short, "the fault acted"
    assert isinstance(raised, RuntimeFailure), raised
    assert "journal.json: cannot write the restore journal (ENOSPC" in str(raised)
    assert "nothing was changed" in str(raised)
    assert t.snapshot() == before
    assert not any((tmp_path / "state").iterdir())


def test_state_and_metrics_files_failing_mid_run_and_at_exit_leave_a_clean_restored_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime folder fills up 2 s into the run (the state file and the metrics textfile fail
    with ENOSPC at each publish) and is remounted read-only before the exit (the state file
    cannot be removed, EROFS): the run governs on, each file is named in its line, every limit
    is restored and the run returns.  BASE a8545f2: the metrics line named no file, and the
    state file's removal raised OSError out of the run after the restore (a traceback, exit 1)."""
    from thermogov.hw import metrics, publish, runtimefiles
    from thermogov.hw.publish import PublishOptions

    pub = tmp_path / "pub"
    pub.mkdir()
    state, textfile = pub / "state.json", pub / "thermogov.prom"
    full = [False]
    real_replace, real_unlink = runtimefiles.replace_atomic, os.unlink

    def replace(path: Path, data: bytes, **kw: bool) -> None:
        if full[0]:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(path, data, **kw)

    def unlink(path: object, *a: object, **kw: object) -> None:
        if str(path) == str(state):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        real_unlink(path, *a, **kw)  # type: ignore[arg-type]

    def script(s: float) -> None:
        full[0] = s >= 2.0

    monkeypatch.setattr(publish, "replace_atomic", replace)
    monkeypatch.setattr(metrics, "replace_atomic", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    opts = PublishOptions(state_file=state, metrics_textfile=textfile)
    t, before, err, raised = _hot_pi5_run(tmp_path, monkeypatch, 4.0, script, publish=opts)
    assert raised is None, f"{raised!r}\n{err}"
    assert f"state file {state}: cannot write (No space left on device)" in err
    assert f"metrics textfile {textfile}: cannot write (No space left on device)" in err
    assert f"state file {state}: cannot remove it at exit (EROFS" in err, err
    assert "limits restored" in err and t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()


def test_a_state_file_that_cannot_be_removed_at_exit_is_one_line_and_exit_0(
    tmp_path: Path, shim: Path
) -> None:
    """Through the installed script: the state file's folder fails the exit's removal (EROFS, the
    fault shim's ``u`` rule) after a run that capped a hot Pi 5; SIGTERM: exit 0, no traceback,
    one line naming the file, every limit as before.  BASE a8545f2: the OSError left the run
    after the restore, a traceback and exit 1."""
    from tests.hw import faultshim, procutil

    t = fakesys.rpi5(tmp_path / "root", cpu_mc=85000)
    before = t.snapshot()
    state = tmp_path / "pub" / "state.json"
    state.parent.mkdir()
    env = faultshim.env(shim, tmp_path / "faults", tmp_path)
    faultshim.write_rules(tmp_path / "faults", [("pub/state.json", "u", errno.EROFS)])
    proc = procutil.start_run(tmp_path, "--state-file", str(state), env=env)
    procutil.wait_line(proc, "thermogov: started")
    err = procutil.stopped_as_before(proc, t, before)
    assert f"state file {state}: cannot remove it at exit (EROFS" in err, err
    assert state.exists(), "the shim kept it: its removal failed"


def test_the_inference_counter_failing_to_read_mid_run_names_the_file_and_keeps_the_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inferences file's disk fails under the run (pread EIO): the count stays the last one
    read and the line names the file and the errno.  BASE a8545f2: "inference counter: [Errno 5]
    Input/output error", no file named."""
    from thermogov import counterfile
    from thermogov.hw.appcounter import AppCounter

    path = tmp_path / "inferences"
    counterfile.add(str(path), 3)
    said: list[str] = []
    counter = AppCounter(path, said.append, clock=lambda: 0.0)
    path.write_text("10\n")
    assert counter() == 7

    def pread(fd: int, n: int, at: int) -> bytes:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "pread", pread)
    assert counter() == 7
    assert said == [
        f"inference counter {path}: cannot read (EIO: Input/output error); the last count is kept"
    ]
    counter.close()


# -- (2) a boost-capable policy whose list changes mid-run -------------------------------------------
BOOST_KHZ = (2_600_000, 2_800_000)


def _boosted_policy0(tmp: Path, max_khz: int):  # type: ignore[no-untyped-def]
    """A Pi 5 whose policy0 also lists boost OPPs 2.6 and 2.8 GHz (cpufreq-dt's turbo-mode),
    boost on, its max at ``max_khz`` when thermogov starts: (tree, actuator, OppWatch, clock)."""
    from tests.hw.limitrig import owned_policy0
    from thermogov.hw.oppwatch import OppWatch

    t = fakesys.rpi5(tmp / "root", cpu_mc=55000)
    t.write(f"{P0}/scaling_boost_frequencies", " ".join(map(str, BOOST_KHZ)) + "\n")
    t.write("sys/devices/system/cpu/cpufreq/boost", "1\n")
    t.write(f"{P0}/cpuinfo_max_freq", BOOST_KHZ[-1])
    t.write(f"{P0}/scaling_max_freq", max_khz)
    tree, act = owned_policy0(t)
    now = [0.0]
    return t, act, OppWatch(tree, [act], lambda: now[0]), now


def test_a_cap_at_a_still_listed_boost_opp_is_kept_when_the_normal_list_changes(tmp_path: Path) -> None:
    """A cool board, its max at the boost OPP 2.8 GHz (nothing capped yet); the driver comes back
    with a normal list of 1.5..2.2 GHz and the same boost list: 2.8 GHz is still an OPP of the
    policy, so it stays written; the line counts the boost entries.  BASE a8545f2: bounded at
    the normal list's top, 2.2 GHz, at the look."""
    t, _act, opps, now = _boosted_policy0(tmp_path, BOOST_KHZ[-1])
    t.write(f"{P0}/scaling_available_frequencies", "1500000 1800000 2000000 2200000\n")
    now[0] = 5.0
    (line,) = opps.look()
    assert "with scaling_boost_frequencies" in line and "6 OPPs 1500000..2800000 kHz" in line, line
    assert "2800000 kHz, stays as written" in line
    assert t.read_int(f"{P0}/scaling_max_freq") == 2_800_000


def test_a_boost_list_that_loses_its_top_bounds_the_cap_at_the_top_of_both_lists(tmp_path: Path) -> None:
    """The boost list alone changes (2.8 GHz gone, 2.6 left; the normal list as before): the cap
    at 2.8 GHz is above every listed entry now and is written as 2.6, the top of both lists, at
    the look, said once.  BASE a8545f2: the boost list was never read, 2.8 GHz stayed written."""
    t, act, opps, now = _boosted_policy0(tmp_path, BOOST_KHZ[-1])
    t.write(f"{P0}/scaling_boost_frequencies", "2600000\n")
    now[0] = 5.0
    (line,) = opps.look()
    assert "cap on policy0 was 2800000 kHz, now 2600000 kHz" in line, line
    assert t.read_int(f"{P0}/scaling_max_freq") == 2_600_000
    now[0] = 10.0
    assert opps.look() == []
    act.apply(2_400_000_000)  # the governor's own asks stay in its table, below both tops
    assert t.read_int(f"{P0}/scaling_max_freq") == 2_400_000


# -- (1) the governor's table after a list change: kept, every write bounded (a guard) ---------------
def test_after_a_list_shrinks_the_governors_table_is_kept_and_each_write_follows_its_order(
    tmp_path: Path,
) -> None:
    """Session 33r's decision (docs/hardware.md): the table the policies were built on is not
    rebuilt mid-run.  Pinned: after the list shrinks to 1.5, 1.8, 2.0 GHz the actuator's table
    is the start's, every entry of it is still accepted (no "not an OPP" failure, which the
    governor counts towards its failsafe), each write is at or below both the ask and the new
    top, and a lower ask never writes a higher cap (the policies' order of caps holds: a step
    down is never a step up), and the line says how many caps now write the same top.  BASE
    a8545f2 bounds the writes the same way (that part a guard) but did not say the count."""
    from tests.hw.limitrig import watched_policy0
    from thermogov.hw.oppwatch import OppWatch

    t, act, _watch, _said = watched_policy0(tmp_path, cpu_mc=85000)
    start = act.table_hz
    now = [0.0]
    opps = OppWatch(act.io.tree, [act], lambda: now[0])
    t.write(f"{P0}/scaling_available_frequencies", "1500000 1800000 2000000\n")
    now[0] = 5.0
    (line,) = opps.look()
    assert (
        "the governor's table is kept, its 4 cap(s) above the new top (2100000..2400000 kHz) write 2000000 kHz"
        in line
    )
    assert act.table_hz == start
    written = []
    for ask_hz in reversed(start):
        act.apply(ask_hz)
        khz = t.read_int(f"{P0}/scaling_max_freq")
        assert khz * 1000 <= ask_hz and khz <= 2_000_000
        written.append(khz)
    assert written == sorted(written, reverse=True), written
    assert written[0] == 2_000_000 and written[-1] == 1_500_000


# -- (5) `thermogov ab`: the same writer's limit at two values is one file's note, its values named ---
def test_ab_says_a_files_race_note_once_and_then_only_its_new_values(tmp_path: Path) -> None:
    """Three blocks whose restores each met another writer's max on policy0, below the value of
    before: 1.8 GHz, then 1.7, then 1.8 again.  Said: the first note whole, then one short line
    naming the new value and both values seen, then nothing (a value seen before); a note of
    another kind on the same file (raised past the value of before) is its own first line.
    Every block keeps its notes whole.  BASE a8545f2: deduplicated by text, so 1.7 GHz was a
    second full line read as a second writer, and the values were never put together."""
    from thermogov.hw.ab import _RestoreNotes

    def left(khz: int) -> str:
        return (
            f"policy0: max {khz} kHz, set by another writer since thermogov's last look (thermogov's cap "
            "1500000), is below the value of before 2400000: left as it is, not raised over"
        )

    raised = (
        "policy0: max read 2600000 kHz, raised since thermogov's last look above the value of before "
        "(another writer's or a kernel reset); 2400000 written, the lower"
    )
    said: list[str] = []
    notes = _RestoreNotes(said.append)
    taken = []
    for i, block in enumerate(([left(1_800_000)], [left(1_700_000)], [left(1_800_000), raised]), 1):
        notes.add(f"block {i} (stepped)", {"restore_left_to_others": block})
        taken.append(notes.take())
    assert len(said) == 3, said
    assert said[0] == f"block 1 (stepped): the restore met another writer's limit: {left(1_800_000)}"
    assert said[1].startswith("block 2 (stepped): the restore met another writer's limit on policy0 again")
    assert (
        "now 1700000 kHz" in said[1]
        and "values seen on policy0 in this comparison: 1800000, 1700000 kHz" in said[1]
    )
    assert said[2] == f"block 3 (stepped): the restore met another writer's limit: {raised}"
    assert taken[2] == (f"block 3 (stepped): {left(1_800_000)}", f"block 3 (stepped): {raised}")
