"""power_allocator and its actors on a board small enough to work every number out by hand."""

from __future__ import annotations

import pytest

from tests.policies.helpers import ctx_for, inp, policy, tiny_board
from thermogov.interfaces import ConfigError
from thermogov.policies.kernel import CoolingDevice
from thermogov.policies.power_actors import ActorInputs, CpufreqActor, DevfreqActor
from thermogov.policies.power_allocator import PowerAllocator

GHZ = 1_000_000_000
TOP = {"cpu": 2 * GHZ, "gpu": GHZ}
LOW = {"cpu": GHZ, "gpu": GHZ // 2}


def _cpu() -> CpufreqActor:
    b = tiny_board()
    return CpufreqActor(CoolingDevice("cpu", b.domain("cpu").opp_hz), b.domain("cpu"), b)


def _gpu() -> DevfreqActor:
    b = tiny_board()
    return DevfreqActor(CoolingDevice("gpu", b.domain("gpu").opp_hz), b.domain("gpu"), b)


def test_cpufreq_actor_em_power_and_states() -> None:
    a = _cpu()
    at_top = ActorInputs(TOP, 60.0)
    assert a.em_uw == [100_000, 200_000]  # C V^2 f per CPU: 100 mW at 1 GHz, 200 mW at 2 GHz
    assert (a.freq_to_power(GHZ), a.freq_to_power(2 * GHZ)) == (100, 200)
    # both cores busy (load 200 %): request = 200 mW * 200 / 100
    assert a.requested_power(at_top) == 400
    assert (a.state2power(0, at_top), a.state2power(1, at_top)) == (400, 200)  # x 2 CPUs
    # power2state: P * 100 / 200 per CPU, then the fastest OPP that fits (the slowest if none)
    assert [a.power2state(p, at_top) for p in (450, 399, 300, 50)] == [0, 1, 1, 1]


def test_devfreq_actor_tables_and_states() -> None:
    g = _gpu()
    at_top = ActorInputs(TOP, 60.0)
    assert g.freq_table == [GHZ, GHZ // 2] and g.power_table == [1000, 500]  # state = index
    assert g.requested_power(at_top) == 1000  # fully busy, no static power on this board
    assert (g.state2power(0, at_top), g.state2power(1, at_top)) == (1000, 500)
    assert [g.power2state(p, at_top) for p in (1000, 999, 500, 10)] == [0, 1, 1, 1]


def _ipa(params: dict[str, object] | None = None) -> PowerAllocator:
    p = policy("power_allocator", params, board=tiny_board())
    assert isinstance(p, PowerAllocator)
    return p


def test_below_switch_on_it_stays_uncapped_on_normal_polling() -> None:
    p = _ipa()
    ctx = ctx_for(tiny_board())
    d = p.decide(inp(0.0, 65.0, ctx, caps=TOP))
    assert d.caps_hz == TOP and d.state == "OFF"
    assert p.poller.next_ms == 1000  # polling-delay, not the passive one
    assert p.k.k_po == 0 and p.k.k_i == 1  # bind-time estimate with no sustainable power yet


def test_sustainable_power_is_estimated_from_the_lowest_opps() -> None:
    p = _ipa()
    ctx = ctx_for(tiny_board())
    d = p.decide(inp(0.0, 75.0, ctx, caps=TOP))
    # estimate = state2power(upper) summed: CPU 100 mW x 2 + GPU 500 mW = 700 mW, then the
    # default constants over switch-on 70 -> control 85: k_po = 700*1024 // 15000 = 47 ...
    assert p.tz_sustainable == 700
    assert (p.k.k_po, p.k.k_pu, p.k.k_i) == (47, 95, 9)
    # err = 10 °C: p = 95 * 10240000 >> 10 = 972800; budget = 700 + 950 = 1650, above the
    # 1400 mW the two actors can use at their top OPPs: clamped
    assert p.budget_mw == 1400
    assert d.state == "ON" and d.event == "switch_on"
    assert d.caps_hz == TOP
    assert p.poller.next_ms == 100  # passive polling


def test_hot_zone_drives_every_actor_to_its_lowest_opp() -> None:
    p = _ipa({"sustainable_power_mw": 700})
    ctx = ctx_for(tiny_board())
    d = p.decide(inp(0.0, 90.0, ctx, caps=TOP))
    # err = -5 °C: p = 47 * -5120000 >> 10 = -235000, i = -9 * 5000 = -45000;
    # budget = 700 + (-280000 >> 10) = 700 - 274 = 426 mW, shared 400 / 1000 of weighted
    # request 1400: CPU 122 mW (fits no CPU OPP at 100 % load), GPU 304 mW.
    assert p.budget_mw == 426
    assert d.caps_hz == LOW


def test_pid_integral_resets_below_switch_on() -> None:
    p = _ipa({"sustainable_power_mw": 700})
    ctx = ctx_for(tiny_board())
    p.decide(inp(0.0, 90.0, ctx, caps=TOP))
    assert p.pid.err_integral != 0
    d = p.decide(inp(0.1, 60.0, ctx, caps=LOW))  # passive poll due after 100 ms
    assert p.pid.err_integral == 0 and d.caps_hz == TOP and d.event == "switch_off"


def test_parameters_override_the_estimated_constants() -> None:
    p = _ipa({"sustainable_power_mw": 700, "k_pu": 5, "k_i": 0})
    ctx = ctx_for(tiny_board())
    p.decide(inp(0.0, 80.0, ctx, caps=TOP))
    assert (p.k.k_po, p.k.k_pu, p.k.k_i) == (47, 5, 0)
    # budget = 700 + (5 * 5120000 >> 10 >> 10) = 700 + 24
    assert p.budget_mw == 724


def test_weights_shift_the_budget_between_actors() -> None:
    ctx = ctx_for(tiny_board())
    gpu_first = _ipa({"sustainable_power_mw": 1000, "weights": {"cpu": 1, "gpu": 4096}, "k_po": 0, "k_i": 0})
    d = gpu_first.decide(inp(0.0, 85.0, ctx, caps=TOP))
    # err = 0: budget = P_sus = 1000; weighted requests 0 / 4000 -> all of it to the GPU.
    assert gpu_first.budget_mw == 1000
    assert d.caps_hz == {"cpu": GHZ, "gpu": GHZ}


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"switch_on_c": 90.0}, "switch_on_c"),
        ({"sustainable_power_mw": 0}, "sustainable_power_mw"),
        ({"weights": {"npu": 1}}, "npu"),
        ({"k_p": 3}, "k_p"),
    ],
)
def test_bad_parameters(params: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        _ipa(params)
