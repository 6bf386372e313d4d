"""The inference load: service-time spread, queueing, Little's law, the batchers, paired streams."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.cli.script import one_line_error, thermogov
from tests.conftest import with_sim
from thermogov import costmodel
from thermogov.board import load_board
from thermogov.config import Config, WorkloadConfig, load_config
from thermogov.sim.model.batcher import DynamicBatcher, StaticBatcher
from thermogov.sim.model.runner import simulate
from thermogov.sim.model.servicetime import (
    CPU_SPREAD,
    GPU_SPREAD,
    ServiceDraws,
    ServiceSpread,
    draw_multipliers,
    spread_for,
)
from thermogov.sim.model.workload import ArrivalProcess, InferenceServer


def _poisson_server(rate: float, board: str = "jetson-orin-nano", **kw: object) -> InferenceServer:
    b = load_board(board)
    cfg = WorkloadConfig(kind="poisson", rate_ips=rate, queue_limit=10_000, **kw)  # type: ignore[arg-type]
    srv = InferenceServer(b.model, cfg, np.random.default_rng(1), np.random.default_rng(2))
    srv.set_clocks({d.name: d.opp_hz[-1] for d in b.domains if d.name in b.model.cycles})
    return srv


def _capacity_ips(board: str = "jetson-orin-nano") -> float:
    b = load_board(board)
    return 1.0 / costmodel.inference_time_s(b.model, {d.name: d.opp_hz[-1] for d in b.domains})


@pytest.mark.parametrize("spread", [GPU_SPREAD, CPU_SPREAD, ServiceSpread(0.5, 0.1, 3.0)])
def test_multipliers_have_mean_one_and_the_configured_spread(spread: ServiceSpread) -> None:
    m = draw_multipliers(spread, np.random.default_rng(0), 400_000)
    assert m.mean() == pytest.approx(1.0, abs=0.003)
    assert (m > 0).all()
    body = draw_multipliers(dataclasses.replace(spread, tail_prob=0.0), np.random.default_rng(0), 400_000)
    assert body.std() / body.mean() == pytest.approx(spread.cv, rel=0.05)


def test_the_gpu_spread_reproduces_the_cited_p99_over_median() -> None:
    """Swami & Chougule: TensorRT on an Orin Nano, p99 1.61 ms over a 1.23 ms median = 1.31."""
    m = draw_multipliers(GPU_SPREAD, np.random.default_rng(3), 400_000)
    p50, p99 = np.percentile(m, [50, 99])
    assert p99 / p50 == pytest.approx(1.61 / 1.23, rel=0.03)


def test_draws_in_chunks_equal_draws_one_by_one() -> None:
    a, b = (ServiceDraws(GPU_SPREAD, np.random.default_rng(5)) for _ in range(2))
    one_by_one = [a.next() for _ in range(10_000)]
    chunked = np.concatenate([b.take(3), b.take(5000), b.take(4997)])
    assert np.array_equal(np.array(one_by_one), chunked)


def test_the_spread_follows_the_accelerator_and_each_figure_can_be_overridden() -> None:
    orin, pi = load_board("jetson-orin-nano").model, load_board("rpi5").model
    assert spread_for(orin, WorkloadConfig()) == GPU_SPREAD
    assert spread_for(pi, WorkloadConfig()) == CPU_SPREAD
    assert spread_for(pi, WorkloadConfig(service_spread="none")).deterministic
    mine = spread_for(pi, WorkloadConfig(service_cv=0.2, service_tail_factor=4.0))
    assert (mine.cv, mine.tail_prob, mine.tail_factor) == (0.2, CPU_SPREAD.tail_prob, 4.0)


def test_percentiles_spread_and_none_keeps_them_equal(short_config: Config) -> None:
    cfg = dataclasses.replace(short_config, policy="fixed:100%")
    spread = simulate(with_sim(cfg, duration_s=30.0)).summary["latency_ms"]["compute"]
    flat = simulate(with_sim(cfg, duration_s=30.0, workload=WorkloadConfig(service_spread="none")))
    flat_lat = flat.summary["latency_ms"]["compute"]
    assert spread["p50"] < spread["p95"] < spread["p99"]
    assert flat_lat["p50"] == flat_lat["p95"] == flat_lat["p99"]
    # The spread moves percentiles, not the mean the profile was fitted to.
    assert spread["mean"] == pytest.approx(flat_lat["mean"], rel=0.01)


def test_poisson_near_saturation_queues_and_reports_the_breakdown(short_config: Config) -> None:
    wl = WorkloadConfig(kind="poisson", rate_ips=0.9 * _capacity_ips())
    r = simulate(
        with_sim(dataclasses.replace(short_config, policy="fixed:100%"), duration_s=60.0, workload=wl)
    )
    lat = r.summary["latency_ms"]
    assert lat["queueing"]["p50"] > 0.0 and lat["queueing"]["p99"] > lat["compute"]["p99"]
    assert lat["prepost"]["mean"] > 0.0  # the Orin's CPU stage around the GPU
    parts = lat["queueing"]["mean"] + lat["compute"]["mean"] + lat["prepost"]["mean"]
    assert lat["total"]["mean"] == pytest.approx(parts, rel=0.01)


@pytest.mark.parametrize("batching", ["static", "dynamic"])
def test_littles_law_holds_on_a_long_run(batching: str) -> None:
    srv = _poisson_server(0.8 * _capacity_ips(), batch_size=4, max_wait_ms=5.0, batching=batching)
    step, n = 0.001, 200_000  # 200 s, L sampled every millisecond
    area = 0
    for i in range(1, n + 1):
        srv.advance(i * step)
        area += srv.in_system
    big_l = area / n
    lam = srv.completed / (n * step)
    w = srv.queueing.mean_s() + srv.compute.mean_s()  # time in queue + server (pre/post is outside)
    assert big_l == pytest.approx(lam * w, rel=0.03)


def test_static_batcher_flushes_on_size_or_on_the_oldest_wait() -> None:
    b = StaticBatcher(8, 0.02)
    assert b.flush_at == 8 and b.take(20) == 8 and b.take(3) == 3 and b.flush_at == 8
    srv = _poisson_server(50.0, batch_size=8, max_wait_ms=20.0)
    srv.advance(60.0)
    waited = srv.queueing.percentile_s(100.0)
    assert waited is not None and 0.019 < waited < 0.0202  # a lone request waits max_wait, no more
    full = _poisson_server(0.95 * _capacity_ips(), batch_size=8, max_wait_ms=1000.0)
    full.advance(30.0)
    assert full.completed / full.batches == pytest.approx(8.0)  # never the 1 s wait: always full


def test_dynamic_batcher_sizes_from_the_queue_depth() -> None:
    b = DynamicBatcher(8, 0.02)
    assert b.flush_at == 1
    for _ in range(20):
        b.observe(6)
    assert b.flush_at == 6  # a steady backlog of six when the server falls free: wait for six
    for _ in range(20):
        b.observe(30)
    assert b.flush_at == 8  # never past the largest batch
    assert b.take(30) == 8 and b.take(3) == 3
    for _ in range(20):
        b.observe(0)
    assert b.flush_at == 1  # the load went: serve at once again


def test_without_a_per_batch_cost_the_dynamic_batcher_serves_one_at_a_time() -> None:
    b = DynamicBatcher(8, 0.02, amortises=False)
    for _ in range(20):
        b.observe(30)
    assert b.flush_at == 1 and b.take(30) == 1
    pi = _poisson_server(0.9 * _capacity_ips("rpi5"), board="rpi5", batch_size=8, batching="dynamic")
    pi.advance(120.0)
    assert pi.batches == pi.completed  # ncnn on a CPU: batch_fixed 0, nothing to amortise


def test_dynamic_batching_at_light_load_serves_at_once() -> None:
    """No feedback from its own wait: a light load keeps the target at one request."""
    srv = _poisson_server(0.3 * _capacity_ips(), batch_size=8, max_wait_ms=20.0, batching="dynamic")
    srv.advance(60.0)
    assert srv.batcher.flush_at <= 2 and srv.completed / srv.batches < 1.5


def test_dynamic_batching_waits_less_at_light_load_and_batches_under_a_backlog() -> None:
    light = {
        m: _poisson_server(50.0, batch_size=8, max_wait_ms=20.0, batching=m) for m in ("static", "dynamic")
    }
    for srv in light.values():
        srv.advance(60.0)
    assert light["dynamic"].total.percentile_s(50) < 0.5 * light["static"].total.percentile_s(50)
    # Above the batch-1 capacity: no batching falls behind; the dynamic batcher grows its
    # batches until the amortised overhead lets it keep up, and no further.
    over = 1.1 * _capacity_ips()
    unbatched = _poisson_server(over, batch_size=1)
    heavy = _poisson_server(over, batch_size=8, max_wait_ms=20.0, batching="dynamic")
    for srv in (unbatched, heavy):
        srv.advance(60.0)
    arrived = unbatched.completed + unbatched.dropped + unbatched.in_system
    assert unbatched.completed < 0.95 * arrived
    assert heavy.completed > 0.99 * arrived and 1.5 < heavy.completed / heavy.batches < 8.0


def _streams(monkeypatch: pytest.MonkeyPatch, cfg: Config) -> tuple[list[float], list[float]]:
    arrivals: list[float] = []
    work: list[float] = []
    pop, nxt = ArrivalProcess.pop, ServiceDraws.next

    def spy_pop(self: ArrivalProcess) -> float:
        arrivals.append(pop(self))
        return arrivals[-1]

    def spy_next(self: ServiceDraws) -> float:
        work.append(nxt(self))
        return work[-1]

    monkeypatch.setattr(ArrivalProcess, "pop", spy_pop)
    monkeypatch.setattr(ServiceDraws, "next", spy_next)
    simulate(cfg)
    monkeypatch.undo()
    return arrivals, work


def test_same_seed_same_requests_across_batchers_and_policies(
    monkeypatch: pytest.MonkeyPatch, short_config: Config
) -> None:
    wl = WorkloadConfig(kind="poisson", rate_ips=0.9 * _capacity_ips(), batch_size=8, max_wait_ms=10.0)
    base = with_sim(short_config, duration_s=20.0, workload=wl)
    runs = [
        base,
        with_sim(short_config, duration_s=20.0, workload=dataclasses.replace(wl, batching="dynamic")),
        dataclasses.replace(base, policy="fixed:0%"),
    ]
    streams = [_streams(monkeypatch, c) for c in runs]
    assert len(streams[0][0]) > 1000
    for arrivals, work in streams[1:]:
        assert arrivals == streams[0][0] and work == streams[0][1]
    other = _streams(monkeypatch, dataclasses.replace(base, seed=7))
    assert other[0][:50] != streams[0][0][:50] and other[1][:50] != streams[0][1][:50]


def test_a_summary_says_how_it_batched(short_config: Config) -> None:
    wl = WorkloadConfig(kind="poisson", rate_ips=200.0, batch_size=4, batching="dynamic")
    s = simulate(with_sim(short_config, duration_s=10.0, workload=wl)).summary["batching"]
    assert s["mode"] == "dynamic" and s["max_batch"] == 4 and 1.0 <= s["mean_batch"] <= 4.0
    assert s["batches"] > 0 and s["service_cv"] == GPU_SPREAD.cv


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('batching = "greedy"', "sim.workload.batching"),
        ("service_cv = -0.1", "sim.workload.service_cv"),
        ("service_cv = nan", "sim.workload.service_cv"),
        ("service_tail_factor = 0.5", "sim.workload.service_tail_factor"),
        ("service_tail_prob = inf", "sim.workload.service_tail_prob"),
        ('service_spread = "random"', "sim.workload.service_spread"),
    ],
)
def test_bad_batching_or_spread_config_exits_2_through_the_script(tmp_path, line: str, needle: str) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text(f'[sim]\nduration_s = 5\n[sim.workload]\nkind = "poisson"\n{line}\n', encoding="utf-8")
    p = thermogov("sim", "--config", str(cfg), "--out", str(tmp_path / "out"), cwd=tmp_path)
    one_line_error(p, needle)
    assert not (tmp_path / "out").exists()


def test_the_batching_keys_round_trip_through_the_written_config(tmp_path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        '[sim.workload]\nbatching = "dynamic"\nbatch_size = 8\nmax_wait_ms = 4.0\nservice_cv = 0.05\n',
        encoding="utf-8",
    )
    c = load_config(cfg)
    w = c.sim.workload
    assert (w.batching, w.batch_size, w.max_wait_ms, w.service_cv) == ("dynamic", 8, 4.0, 0.05)
    assert w.service_tail_prob is None
    assert c.to_dict()["sim"]["workload"]["batching"] == "dynamic"


def test_every_saturating_batch_is_binned_across_clock_changes(short_config: Config) -> None:
    """Batches at constant clocks are binned lazily; none is lost or counted twice."""
    caps: list[object] = []
    cfg = with_sim(short_config, duration_s=240.0)  # the default policy changes caps here
    r = simulate(cfg, on_tick=lambda rec: caps.append(rec.caps_hz))
    srv = r.world.server
    assert len(set(caps)) > 1
    srv.latency_summary_ms()
    srv.compute.percentile_s(50)  # bins what is pending
    assert srv.compute.n == srv.completed == srv.total.n
    slow = costmodel.inference_time_s(
        r.world.board.model, {d.name: d.opp_hz[0] for d in r.world.board.domains}
    )
    assert srv.compute.percentile_s(100) < 2.0 * slow  # no batch longer than the slowest clocks allow
