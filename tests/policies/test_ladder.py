"""The OPP ladder: from all-lowest to all-highest, every rung Pareto-best for its throughput."""

from __future__ import annotations

import itertools

import pytest

from thermogov import costmodel
from thermogov.board import BoardProfile, builtin_board_names, load_board
from thermogov.policies.ladder import build_ladder


def _rate_power(b: BoardProfile, caps: dict[str, int]) -> tuple[float, float]:
    clocks = {d: caps[d] for d in b.model.cycles}
    cores = costmodel.busy_cores(b.model, clocks, 1.0)
    power = sum(
        costmodel.domain_power_w(d, caps[d.name], cores.get(d.name, 0.0), d.leak_ref_c) for d in b.domains
    )
    return 1.0 / costmodel.inference_time_s(b.model, clocks), power


@pytest.mark.parametrize("name", builtin_board_names())
def test_ladder_runs_from_lowest_to_highest_and_is_pareto(name: str) -> None:
    b = load_board(name)
    tables = {d.name: d.opp_hz for d in b.domains}
    ladder = build_ladder(b, tables)
    assert ladder[0] == {d: t[0] for d, t in tables.items()}
    assert ladder[-1] == {d: t[-1] for d, t in tables.items()}
    scored = [_rate_power(b, r) for r in ladder[:-1]]  # the top rung is "everything max"
    assert all(y[0] > x[0] and y[1] > x[1] for x, y in itertools.pairwise(scored))
    everything = [
        (caps, *_rate_power(b, caps))
        for caps in (dict(zip(tables, c, strict=True)) for c in itertools.product(*tables.values()))
    ]
    for rung, (rate, power) in zip(ladder[:-1], scored, strict=True):
        better = [c for c, r2, p2 in everything if r2 >= rate and p2 < power - 1e-9 and c != rung]
        assert not better, (rung, better[:1])


def test_orin_ladder_keeps_the_cpu_low_until_the_top() -> None:
    # The YOLO pipeline's GPU stage is the bottleneck at every GPU clock on this board.
    b = load_board("jetson-orin-nano")
    ladder = build_ladder(b, {d.name: d.opp_hz for d in b.domains})
    cpu_min = b.domain("cpu").opp_hz[0]
    assert all(r["cpu"] == cpu_min for r in ladder[:-1])
    assert [r["gpu"] for r in ladder[:-1]] == list(b.domain("gpu").opp_hz)


def test_a_table_of_a_thousand_opps_a_domain_is_weighed_in_bounded_work(monkeypatch) -> None:
    """Session 19: a tree listing 1000 OPPs for the CPU and the GPU made 10^6 combinations and
    the daemon's start (the stepped policy's ladder) took minutes.  Now at most
    MAX_LADDER_COMBINATIONS are weighed, the rungs are the hardware's OPPs, ends kept."""
    from thermogov.policies import ladder as ladder_mod

    b = load_board("jetson-orin-nano")
    cpu = tuple(115_200_000 + 1_000_000 * i for i in range(1000))
    gpu = tuple(306_000_000 + 100_000 * i for i in range(1000))
    weighed = 0
    real = ladder_mod._rate_and_power
    bound = getattr(ladder_mod, "MAX_LADDER_COMBINATIONS", 10_000)

    def counted(*args):
        nonlocal weighed
        weighed += 1
        assert weighed <= bound, "more combinations weighed than the bound"  # fails fast on main
        return real(*args)

    monkeypatch.setattr(ladder_mod, "_rate_and_power", counted)
    rungs = build_ladder(b, {"cpu": cpu, "gpu": gpu})
    assert rungs[0] == {"cpu": cpu[0], "gpu": gpu[0]} and rungs[-1] == {"cpu": cpu[-1], "gpu": gpu[-1]}
    assert all(r["cpu"] in cpu and r["gpu"] in gpu for r in rungs)


@pytest.mark.parametrize("name", builtin_board_names())
def test_no_profiles_table_is_thinned(name: str) -> None:
    from thermogov.policies.ladder import bounded_tables

    tables = {d.name: d.opp_hz for d in load_board(name).domains}
    assert bounded_tables(tables) == tables
