"""Session 28r: the root daemon's safety items session 27 left, and a review of its merges
(docs/hardware.md, "Session 28r").

(1) A cpufreq policy whose folder is absent at start (its CPU hotplugged out on a kernel that
removes the folder, a cpufreq driver loaded late) and that appears mid-run: one the profile names
was waited for; one it names not (a policy per CPU under a profile naming clusters) was never
looked at, and its CPU ran at full clock on a hot board.  Now both are capped with the domain when
they appear, journaled, and put back on every exit path.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import thermogov
from tests.hw import fakesys, procutil
from tests.hw.test_hw_late_chargers import power_each_second
from tests.hw.test_hw_review26 import EXITS, _exit
from tests.hw.test_hw_trees26 import CPUF, HOT, PER_CORE_KHZ
from thermogov.config import parse_config


def _per_core_orin(root: Path, cores: int, absent: tuple[int, ...]) -> fakesys.FakeTree:
    """tests/hw/test_hw_trees26.py's T234-class board with a policy per CPU, the CPUs of
    ``absent`` without a policy folder (a kernel that removes it with the CPU, a late driver)."""
    t = fakesys.FakeTree(root)
    t.model("Acme T234 box", ("acme,box", "nvidia,tegra234"))
    t.zone(0, "cpu-thermal", HOT)
    t.zone(1, "gpu-thermal", HOT)
    for c in range(cores):
        if c not in absent:
            t.policy(c, [c], PER_CORE_KHZ)
    return t


def _without(snap: dict[str, bytes | str], prefixes: tuple[str, ...]) -> dict[str, bytes | str]:
    return {k: v for k, v in snap.items() if not k.startswith(prefixes)}


def _only(snap: dict[str, bytes | str], prefixes: tuple[str, ...]) -> dict[str, bytes | str]:
    return {k: v for k, v in snap.items() if k.startswith(prefixes)}


@pytest.mark.parametrize("how", EXITS)
def test_a_policy_absent_at_start_named_or_not_is_capped_when_it_appears_and_restored(
    tmp_path: Path, how: str
) -> None:
    """Eight per-CPU policies under ``--board jetson-orin-nano`` (its cpu domain names policy0 and
    policy4); policy4 (named) and policy5 (named by no domain) have no folder at start.  Both
    appear mid-run: each is capped with the domain, then every exit path leaves each policy's files
    as they were when it appeared.  Main: policy5 is never looked at (its line never comes, its
    max stays the kernel's top)."""
    late = (4, 5)
    t = _per_core_orin(tmp_path / "root", 8, absent=late)
    before_start = t.snapshot()
    proc = procutil.start_run(tmp_path, "--board", "jetson-orin-nano", "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    top = max(PER_CORE_KHZ)
    cap = t.read_int(f"{CPUF}/policy1/scaling_max_freq")
    assert cap < top
    for c in late:
        t.policy(c, [c], PER_CORE_KHZ)
    before = t.snapshot()  # the late policies as they appeared: what restore puts back for them
    for c in late:
        procutil.wait_line(proc, f"policy{c} appeared", stream="stderr")
    for c in late:
        assert (
            t.read_int(f"{CPUF}/policy{c}/scaling_max_freq")
            == t.read_int(f"{CPUF}/policy1/scaling_max_freq")
            < top
        )
    said = _exit(proc, tmp_path, how)
    assert "Traceback" not in said, said[-1500:]
    late_rels = tuple(f"{CPUF}/policy{c}" for c in late) + tuple(
        f"sys/devices/system/cpu/cpu{c}" for c in late
    )
    after = t.snapshot()
    assert _only(after, late_rels) == _only(before, late_rels), said[-1500:]  # as they appeared
    assert _without(after, late_rels) == _without(before_start, late_rels), said[-1500:]


# -- (2) which pack is "the battery": the one the profile's battery sensor names ---------------
def _battery_board(tmp: Path, names: str) -> Path:
    """jetson-orin-nano's profile with its battery sensor's ``sysfs_names`` set to ``names``."""
    text = (Path(thermogov.__file__).parent / "boards" / "jetson-orin-nano.toml").read_text()
    marker = "sysfs_names = []             # any power_supply of type Battery"
    assert marker in text
    path = tmp / "two-packs.toml"
    path.write_text(text.replace(marker, f"sysfs_names = {names}"))
    return path


CHARGING0 = "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Charging\nPOWER_SUPPLY_CAPACITY=20"
DISCHARGING1 = "POWER_SUPPLY_NAME=BAT1\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=70"


@pytest.mark.parametrize(("names", "state"), [('["BAT1"]', "discharging"), ('["BAT0"]', "charging")])
def test_doctor_reads_the_pack_the_profile_names_of_two(tmp_path: Path, names: str, state: str) -> None:
    """Two packs at start, the profile's battery sensor naming one: ``doctor`` (and ``run``, the
    same reader) takes its status as the power state.  Main: the first by name, BAT0, whatever
    the profile named (so ``["BAT1"]`` read charging while BAT1's temperature was the one fused)."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    t.supply("BAT0", CHARGING0, temp_decic=300)
    t.supply("BAT1", DISCHARGING1, temp_decic=310)
    board = _battery_board(tmp_path, names)
    r = procutil.run_cli("doctor", "--json", "--board", str(board), "--sysfs-root", str(t.root))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert json.loads(r.stdout)["power_state"]["state"] == state, r.stdout[-800:]


def test_of_two_packs_new_in_one_listing_the_one_the_profile_names_is_the_power_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No pack at start; BAT0 (charging, no temp) and BAT1 (discharging, the profile's) are new in
    one listing: BAT1's status is the power state from then on, said once, BAT0 never.  Main: the
    first by name (BAT0: charging), while the zone fused BAT1's temperature."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=0", kind="Mains")
    cfg = parse_config({"run": {"board_file": str(_battery_board(tmp_path, '["BAT1"]'))}})
    cls = t.root / "sys/class/power_supply"

    def plug(el: float) -> None:
        if el >= 3.0 and not (cls / "BAT1").exists():
            t.supply("BAT0", CHARGING0)
            t.supply("BAT1", DISCHARGING1, temp_decic=310)

    power, err = power_each_second(tmp_path, monkeypatch, 8.0, plug, cfg)
    states = {s: p["state"] for s, p in power.items()}
    assert {states[s] for s in states if s >= 5} == {"discharging"}, states
    assert power[max(power)]["capacity_pct"] == 70, power[max(power)]
    assert err.count("power supply BAT1 (Battery) appeared") == 1, err
    assert "power supply BAT0" not in err and "Traceback" not in err, err


# -- (3) nvpmodel's Super modes against the profile picked (said, never changed) ----------------
def _conf(*names: str) -> str:
    """An nvpmodel.conf with one CPU param and a POWER_MODEL per name (ID = its index)."""
    head = f"< PARAM TYPE=CLOCK NAME=CPU_A78_0 >\nMAX_FREQ /{CPUF}/policy0/scaling_max_freq\n"
    return head + "".join(
        f"< POWER_MODEL ID={i} NAME={n} >\nCPU_A78_0 MAX_FREQ -1\n" for i, n in enumerate(names)
    )


SUPER_CONF = _conf("15W", "25W", "MAXN_SUPER", "7W")
OLD_CONF = _conf("MAXN", "10W", "15W")


@pytest.mark.parametrize(
    ("board", "conf", "mode", "said"),
    [
        ("jetson-orin-nano", SUPER_CONF, 2, "nvpmodel mode 2 is MAXN_SUPER"),
        ("jetson-orin-nano-devkit", SUPER_CONF, 2, "choose jetson-orin-nano-super"),
        ("jetson-orin-nano-super", OLD_CONF, 0, "defines no *SUPER mode"),
        ("jetson-orin-nano-super", SUPER_CONF, 1, ""),  # the Super kit in its 25 W mode: its own board
        ("jetson-orin-nano", SUPER_CONF, 1, ""),
        ("jetson-orin-nano", OLD_CONF, 0, ""),
    ],
)
def test_a_super_mode_under_a_profile_that_is_not_is_said_once_and_left(
    tmp_path: Path, board: str, conf: str, mode: int, said: str
) -> None:
    """``doctor`` and ``run``'s start say it once when nvpmodel's mode (``/var/lib/nvpmodel/status``
    named by ``/etc/nvpmodel.conf``) is a Super mode under a profile that is not, or the profile is
    a Super one on firmware with no Super mode; nothing else, and the mode's files are never
    written.  Main: nothing was said (the mode's name was never read)."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    t.write("etc/nvpmodel.conf", conf)
    t.write("var/lib/nvpmodel/status", f"pmode:{mode:04d} fmode:quiet\n")
    before = t.snapshot()
    r = procutil.run_cli("doctor", "--board", board, "--sysfs-root", str(t.root))
    assert "Traceback" not in r.stderr and r.returncode == 0, r.stderr
    text = r.stdout + r.stderr
    if said:
        assert text.count(said) == 1, text[-1500:]
    else:
        assert "Super" not in text, text[-1500:]
    proc = procutil.start_run(tmp_path, "--board", board, "--duration", "120s")
    start = procutil.wait_line(proc, "thermogov: started") if not said else ""
    if said:
        line = procutil.wait_line(proc, "Super", stream="stderr")
        assert said in line, line
        procutil.wait_line(proc, "thermogov: started")
    err = procutil.stopped_as_before(proc, t, before, "Traceback")
    assert "Super" not in err + start, err[-1500:]


# -- review of session 27's keep_writing: a stderr that takes no write ----------------------------
def test_a_stderr_that_takes_no_write_neither_ends_the_run_nor_changes_its_status(tmp_path: Path) -> None:
    """``run`` on a hot board with stderr on a full disk (``/dev/full``: ENOSPC at every write) runs
    its whole duration, restores every limit and exits 0; bad input there stays exit 2.  Main
    (ffbf60d): the daemon's "limits restored" line raised, the error's own line raised again and
    the interpreter printed a traceback to nowhere, exit 120; doctor's bad ``--board``, exit 1."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    before = t.snapshot()
    cfg = tmp_path / "hysteresis.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--config", str(cfg)]
    with open(os.devnull, "w") as null, open("/dev/full", "w") as full:
        run = subprocess.run(
            [*procutil.script(), "run", *args, "--duration", "2s", "--board", "jetson-orin-nano-devkit"],
            stdout=subprocess.PIPE,
            stderr=full,
            timeout=procutil.DEADLINE_S,
        )
        assert run.returncode == 0 and b"thermogov: started" in run.stdout, run.stdout[-800:]
        assert t.snapshot() == before
        bad = subprocess.run(
            [
                *procutil.script(),
                "doctor",
                "--board",
                str(tmp_path / "none.toml"),
                *procutil.paths(tmp_path)[:2],
            ],
            stdout=null,
            stderr=full,
            timeout=procutil.DEADLINE_S,
        )
        assert bad.returncode == 2
