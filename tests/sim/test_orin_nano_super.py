"""Session 27u: the `jetson-orin-nano-super` profile's model, in the simulator and against its
published figures (JetPack 6.2's power modes and NVIDIA's Super claims, cited in the profile).

Every test here fails on main: the profile does not exist there (`load_board` refuses the name).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov import costmodel
from thermogov.board import BoardProfile, builtin_board_names, load_board
from thermogov.config import Config
from thermogov.governor import TickRecord
from thermogov.importers.models import board_from_model, profile_for
from thermogov.sim.model.runner import simulate

SUPER = "jetson-orin-nano-super"
PLAIN = "jetson-orin-nano"
BOARDS = Path(__file__).resolve().parents[2] / "thermogov" / "boards"
MHZ = 1_000_000
# nvpmodel caps of the Orin Nano 8 GB Super modes (CPU, GPU MHz) and their budgets in W; the
# original Orin Nano's 15 W mode tops (1510.4 / 625 MHz).  Sources in the profile's header.
MODES = {"15W": (1497.6, 612.0, 15.0), "25W": (1344.0, 918.0, 25.0)}
MAXN_SUPER = (1728.0, 1020.0)
ORIGINAL_TOPS = (1510.4, 625.0)
NVIDIA_GEN_AI_GAIN = 1.7  # "up to 1.7x" generative AI (NVIDIA's Super announcement)


def _caps(cpu_mhz: float, gpu_mhz: float) -> dict[str, int]:
    return {"cpu": round(cpu_mhz * MHZ), "gpu": round(gpu_mhz * MHZ)}


def _all_busy_w(board: BoardProfile, caps: dict[str, int]) -> float:
    """VDD_IN with every core of every domain busy at the leakage reference temperature."""
    doms = {d.name: d for d in board.domains}
    return board.thermal.rest_of_board_w + sum(
        costmodel.domain_power_w(doms[n], f, float(doms[n].cores), doms[n].leak_ref_c)
        for n, f in caps.items()
    )


def test_the_super_profile_is_listed_and_reaches_the_super_tops() -> None:
    assert SUPER in builtin_board_names()
    b = load_board(SUPER)
    tops = {d.name: d.opp_hz[-1] for d in b.domains}
    assert tops == _caps(*MAXN_SUPER)
    assert b.battery is None and b.fan is not None  # the devkit: mains, fan heatsink
    assert b.input_rails == ("VDD_IN",)


def test_the_power_model_fits_each_mode_s_budget_and_maxn_super_needs_more_than_15w() -> None:
    """Derived check of C_dyn/static/rest against the published modes: each mode's caps fit its
    budget fully busy; the MAXN SUPER tops do not fit the 15 W budget (why the 25 W/MAXN modes)."""
    b = load_board(SUPER)
    for name, (cpu, gpu, budget_w) in MODES.items():
        assert _all_busy_w(b, _caps(cpu, gpu)) <= budget_w, name
    assert _all_busy_w(b, _caps(*MAXN_SUPER)) > MODES["15W"][2]
    assert _all_busy_w(b, _caps(*MAXN_SUPER)) > _all_busy_w(b, _caps(*ORIGINAL_TOPS))


def test_inference_gain_over_the_original_tops_is_a_gain_within_nvidia_s_claim() -> None:
    b = load_board(SUPER)
    gain = costmodel.inference_time_s(b.model, _caps(*ORIGINAL_TOPS)) / costmodel.inference_time_s(
        b.model, _caps(*MAXN_SUPER)
    )
    assert 1.0 < gain <= NVIDIA_GEN_AI_GAIN


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super", SUPER),
        ("NVIDIA Jetson Orin Nano Super Developer Kit", SUPER),
        ("NVIDIA Jetson Orin Nano Developer Kit", PLAIN),
        ("NVIDIA Orin Nano Developer Kit", PLAIN),
        ("NVIDIA Jetson Orin Nano Superstructure rig", PLAIN),  # a word, not the product
    ],
)
def test_a_log_naming_the_super_kit_gets_the_super_profile(model: str, family: str) -> None:
    """An imported log's model string (sbc-bench's title) names the Super; the plain kit keeps its own."""
    assert board_from_model(model) == family
    assert profile_for(family, builtin_board_names()) == (family, "named by the log")


def _run(board: str, ambient_c: float, duration_s: float = 600.0) -> tuple[float, list[TickRecord]]:
    """Sustained throughput (the summary's, the run's last half) and the ticks of a saturating run
    under the default policy."""
    cfg = Config(board=board)
    cfg = dataclasses.replace(
        cfg, sim=dataclasses.replace(cfg.sim, ambient_c=ambient_c, duration_s=duration_s)
    )
    rows: list[TickRecord] = []
    r = simulate(cfg, load_board(board), on_tick=rows.append)
    return float(r.summary["accuracy_weighted_throughput_ips"]), rows


COOL_C = 15.0
TRIP_C = 85.0  # the stepped policy's default trip


def test_at_25c_the_super_sustains_more_than_the_plain_orin_nano_at_a_cool_ambient() -> None:
    """At 25 °C the Super kit runs its tops without reaching the trip and sustains more than the
    plain (sealed, fanless) Orin Nano does at 15 °C, where that one must throttle."""
    ips_super, rows = _run(SUPER, 25.0)
    ips_plain, plain_rows = _run(PLAIN, COOL_C)
    assert max(r.fused_c for r in rows) < TRIP_C
    assert max(r.fused_c for r in plain_rows) > TRIP_C - 1.0  # the plain one is held at its trip
    assert ips_super > ips_plain


def test_at_a_hot_ambient_the_super_reaches_the_trip_and_is_held_there() -> None:
    """The hot ambient is the one at which full clocks would settle 5 K over the trip (the 25 °C
    run's rise at full clocks, not a constant): the governor reaches the trip, lowers caps from the
    Super's tops, holds the fused temperature near it (no board throttle, no shutdown) and still
    sustains more than its lowest OPPs would give."""
    _, cool = _run(SUPER, 25.0)
    rise = max(r.fused_c for r in cool) - 25.0
    hot_c = TRIP_C - rise + 5.0
    ips_hot, rows = _run(SUPER, hot_c)
    fused = [r.fused_c for r in rows]
    assert max(fused) >= TRIP_C - 1.0
    b = load_board(SUPER)
    tops = tuple(d.opp_hz[-1] for d in b.domains)  # TickRecord.caps_hz is in the profile's domain order
    assert tops == tuple(_caps(*MAXN_SUPER)[d.name] for d in b.domains)
    assert any(any(c < top for c, top in zip(r.caps_hz, tops, strict=True)) for r in rows)
    assert max(fused) < b.protections[0].start_c  # the governor acts before the board's own throttle
    floor_ips = 1.0 / costmodel.inference_time_s(b.model, {d.name: d.opp_hz[0] for d in b.domains})
    assert ips_hot > floor_ips


def _super_text() -> str:
    return (BOARDS / f"{SUPER}.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        ("c_dyn_uw_per_mhz_v2 = 15000.0", "c_dyn_uw_per_mhz_v2 = -1.0", "domains.gpu.c_dyn_uw_per_mhz_v2"),
        ("opp_mhz = [306.0, 408.0,", "opp_mhz = [408.0, 306.0,", "domains.gpu.opp_mhz"),
        ("rest_of_board_w = 2.5", "rest_of_board_w = nan", "thermal.rest_of_board_w"),
        ('input_rail = "VDD_IN"', "input_rail = 5", "board.input_rail"),
        ('"p3768-0000+p3767-0005-super",', "7,", "board.dt_models"),
    ],
)
def test_bad_values_in_the_super_profile_are_refused_as_in_any_profile(
    tmp_path: Path, old: str, new: str, needle: str
) -> None:
    """A copy of the Super profile with one bad value: ``thermogov sim --board FILE`` exits 2 with
    one line naming the field, and writes no run folder."""
    text = _super_text()
    assert old in text
    bad = tmp_path / "super.toml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    p = thermogov("sim", "--board", str(bad), "--duration", "5", "--out", str(tmp_path / "out"))
    one_line_error(p, needle)
    assert not (tmp_path / "out").exists()
