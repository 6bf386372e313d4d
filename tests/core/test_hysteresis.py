import pytest

from thermogov.board import load_board
from thermogov.interfaces import ConfigError
from thermogov.policies import PolicyContext, PolicyInput, make_policy
from thermogov.tomlcheck import Table

BOARD = load_board("jetson-orin-nano")
CTX = PolicyContext(BOARD, {d.name: d.opp_hz for d in BOARD.domains}, 0.1)
HIGH_CAPS = {d.name: d.opp_hz[-1] for d in BOARD.domains}
LOW_CAPS = {d.name: d.opp_hz[0] for d in BOARD.domains}


def inp(t: float) -> PolicyInput:
    return PolicyInput(0.0, t, {}, HIGH_CAPS, {})


# (temperatures fed in order, expected state after each)
CASES = [
    ([84.99], ["HIGH"]),
    ([85.0], ["LOW"]),  # exactly the trip trips
    ([90.0, 75.0, 70.01], ["LOW", "LOW", "LOW"]),  # holds inside the band
    ([90.0, 70.0], ["LOW", "HIGH"]),  # exactly the release releases
    ([90.0, 60.0, 84.0, 85.0], ["LOW", "HIGH", "HIGH", "LOW"]),
    ([69.0, 71.0, 84.9], ["HIGH", "HIGH", "HIGH"]),  # below release in HIGH: nothing
]


@pytest.mark.parametrize(("temps", "states"), CASES)
def test_hysteresis_table(temps: list[float], states: list[str]) -> None:
    pol = make_policy("hysteresis", Table({}, "policies.hysteresis"), CTX)
    got = []
    for t in temps:
        d = pol.decide(inp(t))
        got.append(d.state)
        assert dict(d.caps_hz) == (HIGH_CAPS if d.state == "HIGH" else LOW_CAPS)
    assert got == states


def test_events_mark_the_transitions() -> None:
    pol = make_policy("hysteresis", Table({}, "p"), CTX)
    assert [pol.decide(inp(t)).event for t in (80, 86, 80, 69, 75)] == ["", "trip", "", "release", ""]


def test_configurable_band_and_caps() -> None:
    params = Table({"trip_c": 78.0, "release_c": 65.0, "low_caps": {"gpu": 612, "cpu": "min"}}, "p")
    pol = make_policy("hysteresis", params, CTX)
    assert pol.decide(inp(77.9)).state == "HIGH"
    d = pol.decide(inp(78.0))
    assert d.state == "LOW"
    assert d.caps_hz["gpu"] == 612_000_000
    assert d.caps_hz["cpu"] == BOARD.domain("cpu").opp_hz[0]


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"trip_c": 70.0, "release_c": 70.0}, "release_c"),
        ({"trip_c": 60.0}, "release_c"),
        ({"low_caps": {"gpu": 600}}, "not an OPP"),
        ({"trip_C": 80.0}, "unknown key"),
    ],
)
def test_bad_parameters_name_the_field(params: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        t = Table(params, "policies.hysteresis")
        make_policy("hysteresis", t, CTX)
        t.done()
