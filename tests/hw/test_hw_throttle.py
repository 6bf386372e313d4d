"""Throttling that is not ours: readers on fake trees shaped like real Pi and Jetson sysfs."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.cli.script import thermogov
from tests.hw import fakesys
from tests.hw.cliargs import run_options
from tests.hw.fakesys import FakeTree
from tests.hw.fakethrottle import PI5_FW, pi_firmware, rpi_volt, set_oc, soctherm_oc
from thermogov.hw.daemon import Runner
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.throttle import (
    Ina3221Alarms,
    KernelTrips,
    PiFirmware,
    RpiVolt,
    SocthermOc,
    ThrottleMonitor,
    find_sources,
)
from thermogov.interfaces import SensorError
from thermogov.throttle import parse_get_throttled, parse_tags
from thermogov.trace import load_trace


def _monitor(root: Path, log: list[str] | None = None) -> ThrottleMonitor:
    return ThrottleMonitor(find_sources(SysfsTree(root)), None if log is None else log.append)


# -- get_throttled ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("50005\n", 0x50005),
        ("0\n", 0),
        ("throttled=0x50000", 0x50000),
        ("0x80008", 0x80008),
        ("e0000", 0xE0000),
    ],
)
def test_get_throttled_sysfs_and_vcgencmd_forms(text: str, value: int) -> None:
    assert parse_get_throttled(text, "f") == value


@pytest.mark.parametrize("text", ["", "\n", "nan", "inf", "-1", "0x", "throttled=", "zz", "123456789", "5 0"])
def test_get_throttled_garbage_is_an_error_naming_the_file(text: str) -> None:
    with pytest.raises(SensorError, match=r"^/x/get_throttled: .*not a get_throttled value"):
        parse_get_throttled(text, "/x/get_throttled")


def test_pi_levels_and_a_short_event_seen_only_in_the_sticky_bits(tmp_path: Path) -> None:
    t = fakesys.rpi4(tmp_path, cpu_mc=50000)
    pi_firmware(t, 0)
    mon = _monitor(tmp_path)
    assert isinstance(mon.sources[0], PiFirmware)
    seq = [(0.0, 0x0), (1.0, 0x50005), (2.0, 0x50004), (3.0, 0x40000), (4.0, 0x0), (5.0, 0x10000), (6.0, 0x0)]
    tags = {}
    for t_s, v in seq:
        pi_firmware(t, v)
        tags[t_s] = mon.poll(t_s)
    assert tags[0.0] == []
    assert tags[1.0] == ["throttle:throttled", "throttle:under-voltage"]
    assert tags[2.0] == ["throttle_end:under-voltage"]
    assert tags[3.0] == ["throttle_end:throttled"]  # sticky bit still set: the same episode
    assert tags[5.0] == ["throttle:under-voltage=1"]  # too short to be seen live: counted, no duration
    snap = mon.snapshot()
    assert dict(snap.counts) == {
        "under-voltage": 2,
        "throttled": 1,
        "freq-capped": 0,  # every kind the board's sources can report is listed from 0
        "soft-temp-limit": 0,
        "trip-critical@cpu-thermal": 0,
    }
    assert snap.seconds["under-voltage"] == pytest.approx(1.0)
    assert snap.seconds["throttled"] == pytest.approx(2.0)
    assert snap.active == frozenset()


def test_pi5_firmware_on_its_own_bus_name(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path)
    pi_firmware(t, 0x80008, PI5_FW)
    src = find_sources(SysfsTree(tmp_path))
    assert isinstance(src[0], PiFirmware) and src[0].rel == PI5_FW
    assert src[0].values()["now"] == ["soft-temp-limit"]


def test_rpi_volt_is_used_only_without_get_throttled(tmp_path: Path) -> None:
    t = fakesys.rpi4(tmp_path)
    rpi_volt(t, 1, 1)
    assert [type(s) for s in find_sources(SysfsTree(tmp_path))][:1] == [RpiVolt]
    assert _monitor(tmp_path).poll(0.0) == ["throttle:under-voltage"]
    pi_firmware(t, 0)
    assert not any(isinstance(s, RpiVolt) for s in find_sources(SysfsTree(tmp_path)))


# -- Jetson ------------------------------------------------------------------------------------------
def test_orin_oc_counters_count_increments_not_history(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path, jetpack=6)
    real = soctherm_oc(t, 5, (0, 15, 37))  # counts a board had before the run: not ours to count
    mon = _monitor(tmp_path)
    assert any(isinstance(s, SocthermOc) for s in mon.sources)
    assert not any(isinstance(s, Ina3221Alarms) for s in mon.sources)
    assert mon.poll(0.0) == []
    set_oc(t, real, (1, 15, 40))
    assert mon.poll(1.0) == ["throttle:over-current-instant=3", "throttle:under-voltage=1"]
    set_oc(t, real, (1, 15, 40))
    assert mon.poll(2.0) == []
    set_oc(t, real, (1, 2, 40))  # went down: the BPMP counters restarted, 2 new events
    assert mon.poll(3.0) == ["throttle:over-current-average=2"]
    assert {k: n for k, n in mon.snapshot().counts.items() if not k.startswith("trip")} == {
        "under-voltage": 1,
        "over-current-instant": 3,
        "over-current-average": 2,
    }
    assert mon.snapshot().seconds == {}  # counted kinds have no duration


def test_ina3221_alarms_when_there_is_no_oc_counter(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)
    hw = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1"
    t.write(f"{hw}/curr1_crit_alarm", 0)
    t.write(f"{hw}/curr1_max_alarm", 0)
    mon = _monitor(tmp_path)
    assert any(isinstance(s, Ina3221Alarms) for s in mon.sources)
    assert mon.poll(0.0) == []
    t.write(f"{hw}/curr1_crit_alarm", 1)
    assert mon.poll(1.0) == ["throttle:over-current-instant"]
    t.write(f"{hw}/curr1_crit_alarm", 0)
    assert mon.poll(2.0) == ["throttle_end:over-current-instant"]


# -- kernel trips ----------------------------------------------------------------------------------
def test_trip_crossings_counted_per_zone_and_type_with_the_kernels_hysteresis(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path, cpu_mc=45000)  # active trips 50/60/67.5/75 with 5 °C hysteresis
    zone = "sys/devices/virtual/thermal/thermal_zone0/temp"
    mon = _monitor(tmp_path)
    assert isinstance(mon.sources[-1], KernelTrips)
    kind = "trip-active@cpu-thermal"
    out = {}
    for t_s, mc in [(0, 45000), (1, 62000), (2, 56000), (3, 54000), (4, 61000), (5, 45500), (6, 44900)]:
        t.write(zone, mc)
        out[t_s] = mon.poll(float(t_s))
    assert out[0] == []
    assert out[1] == [f"throttle:{kind}", f"throttle:{kind}=1"]  # 50 and 60 crossed in one poll
    assert out[2] == [] and out[3] == []  # 60 releases below 55: level stays (50 still crossed)
    assert out[4] == [f"throttle:{kind}=1"]  # 60 crossed again
    assert out[5] == []  # 45.5 is not below 50 - 5
    assert out[6] == [f"throttle_end:{kind}"]
    snap = mon.snapshot()
    assert snap.counts[kind] == 3 and snap.seconds[kind] == pytest.approx(5.0)


def test_trip_kinds_name_zone_types_and_an_offline_zone_does_not_stop_the_others(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path, cpu_mc=100000)  # JetPack 5 names, passive 99 / critical 104.5
    t.write("sys/devices/virtual/thermal/thermal_zone1/temp", -256000)  # GPU-therm offline
    mon = _monitor(tmp_path)
    assert mon.poll(0.0) == ["throttle:trip-passive@CPU-therm"]


# -- garbage ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("garbage", ["", "zz\n", "nan\n", "-5\n", "1e3\n", "\xff\xfe"])
def test_garbage_in_one_source_skips_it_with_a_reason_and_never_raises(tmp_path: Path, garbage: str) -> None:
    t = fakesys.orin_nano(tmp_path, jetpack=6, cpu_mc=100000)
    real = soctherm_oc(t, 5, (0, 0, 0))
    log: list[str] = []
    mon = _monitor(tmp_path, log)
    mon.poll(0.0)
    t.write(f"{real}/oc2_event_cnt", garbage)
    tags = mon.poll(1.0)
    mon.poll(2.0)
    assert tags == []  # the trip stays crossed; nothing invented from the garbage
    assert len(log) == 1 and "throttle source soctherm_oc skipped" in log[0] and "oc2_event_cnt" in log[0]
    assert "oc2_event_cnt" in mon.snapshot().errors["soctherm_oc"]
    set_oc(t, real, (0, 1, 0))
    assert mon.poll(3.0) == ["throttle:over-current-average=1"]
    assert mon.snapshot().errors == {}


def test_a_failed_level_source_keeps_its_level_until_it_reads_again(tmp_path: Path) -> None:
    t = fakesys.rpi4(tmp_path)
    pi_firmware(t, 0x4)
    mon = _monitor(tmp_path)
    assert mon.poll(0.0) == ["throttle:throttled"]
    pi_firmware(t, "garbage\n")
    assert mon.poll(1.0) == []  # unknown is not "ended"
    pi_firmware(t, 0)
    assert mon.poll(2.0) == ["throttle_end:throttled"]


# -- doctor (installed script) and the daemon ---------------------------------------------------------
def test_doctor_shows_now_and_since_boot(tmp_path: Path) -> None:
    t = fakesys.rpi4(tmp_path / "pi")
    pi_firmware(t, 0x50005)
    before = t.snapshot()
    p = thermogov("doctor", "--sysfs-root", str(tmp_path / "pi"))
    assert p.returncode == 0, p.stderr
    assert "throttling not ours" in p.stdout
    assert "get_throttled 0x50005" in p.stdout
    assert "now: under-voltage, throttled; since boot" in p.stdout
    assert t.snapshot() == before
    o = fakesys.orin_nano(tmp_path / "orin", jetpack=6)
    soctherm_oc(o, 5, (0, 15, 37))
    p = thermogov("doctor", "--sysfs-root", str(tmp_path / "orin"), "--json")
    assert p.returncode == 0, p.stderr
    sources = {s["source"]: s for s in json.loads(p.stdout)["throttle_sources"]}
    assert sources["soctherm_oc"]["since_boot"] == {
        "oc1:under-voltage": 0,
        "oc2:over-current-average": 15,
        "oc3:over-current-instant": 37,
    }


def test_doctor_shows_garbage_in_place(tmp_path: Path) -> None:
    t = fakesys.rpi4(tmp_path)
    pi_firmware(t, "not-hex\n")
    p = thermogov("doctor", "--sysfs-root", str(tmp_path))
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert "rpi-firmware: ERROR" in p.stdout and "not a get_throttled value" in p.stdout


def test_doctor_says_when_a_board_has_no_firmware_source(tmp_path: Path) -> None:
    fakesys.jetson_nano(tmp_path)
    p = thermogov("doctor", "--sysfs-root", str(tmp_path))
    assert p.returncode == 0
    assert "no firmware or over-current source" in p.stdout


def test_daemon_traces_and_summarises_throttling_and_publishes_a_snapshot(tmp_path: Path) -> None:
    t: FakeTree = fakesys.rpi4(tmp_path / "root", cpu_mc=82000, trips=(("passive", 80000, 2000),))
    pi_firmware(t, 0x50005)
    runner = Runner(run_options(tmp_path, dry_run=True), out=io.StringIO(), err=io.StringIO())
    summary = runner.run()
    assert summary["throttle_events"] == {
        "throttled": 1,
        "trip-passive@cpu-thermal": 1,
        "under-voltage": 1,
    }
    assert summary["throttle_time_s"]["under-voltage"] > 0
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    first = trace["event"][0]
    assert {k for op, k, _ in parse_tags(first) if op == "start"} == set(summary["throttle_events"])
    snap = runner.throttle_counters()
    assert {k: n for k, n in snap.counts.items() if n} == summary["throttle_events"]
    assert snap.counts["freq-capped"] == 0  # every kind the board can report is listed from 0
    assert snap.active == frozenset(summary["throttle_events"])


def test_run_prints_throttling_and_episodes_through_the_installed_script(tmp_path: Path) -> None:
    from tests.hw.cliargs import run_args

    t = fakesys.rpi4(tmp_path / "root", cpu_mc=86000, trips=(("passive", 80000, 2000),))
    pi_firmware(t, 0x50005)
    p = thermogov("run", *run_args(tmp_path, "--dry-run"))
    assert p.returncode == 0, p.stderr
    assert "throttling not ours" in p.stdout and "under-voltage x1" in p.stdout
    assert "trip-passive@cpu-thermal x1" in p.stdout
    assert "mitigation episodes" in p.stdout and "(open at the end)" in p.stdout


# -- trees materialised from real listings (skipped when the real data is absent) -------------------
def test_real_pi4_gpiofan_dump_counts_its_active_trip_crossed(tmp_path: Path) -> None:
    from tests.hw.fakesys import real_file, tree_from_grep_dump

    tree_from_grep_dump(tmp_path, real_file("sysfs_rpi4_thermal_gpiofan_throttle_issue135.txt").read_text())
    mon = _monitor(tmp_path)
    assert mon.poll(0.0) == ["throttle:trip-active@cpu-thermal"]  # 74.0 °C over the 70 °C fan trip


def test_real_cm4_dump_crossings_follow_its_hysteresis(tmp_path: Path) -> None:
    from tests.hw.fakesys import real_file, tree_from_grep_dump

    t = tree_from_grep_dump(tmp_path, real_file("sysfs_rpi-cm4_thermal_zone_trips_issue19.txt").read_text())
    t.write("sys/class/thermal/thermal_zone0/type", "cpu-thermal\n")  # type is not in the excerpt
    mon = _monitor(tmp_path)
    temp = "sys/class/thermal/thermal_zone0/temp"
    got = []
    for i, mc in enumerate((47712, 50000, 48500, 47900, 76000)):
        t.write(temp, mc)
        got.append(mon.poll(float(i)))
    kind = "trip-active@cpu-thermal"
    assert got == [
        [],
        [f"throttle:{kind}"],
        [],
        [f"throttle_end:{kind}"],
        [f"throttle:{kind}", f"throttle:{kind}=1"],
    ]


def test_published_state_and_metrics_carry_the_throttle_counts_by_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("prometheus_client")
    from prometheus_client.parser import text_string_to_metric_families

    import thermogov.hw.publish as publish
    from thermogov.hw.metrics import exposition, series

    t = fakesys.rpi4(tmp_path / "root", cpu_mc=60000)
    pi_firmware(t, 0x50005)
    docs: list[dict] = []
    real_replace = publish.replace_atomic

    def capture(path: Path, data: bytes) -> None:
        docs.append(json.loads(data))
        real_replace(path, data)

    monkeypatch.setattr(publish, "replace_atomic", capture)
    opts = run_options(
        tmp_path, dry_run=True, publish=publish.PublishOptions(state_file=tmp_path / "run" / "state.json")
    )
    Runner(opts, out=io.StringIO(), err=io.StringIO()).run()
    doc = docs[-1]
    assert doc["throttle"]["under-voltage"] == 1 and doc["throttle"]["freq-capped"] == 0
    from thermogov.client import parse_state
    from thermogov.hw.statusview import summary_lines

    shown = [ln for ln in summary_lines(parse_state(doc, "state.json"), None) if ln.startswith("throttle")]
    assert shown and "under-voltage 1" in shown[0] and "freq-capped" not in shown[0]  # zeros not said

    fams = {f.name: f for f in text_string_to_metric_families(exposition(series(doc)).decode())}
    got = {
        s.labels["kind"]: s.value
        for s in fams["thermogov_throttle_events"].samples
        if s.name.endswith("_total")
    }
    assert got["under-voltage"] == 1 and got["throttled"] == 1
    assert got["freq-capped"] == 0 and got["trip-critical@cpu-thermal"] == 0
