from __future__ import annotations

import dataclasses

import pytest

from tests.conftest import with_sim
from thermogov import costmodel
from thermogov.board import load_board
from thermogov.config import Config, SensorOverride, SimEvent, WorkloadConfig
from thermogov.governor import TickRecord
from thermogov.powerconfig import PowerConfig
from thermogov.sim.model.runner import simulate


def ticks(cfg: Config) -> list[TickRecord]:
    rows: list[TickRecord] = []
    simulate(cfg, on_tick=rows.append)
    return rows


def test_default_scenario_trips_within_minutes_and_cycles() -> None:
    cfg = Config(policy="hysteresis")  # the README's default scenario: 10 simulated minutes
    rows = ticks(cfg)
    trips = [r.t_s for r in rows if "trip" in r.event.split()]
    releases = [r.t_s for r in rows if "release" in r.event.split()]
    assert trips and trips[0] < 240.0
    assert len(trips) >= 3 and len(releases) >= 2
    # The governor's action is what keeps it there: fused never runs away past the trip.
    assert max(r.fused_c for r in rows) < 86.0


def test_default_policy_holds_the_default_scenario_under_the_trip() -> None:
    cfg = Config()
    assert cfg.policy == "stepped"
    rows = ticks(cfg)
    fused = [r.fused_c for r in rows]
    assert max(fused) < 85.0  # it steps down before the trip instead of bouncing off it
    assert max(fused) > 80.0  # ... but it does use the thermal headroom
    assert any(r.caps_hz != rows[0].caps_hz for r in rows)


def test_lowering_the_cap_lowers_throughput_and_temperature(short_config: Config) -> None:
    results = {}
    for pol in ("fixed:100%", "fixed:50%", "fixed:0%"):
        r = simulate(dataclasses.replace(short_config, policy=pol))
        temps = [t for t in r.world.plant.temps_c()]
        results[pol] = (r.world.server.completed, max(temps), r.world.energy_j)
    thr = [results[p][0] for p in ("fixed:100%", "fixed:50%", "fixed:0%")]
    hot = [results[p][1] for p in ("fixed:100%", "fixed:50%", "fixed:0%")]
    assert thr[0] > thr[1] > thr[2]
    assert hot[0] > hot[1] > hot[2]


def test_saturating_throughput_matches_the_cost_model(short_config: Config) -> None:
    board = load_board("jetson-orin-nano")
    cfg = with_sim(dataclasses.replace(short_config, policy="fixed:0%"), duration_s=60.0)
    r = simulate(cfg, board)
    clocks = {d.name: d.opp_hz[0] for d in board.domains}
    expected = 60.0 / costmodel.inference_time_s(board.model, clocks)
    assert r.world.server.completed == pytest.approx(expected, abs=2)


def test_same_seed_same_trace_other_seed_other_noise(short_config: Config) -> None:
    cfg = with_sim(short_config, duration_s=30.0)
    a, b = ticks(cfg), ticks(cfg)
    c = ticks(dataclasses.replace(cfg, seed=2))
    assert a == b
    assert [r.readings_c for r in a] != [r.readings_c for r in c]


def test_noise_and_arrivals_do_not_depend_on_the_policy(short_config: Config) -> None:
    """Paired comparisons: a sensor's noise at an instant is the same whatever the caps."""
    cfg = with_sim(short_config, duration_s=5.0, initial_temp_c=50.0)
    a = simulate(dataclasses.replace(cfg, policy="fixed:0%"))
    b = simulate(dataclasses.replace(cfg, policy="fixed:100%"))
    na, nb = a.world.sensors["cpu"]._noise, b.world.sensors["cpu"]._noise
    assert na == nb and len(na) == 4096


def test_sensor_dropout_drops_it_from_fusion_and_returns(short_config: Config) -> None:
    ev = SimEvent(at_s=10.0, kind="sensor_dropout", target="gpu", duration_s=5.0)
    rows = ticks(with_sim(short_config, duration_s=25.0, events=(ev,)))
    used = {round(r.t_s, 1): r.sensors_used for r in rows}
    assert used[9.0] == "cpu+gpu+battery"
    assert used[12.0] == "cpu+battery"
    assert used[20.0] == "cpu+gpu+battery"


def test_a_spike_moves_one_sample_only(short_config: Config) -> None:
    spike = SimEvent(at_s=1.05, kind="sensor_spike", target="cpu", value=40.0)
    base = ticks(with_sim(short_config, duration_s=3.0))
    spiked = ticks(with_sim(short_config, duration_s=3.0, events=(spike,)))
    diffs = [round(s.readings_c[0] - b.readings_c[0], 3) for s, b in zip(spiked, base, strict=True)]
    assert diffs.count(40.0) == 1 and all(d in (0.0, 40.0) for d in diffs)


def test_poisson_load_has_queueing_and_is_rate_limited(short_config: Config) -> None:
    wl = WorkloadConfig(kind="poisson", rate_ips=100.0)
    r = simulate(with_sim(short_config, duration_s=120.0, workload=wl))
    assert r.world.server.completed == pytest.approx(12000, rel=0.05)  # open loop: arrivals, not speed
    lat = r.summary["latency_ms"]
    assert lat["queueing"]["p99"] > 0.0
    assert lat["total"]["p99"] >= lat["compute"]["p99"]


def test_batching_trades_latency_for_launch_overhead() -> None:
    board = load_board("jetson-orin-nano")
    model = dataclasses.replace(board.model, batch_fixed_s=0.002)
    board = dataclasses.replace(board, model=model)
    base = dataclasses.replace(Config(policy="fixed:100%"))
    one = simulate(with_sim(base, duration_s=20.0, initial_temp_c=40.0), board)
    eight = simulate(
        with_sim(base, duration_s=20.0, initial_temp_c=40.0, workload=WorkloadConfig(batch_size=8)), board
    )
    assert eight.world.server.completed > one.world.server.completed
    assert eight.summary["latency_ms"]["total"]["p50"] > one.summary["latency_ms"]["total"]["p50"]


def test_rpi_firmware_throttle_fights_the_governor() -> None:
    """On a Pi the firmware throttles from 80 °C, inside the 85 °C trip, invisibly to cpufreq."""
    cfg = Config(board="rpi5", policy="hysteresis")
    rows = ticks(with_sim(cfg, duration_s=900.0, ambient_c=30.0))
    throttled = [r for r in rows if r.freqs_hz[0] < r.caps_hz[0]]
    assert throttled, "firmware never throttled"
    assert all(r.caps_hz[0] == 2_400_000_000 for r in throttled)  # cpufreq does not see it
    assert any("board_throttle" in r.event for r in rows)


def test_jetson_shutdown_ends_the_run_and_says_so() -> None:
    board = load_board("jetson-orin-nano")
    hot = dataclasses.replace(
        board,
        protections=tuple(p for p in board.protections if p.kind == "shutdown"),
        sensors=tuple(dataclasses.replace(s, hard_limit_c=150.0) for s in board.sensors),
    )
    cfg = with_sim(Config(policy="performance"), duration_s=1800.0, ambient_c=45.0)
    r = simulate(cfg, hot)
    assert r.world.shutdown_at is not None and r.world.shutdown_at < 1800.0
    assert r.summary["ended"].startswith("board shutdown")


def test_leakage_makes_a_hot_board_draw_more() -> None:
    # The battery's own 60 °C hard limit and the Li-ion discharge limit (60 °C, [power]) would
    # (rightly) force the lowest caps at 90 °C.
    base = Config(
        policy="fixed:100%",
        sensors={"battery": SensorOverride(enabled=False)},
        power=PowerConfig(discharge_max_c=95.0),
    )
    cold = simulate(with_sim(base, duration_s=1.0, initial_temp_c=40.0))
    hot = simulate(with_sim(base, duration_s=1.0, initial_temp_c=90.0))
    assert hot.world.effective_clocks() == cold.world.effective_clocks()
    assert hot.world.last_power_w > cold.world.last_power_w
