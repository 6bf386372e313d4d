"""Session 23b: late zones' leftovers (hw/latezones.py, hw/daemon.py, hw/doctor.py, `status`).

A battery the profile names that is absent at start is waited for as a zone is; `doctor` and a
running daemon's `status` say what is waited for; a dropout (the file still there, its read
failing) shows an empty trace column, not its last value; a zone that never appears is looked
for less and less often, and `stepped`'s context counts only the sensors the board has.  The
daemon runs on a virtual clock (as tests/hw/test_hw_late_zones.py does): no sleep, no timing.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_late_zones import GpuZone
from tests.hw.test_hw_late_zones import _run as late_zones_run
from thermogov.config import parse_config
from thermogov.hw import daemon, sysfs
from thermogov.hw.discovery import THERMAL
from thermogov.hw.latezones import MAX_LOOK_S, PROMPT_S
from thermogov.hw.publish import PublishOptions

BAT = "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=80"


def _run(
    work: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, script: Callable[[float], None]
) -> tuple[list[dict[str, str]], str]:
    """tests/hw/test_hw_late_zones.py's virtual-clock dry run, publishing its state."""
    publish = PublishOptions(state_file=work / "run" / "state.json")
    return late_zones_run(work, monkeypatch, seconds, script, publish=publish)


def _t(r: dict[str, str]) -> float:
    return float(r["t_s"])


def _when(rows: list[dict[str, str]], tag: str) -> list[float]:
    return [_t(r) for r in rows if tag in r["event"].split()]


def _without_gpu_zone(t: fakesys.FakeTree) -> GpuZone:
    """The GPU's thermal zone taken out (its module not loaded), to be put back with ``back()``."""
    gpu = GpuZone(t, t.root.parent)
    gpu.leave()
    return gpu


def kept_state_without_gpu(work: Path, monkeypatch: pytest.MonkeyPatch, at_s: float) -> tuple[Path, Path]:
    """An Orin Nano run with its GPU zone absent; the state it published at ``at_s`` kept (the
    daemon deletes its state file when it stops).  The sysfs root and the kept copy."""
    t = fakesys.orin_nano(work / "root", jetpack=6, battery_decic=300)
    _without_gpu_zone(t)
    kept = work / "kept.json"

    def keep(el: float) -> None:
        state = work / "run" / "state.json"
        if el >= at_s and not kept.exists() and state.exists():
            shutil.copy(state, kept)

    _run(work, monkeypatch, at_s + 1.0, keep)
    return t.root, kept


def test_a_battery_the_profile_names_absent_at_start_joins_when_it_appears(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: the profile's battery, absent at start, was dropped for the run (no battery_c column).
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)

    def plug_in(el: float) -> None:
        if el >= 5.0 and not (t.root / "sys/class/power_supply/BAT0").exists():
            t.supply("BAT0", BAT, temp_decic=305)

    rows, err = _run(tmp_path, monkeypatch, 20.0, plug_in)
    assert "battery_c" in rows[0], "the waiting battery has its column from the start"
    assert all(r["battery_c"] == "" for r in rows if _t(r) < 5.0)
    joined = _when(rows, "sensor_joined:battery")
    assert len(joined) == 1 and 5.0 <= joined[0] <= 6.0, joined
    assert all(float(r["battery_c"]) == 30.5 for r in rows if _t(r) >= joined[0] + 1.0)
    # Waited for without a start warning (a mains board naming a pack is the common case).
    assert "sensor battery is not there yet" not in err and "sensor battery: BAT0" in err, err
    summary = json.loads(
        next(p for p in (tmp_path / "out").iterdir() if p.is_dir()).joinpath("summary.json").read_text()
    )
    assert summary["missing_sensors"] == {} and "battery" in summary["joined_late"], summary


def test_doctor_says_what_a_fused_sensor_not_there_yet_is_waited_for_as(tmp_path: Path) -> None:
    # Main: "sensor gpu MISSING: ..." and nothing about `run` waiting for it.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, battery_decic=300)
    _without_gpu_zone(t)
    p = procutil.run_cli("doctor", "--sysfs-root", str(t.root))
    assert p.returncode == 0, p.stderr
    assert "waiting for gpu (a thermal zone of type gpu-thermal" in p.stdout, p.stdout
    p = procutil.run_cli("doctor", "--json", "--sysfs-root", str(t.root))
    sensors = {s["name"]: s for s in json.loads(p.stdout)["mapping"]["sensors"]}
    assert "gpu-thermal" in sensors["gpu"]["waiting_for"], sensors["gpu"]
    assert "waiting_for" not in sensors["cpu"]


def test_status_of_a_running_daemon_shows_the_sensor_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: the state names no waiting sensor; `status` shows "gpu ?" and nothing else.
    _t_root, kept = kept_state_without_gpu(tmp_path, monkeypatch, 3.0)
    doc = json.loads(kept.read_text())
    assert set(doc["temperature_c"]["waiting"]) == {"gpu"}, doc["temperature_c"]
    p = procutil.status_cli("--state", str(kept), refresh=lambda: procutil.restamp(kept))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "waiting for gpu (a thermal zone of type gpu-thermal" in p.stdout, p.stdout


def test_a_dropout_with_the_file_still_there_shows_an_empty_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: the gpu column kept 80.000 through the ticks its reads failed.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=80000)
    link = next(p for p in (t.root / THERMAL).iterdir() if (p / "type").read_text().strip() == "gpu-thermal")
    temp = link.resolve() / "temp"

    def dropout(el: float) -> None:
        # 10-15 s: out of range (the sensor's own rule: not a temperature); 15-20 s: EIO-like text
        # (empty); then good again.  The file is there throughout.
        want = "200000\n" if 10.0 <= el < 15.0 else "\n" if 15.0 <= el < 20.0 else "80000\n"
        if temp.read_text() != want:
            temp.write_text(want)

    rows, _err = _run(tmp_path, monkeypatch, 30.0, dropout)
    assert not _when(rows, "sensor_left:gpu"), "a dropout is not a sensor gone"
    assert all(r["gpu_c"] == "" for r in rows if 10.5 <= _t(r) < 20.0), "empty while it had no reading"
    assert all(float(r["gpu_c"]) == 80.0 for r in rows if 5.0 <= _t(r) < 10.0 or _t(r) >= 20.5)
    assert all(r["cpu_c"] != "" for r in rows), "the other sensors are untouched"
    # The fusion's rule is unchanged: a known temperature throughout, never below the cpu's.
    assert all(r["fused_c"] != "" and float(r["fused_c"]) >= 60.0 for r in rows)


def test_a_zone_that_never_appears_is_looked_for_less_often_and_joins_within_the_ceiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: one listing of the thermal class folder a second for the whole run (600 in 600 s).
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, battery_decic=300)
    gpu = _without_gpu_zone(t)
    lists: list[str] = []
    real_listdir = sysfs.SysfsTree.listdir

    def listdir(tree: sysfs.SysfsTree, rel: str, *a: object, **k: object) -> list[str]:
        lists.append(rel)
        return real_listdir(tree, rel, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(sysfs.SysfsTree, "listdir", listdir)
    appear_at = 400.0

    def appear(el: float) -> None:
        if el >= appear_at and not gpu.link.is_symlink():
            gpu.back()

    rows, _err = _run(tmp_path, monkeypatch, 480.0, appear)
    looks = lists.count(THERMAL)
    assert looks <= PROMPT_S + appear_at / MAX_LOOK_S + 10, looks
    joined = _when(rows, "sensor_joined:gpu")
    assert joined and appear_at <= joined[0] <= appear_at + MAX_LOOK_S + 1.0, joined


def test_stepped_s_context_counts_only_the_sensors_the_board_has(tmp_path: Path) -> None:
    # Main: the gpu zone waited for was in the context (its period, limit and weight counted).
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, battery_decic=300)
    _without_gpu_zone(t)
    opts = daemon.RunOptions(parse_config({}), t.root, dry_run=True)
    prep = daemon.prepare(opts)
    assert "gpu" in {s.name for s in prep.specs}, "still fused once it appears"
    assert daemon.policy_context(prep).sensor_names == ("cpu", "battery")


HOSTILE_STATES: dict[str, tuple[Callable[[Path], None], str]] = {
    "not json": (lambda p: p.write_text("[[[[\n"), "not JSON"),
    "5000 digits": (
        lambda p: p.write_text('{"pid": ' + "9" * 5000 + "}"),
        "a number of more than 4300 digits",
    ),
    "nested": (lambda p: p.write_text("[" * 400 + "]" * 400), "nested more than"),
    "a link loop": (lambda p: p.symlink_to(p.name), "link loop"),
    "a fifo": (lambda p: os.mkfifo(p), "not a regular file"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_STATES))
def test_doctor_says_in_one_line_that_a_state_file_there_could_not_be_read(tmp_path: Path, kind: str) -> None:
    # Main (session 25l): a hostile or corrupt --state file was passed over in silence, as if no
    # daemon ran; doctor still goes on and says it in its report.  Session 28h: a --state given
    # that no state can be read at is bad input, so the status is then 2, its line last.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, battery_decic=300)
    make, why = HOSTILE_STATES[kind]
    state = tmp_path / "state.json"
    make(state)
    plain = procutil.run_cli("doctor", "--sysfs-root", str(t.root), "--state", str(tmp_path / "none.json"))
    p = procutil.run_cli("doctor", "--sysfs-root", str(t.root), "--state", str(state))
    assert plain.returncode == 0 and p.returncode == 2, p.stdout + p.stderr
    assert p.stderr.splitlines()[-1].startswith("thermogov: error: --state: "), p.stderr
    said = [ln for ln in p.stdout.splitlines() if ln.startswith("state file not read: ")]
    assert len(said) == 1 and str(state) in said[0] and why in said[0], p.stdout
    assert [ln for ln in p.stdout.splitlines() if ln not in said] == plain.stdout.splitlines()
    assert "state file" not in plain.stdout and "Traceback" not in p.stderr
    p = procutil.run_cli("doctor", "--json", "--sysfs-root", str(t.root), "--state", str(state))
    assert p.returncode == 2 and why in json.loads(p.stdout)["state_file"], p.stdout
