"""Session 30r: root-daemon safety, the items review 29r left (docs/hardware.md, "Session 30r").

Each case drives the installed ``thermogov`` script on a fake tree (tests/hw/fakesys.py) and
waits on the daemon's own lines (procutil.wait_line), never a sleep.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
import shutil
import signal
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil, virtualclock
from tests.hw.test_hw_late_chargers import _unplug, power_each_second
from tests.hw.test_hw_review26 import _exit
from tests.hw.test_hw_review29_s29 import LITTLE_KHZ, _two_cpu_domains
from thermogov.config import parse_config
from thermogov.hw import daemon
from thermogov.hw.journal import Journal, JournalEntry, checksum, new_journal_data, recover
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import RuntimeFailure

CPU = "sys/devices/system/cpu/cpufreq"
P0_MAX = f"{CPU}/policy0/scaling_max_freq"


def _killed_while_capping(tmp: Path) -> tuple[fakesys.FakeTree, dict[str, bytes | str]]:
    """A hot Orin Nano governed (its caps written and journaled), then ``kill -9``."""
    t = fakesys.orin_nano(tmp / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    before = t.snapshot()
    proc = procutil.start_run(tmp, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    assert int((t.root / P0_MAX).read_text()) < int(before[P0_MAX]), "a hot board is capped"
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert (tmp / "state" / "journal.json").exists()
    return t, before


def _plant(p: Path) -> str:
    """Another regular file at an owned path: made beside it and renamed over it (a new inode)."""
    new = p.with_name(p.name + ".planted")
    new.write_text("1113600\n")
    os.replace(new, p)
    return "1113600\n"


# -- (1) a restore after kill -9 never writes into a file planted at an owned path ------------------
@pytest.mark.parametrize("by", ["restore", "next-start"])
def test_a_file_planted_at_an_owned_path_after_kill9_is_named_skipped_and_the_rest_restored(
    tmp_path: Path, by: str
) -> None:
    """The journal records each owned file's device and inode: a regular file planted at
    policy0's max between ``kill -9`` and the restore (``thermogov restore``, or the next
    start's recovery) is named, not written, every other owned file restored, exit 1, the
    journal kept.  BASE 300b6c2: the planted file took the journaled value, exit 0."""
    t, before = _killed_while_capping(tmp_path)
    planted = _plant(t.root / P0_MAX)
    if by == "restore":
        r = procutil.run_cli("restore", *procutil.paths(tmp_path))
        code, err = r.returncode, r.stdout + r.stderr
    else:
        proc = procutil.start_run(tmp_path, "--duration", "120s")
        _out, raw = proc.communicate(timeout=procutil.DEADLINE_S)
        code, err = proc.returncode, raw.decode()
    assert "Traceback" not in err
    assert code == 1, err
    assert "policy0/scaling_max_freq: is not the file journaled" in err, err
    assert (t.root / P0_MAX).read_text() == planted, "nothing written into the planted file"
    after = t.snapshot()
    assert {k: v for k, v in after.items() if k != P0_MAX} == {
        k: v for k, v in before.items() if k != P0_MAX
    }, "every other owned file restored"
    assert (tmp_path / "state" / "journal.json").exists(), "journal kept"


def test_a_journal_without_identities_is_restored_as_before_and_says_so(tmp_path: Path) -> None:
    """A journal written before session 30 (no ``identities``) keeps its meaning: each value
    written to the file at its path, and the restore says it could not check.  BASE: restored,
    nothing said (the guard half passes there)."""
    t, before = _killed_while_capping(tmp_path)
    path = tmp_path / "state" / "journal.json"
    body = json.loads(path.read_text())
    assert body.pop("identities"), "this thermogov records identities"
    body["sha256"] = checksum(body)
    path.write_text(json.dumps(body))
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "records no file identities" in r.stdout + r.stderr
    assert t.snapshot() == before


def test_a_reboot_between_kill9_and_restore_writes_nothing(tmp_path: Path) -> None:
    """The kernel reset every limit at the reboot (the tree's boot_id changed): the journal is
    discarded, said, and not one stale value written (even over a file planted since)."""
    t, _before = _killed_while_capping(tmp_path)
    t.boot_id("8d1f0c1e-0000-4000-8000-0000000000ff")
    planted = _plant(t.root / P0_MAX)
    capped = t.snapshot()
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "earlier boot" in r.stdout + r.stderr and "reset the limits" in r.stdout + r.stderr
    assert t.snapshot() == capped and (t.root / P0_MAX).read_text() == planted


# -- (2) the preferred pack gone mid-run: the next pack present is read, by the start's rule -------
def test_the_preferred_pack_gone_mid_run_leaves_the_state_to_the_next_pack_present(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two packs at start: BAT1 (with a ``temp``: the rule's choice, discharging) is read; BAT0
    (charging) stays.  BAT1 pulled at 4 s: BAT0's status is the power state from that read on,
    said once.  BASE 300b6c2: the chargers told the state though BAT0 was there (AC online:
    "mains" for the rest of the run)."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=1", kind="Mains")
    t.supply("BAT0", "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Charging\nPOWER_SUPPLY_CAPACITY=30")
    t.supply(
        "BAT1",
        "POWER_SUPPLY_NAME=BAT1\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=80",
        temp_decic=300,
    )
    cfg = parse_config({"run": {"board": "jetson-orin-nano-devkit"}})
    pulled: set[str] = set()

    def pull(el: float) -> None:
        if el >= 4.0 and not pulled:
            pulled.add("BAT1")
            _unplug(t, "BAT1")

    power, err = power_each_second(tmp_path, monkeypatch, 10.0, pull, cfg)
    states = {s: p["state"] for s, p in power.items()}
    assert {states[s] for s in states if 1 <= s < 4} == {"discharging"}, states
    assert {states[s] for s in states if s >= 6} == {"charging"}, states
    assert power[max(power)]["capacity_pct"] == 30, power[max(power)]
    assert err.count("power supply BAT1 (Battery) went away; BAT0") == 1, err
    assert "Traceback" not in err


# -- (3) two cpufreq domains: an unnamed policy present at start joins the one whose table it is ---
@pytest.mark.parametrize("how", ["sigterm", "kill9-then-restore"])
def test_under_two_cpu_domains_an_unnamed_policy_at_start_joins_the_one_whose_table_it_offers(
    tmp_path: Path, how: str
) -> None:
    """Session 29r's mid-run rule, now at start: a hot board whose profile describes two cpufreq
    domains (``cpu``: policy0; ``cpub``: policy4, the little table), with ``policy6`` (the little
    table exactly) and ``policy7`` (a table no domain has) there from the start, no domain naming
    either.  policy6 joins ``cpub``: journaled, capped, restored; policy7 is said once and never
    written.  BASE 300b6c2: both left alone at start, nothing said, policy6 at full clock."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=92000, gpu_mc=92000)
    for c in (4, 5):
        (t.root / f"sys/devices/system/cpu/cpu{c}/cpufreq").unlink()
    shutil.rmtree(t.root / CPU / "policy4")
    t.policy(4, [4, 5], LITTLE_KHZ)
    t.policy(6, [6], LITTLE_KHZ)
    t.policy(7, [7], (729600, 1113600))
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--board", str(_two_cpu_domains(tmp_path)), "--duration", "120s")
    left = procutil.wait_line(proc, "policy7", stream="stderr")
    assert "matches no cpufreq domain's exactly" in left and "kernel's limits" in left, left
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(f"{CPU}/policy6/scaling_max_freq") < max(LITTLE_KHZ), "capped with cpub (hot)"
    assert t.read_int(f"{CPU}/policy7/scaling_max_freq") == 1113600
    assert json.loads((tmp_path / "state" / "journal.json").read_text())["entries"], "journaled"
    labels = [e["label"] for e in json.loads((tmp_path / "state" / "journal.json").read_text())["entries"]]
    assert "policy6" in labels and "policy7" not in labels, labels
    said = _exit(proc, tmp_path, how)
    assert "Traceback" not in said and "policy7" not in said, said[-1500:]
    assert t.snapshot() == before, said[-1500:]


# -- (4) a refused member's domain: the failsafe hold written once, re-checked on the watch's cadence
def _governed_run(
    work: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, script: Callable[[float], None]
) -> tuple[list[dict[str, str]], str]:
    """A real (not dry) run on a virtual clock: ``script(t)`` changes the tree at each wait."""
    virtualclock.install(monkeypatch, script)
    err = io.StringIO()
    where = {"state_dir": "state", "lock_file": "l.lock", "lock_dir": "locks", "out": "out"}
    cfg = parse_config({"run": {"policy": "hysteresis"}})
    opts = daemon.RunOptions(
        cfg, work / "root", duration_s=seconds, **{k: work / v for k, v in where.items()}
    )
    with contextlib.suppress(RuntimeFailure):  # the exit's restore skips the refused file: exit 1
        daemon.Runner(opts, out=io.StringIO(), err=err).run()
    run_dir = next(p for p in (work / "out").iterdir() if p.is_dir())
    with (run_dir / "trace.csv").open() as fh:
        return list(csv.DictReader(fh)), err.getvalue()


def test_a_refused_members_domain_is_held_once_not_rewritten_and_tagged_every_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """policy4's min planted as another file at 3 s on a cool Orin Nano (its ``cpu`` domain at its
    top): the failsafe at once (29r), then the governor's asks for the held domain are answered
    without a read or a write: one ``write_failed:cpu`` in the trace, not one per tick.  The hold
    is still re-checked on the limit watch's cadence: policy0's max raised by another writer at
    6 s is back at the lowest cap two seconds later, and the failsafe stands to the end.
    BASE 300b6c2: ``write_failed:cpu`` in every row from the refusal on (a 4-read apply each tick)."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)  # cool: 50 °C
    top = t.read_int(P0_MAX)
    seen: dict[str, int] = {}

    def script(el: float) -> None:
        if el >= 3.0 and "planted" not in seen:
            seen["planted"] = 1
            _plant(t.root / CPU / "policy4/scaling_min_freq")
        if el >= 6.0 and "raised" not in seen:
            seen["raised"] = t.read_int(P0_MAX)
            t.write(P0_MAX, f"{top}\n")
        if el >= 8.0 and "after" not in seen:
            seen["after"] = t.read_int(P0_MAX)

    rows, err = _governed_run(tmp_path, monkeypatch, 12.0, script)
    assert "Traceback" not in err
    assert seen["raised"] < top, "held at the lowest cap once refused: " + err[-1500:]
    assert seen["after"] == seen["raised"], "the watch put the hold back: " + err[-1500:]
    tagged = [r["t_s"] for r in rows if "write_failed:cpu" in r["event"].split()]
    assert len(tagged) <= 1, tagged
    after = [r for r in rows if float(r["t_s"]) >= 4.0]
    assert after and all(r["policy_state"] == "FAILSAFE" for r in after), [r["policy_state"] for r in after]
    lowest = min(int(r["gpu_cap_hz"]) for r in rows)
    assert lowest < int(rows[0]["gpu_cap_hz"]) and {int(r["gpu_cap_hz"]) for r in after} == {lowest}


# -- (5) review: EIO on a read of an owned limit is no limit "left changed" at exit -----------------
def test_an_owned_max_that_reads_eio_at_exit_is_restored_not_called_left_changed(
    tmp_path: Path, shim: Path
) -> None:
    """A hot board capped; policy0's max then answers every read with EIO (a driver failing to
    talk to the hardware) while its writes go through.  The exit writes every original back:
    exit 0, "limits restored", the journal deleted, every file as found.  BASE 300b6c2: the read
    of the cap in force after the writes failed the restore ("restore incomplete, left changed:
    ...scaling_max_freq: read failed (EIO ...)", exit 1, the journal kept) though nothing was."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    before = t.snapshot()
    rules = tmp_path / "rules"
    faultshim.write_rules(rules, [])
    proc = procutil.start_run(tmp_path, "--duration", "120s", env=faultshim.env(shim, rules, t.root))
    procutil.wait_line(proc, "thermogov: started")
    assert t.snapshot() != before, "capped: the exit has something to put back"
    faultshim.write_rules(rules, [("policy0/scaling_max_freq", "r", errno.EIO)])
    procutil.wait_line(proc, "policy0: limits unreadable", stream="stderr")
    proc.send_signal(signal.SIGTERM)
    _out, raw = proc.communicate(timeout=procutil.DEADLINE_S)
    err = raw.decode()
    assert "Traceback" not in err
    assert proc.returncode == 0 and "limits restored" in err and "left changed" not in err, err[-1500:]
    assert not (tmp_path / "state" / "journal.json").exists()
    assert t.snapshot() == before


# -- (1) in-process: what the identities decide, file by file ------------------------------------
POLICY = "sys/devices/system/cpu/cpufreq/policy0"


def _rpi5_journal(tmp: Path) -> tuple[fakesys.FakeTree, SysfsTree, Journal]:
    """A Pi 5 whose policy0 window was journaled by an owner (identities recorded), then capped."""
    t = fakesys.rpi5(tmp / "root")
    tree = SysfsTree(tmp / "root")
    for a in ("scaling_min_freq", "scaling_max_freq"):
        tree.own(f"{POLICY}/{a}")
    entry = JournalEntry(
        "cpu", "policy0", f"{POLICY}/scaling_min_freq", f"{POLICY}/scaling_max_freq", 1000, 1500000, 2400000
    )
    j = Journal(tmp / "state")
    data = new_journal_data(tree, [entry])
    j.write(replace(data, pid=fakesys.dead_pid()))
    t.write(f"{POLICY}/scaling_max_freq", 1500000)  # what the dead daemon left
    return t, SysfsTree(tmp / "root"), j


def test_a_node_the_kernel_made_again_on_sysfs_is_said_not_written_and_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On sysfs (userspace can make no file there) another inode on the same mount is the kernel's
    node made again (a driver reprobed), its limit reset with it: the journaled value is stale,
    said, not written; the restore is complete.  The tree's mount is taken for sysfs here
    (hw/fstype.py ``STABLE_FS_TYPES``, as bench/daemon_footprint.py does).  BASE 300b6c2: no
    identities, the stale value written."""
    t, tree, j = _rpi5_journal(tmp_path)
    _plant(t.root / POLICY / "scaling_max_freq")  # same mount, a new inode: "the kernel's" here
    monkeypatch.setattr(tree._stable, "stable", lambda _dev: True)
    msg = recover(tree, j)
    assert msg is not None and "the kernel made this attribute again" in msg, msg
    assert t.read_int(f"{POLICY}/scaling_max_freq") == 1113600, "the stale value not written"
    assert t.read_int(f"{POLICY}/scaling_min_freq") == 1500000 and not j.exists()


def test_the_same_file_is_restored_and_a_planted_one_refused_in_process(tmp_path: Path) -> None:
    """Not sysfs (a tmp tree): another inode at the path is a planted file, refused by name,
    the journal kept (exit 1 through the CLI: RuntimeFailure).  The twin limit is restored."""
    t, tree, j = _rpi5_journal(tmp_path)
    t.write(f"{POLICY}/scaling_min_freq", 1000000)
    _plant(t.root / POLICY / "scaling_max_freq")
    with pytest.raises(RuntimeFailure, match="scaling_max_freq: is not the file journaled"):
        recover(tree, j)
    assert t.read_int(f"{POLICY}/scaling_min_freq") == 1500000, "the twin restored"
    assert t.read_int(f"{POLICY}/scaling_max_freq") == 1113600 and j.exists()


def test_a_member_that_joined_mid_run_is_journaled_with_its_identity(tmp_path: Path) -> None:
    """policy6 appears mid-run under a two-domain profile and joins ``cpub`` (29r's rule): it is
    journaled before it is owned, so its identity is the file at its path then.  A file planted
    there after ``kill -9`` is refused by the restore like a member of the start's.  Before the
    fall-back to the file at the path, a member journaled before its ``own`` had no identity and
    the restore wrote into the planted file."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=92000, gpu_mc=92000)
    for c in (4, 5):
        (t.root / f"sys/devices/system/cpu/cpu{c}/cpufreq").unlink()
    shutil.rmtree(t.root / CPU / "policy4")
    t.policy(4, [4, 5], LITTLE_KHZ)
    proc = procutil.start_run(tmp_path, "--board", str(_two_cpu_domains(tmp_path)), "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    t.policy(6, [6], LITTLE_KHZ)
    assert "domain cpub" in procutil.wait_line(proc, "policy6", stream="stderr")
    journal = json.loads((tmp_path / "state" / "journal.json").read_text())
    assert f"{CPU}/policy6/scaling_max_freq" in journal["identities"], journal.get("identities")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)
    planted = _plant(t.root / CPU / "policy6/scaling_max_freq")
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "policy6/scaling_max_freq: is not the file journaled" in r.stderr, r.stderr
    assert (t.root / CPU / "policy6/scaling_max_freq").read_text() == planted
