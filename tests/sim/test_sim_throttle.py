"""The simulated board's protections are counted and named like a real board's (thermogov.throttle)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from thermogov.board import load_board
from thermogov.config import Config, SimConfig
from thermogov.sim.model.runner import simulate
from thermogov.throttle import ThrottleTally, parse_tags
from thermogov.trace import load_trace


def _config(board: str, ambient: float, duration_s: float) -> Config:
    cfg = Config(board=board, policy="performance")
    return dataclasses.replace(
        cfg, sim=dataclasses.replace(cfg.sim, ambient_c=ambient, duration_s=duration_s)
    )


def test_pi_firmware_throttle_is_the_throttled_kind_with_its_time(tmp_path: Path) -> None:
    res = simulate(_config("rpi5", 40.0, 900.0), None, tmp_path)
    s = res.summary
    assert s["board_throttle_events"] >= 1
    assert s["throttle_events"] == {"throttled": s["board_throttle_events"]}
    trace = load_trace(res.run_dir)
    starts = [
        t for t, ev in zip(trace["t_s"], trace["event"], strict=True) if ev and "throttle:throttled" in ev
    ]
    boards = [
        t for t, ev in zip(trace["t_s"], trace["event"], strict=True) if ev and "board_throttle" in ev.split()
    ]
    assert starts == boards  # the same instants as the simulator's own tag
    # Active from its first tag to the end of the run (nothing cools a Pi 5 at 40 °C ambient).
    assert s["throttle_time_s"]["throttled"] > 0.5 * (s["duration_s"] - starts[0])


def test_jetson_passive_trip_is_counted_per_zone_like_the_kernel(tmp_path: Path) -> None:
    board = load_board("jetson-orin-nano")
    hot = [
        dataclasses.replace(p, start_c=70.0, full_c=70.0) if p.kind == "throttle" else p
        for p in board.protections
    ]
    board = dataclasses.replace(board, protections=tuple(hot))
    res = simulate(_config("jetson-orin-nano", 35.0, 600.0), board, tmp_path)
    events = res.summary["throttle_events"]
    assert set(events) <= {"trip-passive@cpu-thermal", "trip-passive@gpu-thermal"}
    assert events.get("trip-passive@cpu-thermal", 0) >= 1
    # Rebuilt from the trace alone, the counts are those of the summary.
    trace = load_trace(res.run_dir)
    tally = ThrottleTally()
    for t, ev in zip(trace["t_s"], trace["event"], strict=True):
        tally.observe(t, ev or "")
    assert tally.summary(trace["t_s"][-1])["throttle_events"] == events
    kinds = {k for ev in trace["event"] if ev for _, k, _ in parse_tags(ev)}
    assert kinds == set(events)


def test_a_cool_run_has_no_throttling_and_no_episode(tmp_path: Path) -> None:
    cfg = Config(board="rpi5", sim=SimConfig(duration_s=60.0, ambient_c=20.0))
    s = simulate(cfg, None, tmp_path).summary
    assert s["throttle_events"] == {} and s["throttle_time_s"] == {}
    assert s["mitigation_episodes"] == [] and s["mitigation_episodes_total"] == 0


def test_an_emulated_pi_shows_its_firmware_throttle_to_the_board_reader(tmp_path: Path) -> None:
    from thermogov.hw.sysfs import SysfsTree
    from thermogov.hw.throttle import PiFirmware, ThrottleMonitor
    from thermogov.sim.emulator.emulate import Emulator

    hot = _config("rpi5", 40.0, 60.0)
    emu = Emulator(load_board("rpi5"), tmp_path / "pi", hot, warm_up_s=600.0)  # flat out: throttling
    mon = ThrottleMonitor.open(SysfsTree(tmp_path / "pi"))
    assert any(isinstance(s, PiFirmware) for s in mon.sources)
    assert "throttle:throttled" in mon.poll(0.0)
    assert PiFirmware(
        SysfsTree(tmp_path / "pi"), "sys/devices/platform/soc/soc:firmware/get_throttled"
    ).values()["since_boot"] == ["throttled"]
    emu.world.throttles[0].active = False  # the protection released (as after cooling)
    emu.firmware.update(False)
    assert mon.poll(1.0) == ["throttle_end:throttled"]
    cool = Emulator(load_board("jetson-orin-nano"), tmp_path / "orin", Config())
    assert cool.firmware.path is None
    assert not (tmp_path / "orin" / "sys/devices/platform/soc/soc:firmware").exists()


def _with_overcurrent(limit_w: float) -> object:
    from thermogov.board import Protection

    board = load_board("jetson-orin-nano")
    gpu, cpu = board.domain("gpu"), board.domain("cpu")
    oc = Protection(
        kind="overcurrent",
        nodes=(),
        start_c=0.0,
        period_ms=200,
        domains=("cpu", "gpu"),
        floor_hz=(cpu.opp_hz[0], gpu.opp_hz[0]),
        limit_w=limit_w,
    )
    return dataclasses.replace(board, protections=(*board.protections, oc))


def test_jetson_over_current_throttle_counts_events_like_the_orin_counters(tmp_path: Path) -> None:
    rows: list = []
    free = simulate(
        _config("jetson-orin-nano", 25.0, 120.0), None, tmp_path / "free", on_tick=rows.append
    ).summary
    assert free["throttle_events"] == {}
    full_w = max(r.power_w for r in rows if r.power_w is not None)
    res = simulate(_config("jetson-orin-nano", 25.0, 120.0), _with_overcurrent(0.8 * full_w), tmp_path)
    s = res.summary
    n = s["throttle_events"].get("over-current-average", 0)
    assert n > 0 and s["throttle_time_s"] == {}  # counted events, no duration (like oc2_event_cnt)
    assert s["inferences_total"] < free["inferences_total"]  # the throttle cost throughput
    assert n == res.world.overcurrents[0].events
    trace = load_trace(res.run_dir)
    assert any(ev and "throttle:over-current-average=1" in ev for ev in trace["event"])


def test_overcurrent_protection_profile_keys_are_checked() -> None:
    import pytest

    from thermogov.board import builtin_board_data, parse_board
    from thermogov.interfaces import ConfigError

    data = builtin_board_data("jetson-orin-nano")
    good = {
        "kind": "overcurrent",
        "limit_w": 12.0,
        "domains": ["cpu"],
        "floor_mhz": [729.6],
        "period_ms": 100,
    }
    board = parse_board({**data, "protections": [*data["protections"], good]}, "b.toml")
    assert board.protections[-1].limit_w == 12.0 and board.protections[-1].nodes == ()
    for bad, needle in (
        ({k: v for k, v in good.items() if k != "limit_w"}, "limit_w"),
        ({**good, "limit_w": 0.0}, "limit_w"),
        ({**good, "limit_w": float("nan")}, "limit_w"),
        ({**good, "floor_mhz": []}, "floor_mhz"),
    ):
        with pytest.raises(ConfigError, match=needle):
            parse_board({**data, "protections": [*data["protections"], bad]}, "b.toml")
