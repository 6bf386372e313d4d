"""Which of a profile's housings a log was recorded in: declared, or picked by a cheap pre-fit.

A profile may describe one board in several housings (``[enclosures.<name>]`` in the board
TOML: a dev kit's fan heatsink, a sealed case).  Their heat paths differ by up to tenfold, and
the bounded fit (x/÷ 10 around the prior) cannot walk from one to the other, so the fit has to
start from the right one.  Each candidate is fitted once to a loose tolerance on the training
part only; the lowest cost (data and priors together, each candidate measured against its own
priors, with the same number of parameters) wins, and the full fit starts from it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from thermogov.board import BoardProfile, with_enclosure
from thermogov.fan import FanCurve
from thermogov.interfaces import ThermogovError
from thermogov.sim.calibration.data import LogData

Problem = TypeVar("Problem")  # the fit problem choose_enclosure is handed (it does not import the fit)

# A product name that says which housing the board shipped in.  NVIDIA's developer kits ship
# the module on a carrier with the kit's heatsink and fan (e.g. "Jetson Orin Nano Developer Kit
# User Guide": "the developer kit ... includes a ... heatsink with fan", developer.nvidia.com),
# which a profile describes as its ``devkit`` housing.  A training part without a large load
# change cannot tell a sealed case from a fan heatsink (both fit an idle level), so the
# product's own name is better evidence than a pre-fit there.  The Raspberry Pi 400 is a Pi 4
# board inside a keyboard with a large aluminium heat spreader held on the SoC by a thermal pad
# (every teardown shows it, e.g. pi-supply "Teardown of the newly released Raspberry Pi 400";
# Raspberry Pi's "Designing Raspberry Pi 400", Nov 2020): the rpi4 profile's ``metal-case``.
HOUSING_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("devkit", re.compile(r"developer\s+kit|\bdev\s*kit\b", re.IGNORECASE)),
    ("metal-case", re.compile(r"raspberry\s+pi\s+400\b", re.IGNORECASE)),
)
# The user's own name for a run's setup (stressberry's ``name``) often says what cools the board.
# Where it says the cooler is a passive body on the SoC, the profile's ``passive-heatsink``
# housing is meant: a heavy body whose slow mode a short training part cannot show, so no pre-fit
# picks it (docs/calibration.md, eleventh and thirteenth sessions).  Three kinds of words say so:
# * a fan said to be stopped ("fan off", "fans switched off", "fan unplugged", "fan 0%"): a cooler
#   built around a fan (a tower cooler, a fan case) running without it is a passive heatsink;
# * "fanless", "passive(ly cooled)";
# * a heatsink case by kind or name: "heatsink case"; an "armour"/"armor" case, an aluminium case
#   whose inner posts press on the chips through pads, sold with fans or without (stressberry issue
#   #79, "Black Armour" heatsink case with fans, PbTech's "Raspberry Pi 4 Model B Black Armour
#   Aluminium Case", github.com/nschloe/stressberry/issues/79); a Flirc case, an aluminium case whose
#   integrated heatsink block sits on the CPU through an adhesive pad (djstein.com, "Raspberry Pi 4B
#   Case Test - Cases": "The Flirc Raspberry Pi 4B heatsink case ..."; stressberry issue #123: "Flirc
#   is a metallic passive heatsink case").
# An aluminium case by itself is not one (a Joy-It "alu case" leaves the SoC in the case's air:
# stressberry issue #57, over 80 °C without its fan), nor is a stick-on "heatsink".  A fan named
# and not said to be stopped ("fan on", "fan 100%", "with dual fan") vetoes every pattern: a running
# fan is the fan evidence's or the pre-fit's to judge.  "no fan"/"without fan" only lift that veto;
# alone they say nothing of a cooler ("no case, no fan" is a bare board).
_FAN_STOPPED = re.compile(
    r"\bfans?\b[\s:=(),-]*(?:(?:is|are|was|were|switched|turned|set|left|at)\s+)?"
    r"(?:off|stopped|disabled|unplugged|disconnected|removed|not\s+(?:running|connected|spinning)|0\s*%)"
    r"(?![\w%])",
    re.IGNORECASE,
)
_FAN_ABSENT = re.compile(r"\b(?:no|without(?:\s+a)?|w/o)\s+fans?\b|\bfanless\b", re.IGNORECASE)
_FAN_NAMED = re.compile(r"fan", re.IGNORECASE)  # "fan", "fans", "PiFan", "dual-fan": any fan word
_PASSIVE_COOLER = re.compile(
    r"\bfanless\b|\bpassive(?:ly)?\b|\bheat\s*-?\s*sink\s+case\b|\barmou?r\b|\bflirc\b",
    re.IGNORECASE,
)


def says_passive_cooler(setup: str) -> bool:
    """Whether a setup's name says the board wears a passive cooler on its SoC (the patterns above):
    a fan said to be stopped, "fanless"/"passive", or a heatsink case, and no fan word left that is
    not said to be stopped or absent."""
    stopped = bool(_FAN_STOPPED.search(setup))
    rest = _FAN_ABSENT.sub(" ", _FAN_STOPPED.sub(" ", setup))
    if _FAN_NAMED.search(rest):
        return False
    return stopped or bool(_PASSIVE_COOLER.search(setup))


# setup-name rule -> the housing it means, where a profile has that housing
SETUP_HOUSINGS: tuple[tuple[str, Callable[[str], bool]], ...] = (("passive-heatsink", says_passive_cooler),)
PRE_FIT_FTOL = 1e-3  # the pre-fit only ranks the housings; their costs differ by far more than this
# The pre-fit cost is half a chi-square (residuals and priors over their sigma).  Housings within
# one parameter's Akaike price of the cheapest (chi-square 2, cost 1: H. Akaike, "A new look at the
# statistical model identification", IEEE Trans. Automatic Control 19, 1974) are ones the pre-fit
# cannot tell apart; a forecast check may then choose among them (``tiebreak``).
TIE_COST = 1.0
# (the profile, the housings within TIE_COST, cheapest first) -> (the one chosen, why), or None
TieBreak = Callable[[BoardProfile, list[str]], tuple[str, str] | None]


def candidates(board: BoardProfile) -> list[str]:
    """The housings the pre-fit ranks: all but those only the log's evidence may choose."""
    return [board.enclosure, *(e.name for e in board.enclosures if not e.on_evidence_only)]


def choose_enclosure(
    data: LogData,
    board: BoardProfile,
    build: Callable[[BoardProfile], Problem],
    solve: Callable[[Problem], float],
    declared: str | None = None,
    ranked: list[str] | None = None,
    tiebreak: TieBreak | None = None,
) -> tuple[BoardProfile, str | None]:
    """(the profile in the chosen housing, a note for the user or None).

    ``build`` makes a fit problem for a profile and ``solve`` returns its pre-fit cost; they are
    passed in so that this module does not depend on the fit (which imports it).  ``ranked``: the
    housings the log's evidence leaves for the pre-fit (default: every :func:`candidates`).
    ``tiebreak`` may choose among the housings within :data:`TIE_COST` of the cheapest (the fit's
    forecast check inside the training part); where it declines, the cheapest stands.
    """
    if declared is not None:
        return with_enclosure(board, declared), f"enclosure {declared} (declared)"
    names = ranked or candidates(board)
    if ranked is not None and len(ranked) == 1:
        return with_enclosure(
            board, ranked[0]
        ), f"enclosure {ranked[0]}: the only housing the log's evidence leaves"
    if len(names) == 1:
        return board, None
    costs: dict[str, float] = {}
    for name in names:
        try:
            costs[name] = solve(build(with_enclosure(board, name)))
        except ThermogovError:
            costs[name] = np.inf
    best = min(names, key=lambda n: (costs[n], names.index(n)))
    by_cost = ", ".join(f"{n} {costs[n]:.4g}" for n in sorted(names, key=lambda n: costs[n]))
    near = [
        n
        for n in sorted(names, key=lambda n: (costs[n], names.index(n)))
        if costs[n] - costs[best] < TIE_COST
    ]
    if tiebreak is not None and len(near) > 1 and (broken := tiebreak(board, near)) is not None:
        name, why = broken
        return with_enclosure(board, name), (
            f"enclosure {name}: the pre-fit cannot tell {', '.join(near)} apart (cost within {TIE_COST:g}, one "
            f"parameter's AIC price; cost: {by_cost}), {why}; declare another with --enclosure"
        )
    return with_enclosure(board, best), (
        f"enclosure {best} picked by a pre-fit of each housing of {board.name} (cost: {by_cost}); "
        "declare it with --enclosure"
    )


def housing_with_fan(board: BoardProfile, fan_rpm: tuple[float, ...], fan_evidence: str = "") -> str | None:
    """The profile's one housing with a fan when the log says the board has one.

    A fan's tachometer is direct evidence of the housing (sbc-bench prints the lm-sensors
    ``fanN: ... RPM`` lines before and after its benchmarks), where a pre-fit of a few sparse
    readings is not: a training part whose temperature moves with power the load column does
    not show (a memory-bound benchmark at the same 25 %) fits a fixed case as well as a fan
    that switched.  A turning fan counts, and so does any hardware evidence of a fan
    (``fan_evidence``: a tachometer at any speed anywhere in the report, the firmware's fan
    overlay): a fan that is still below its first step in the training part switches on later,
    and a pre-fit of a part it never acted in picks a housing without it (the eighth session's
    external reports ended 3-11 °C too warm that way).  The housing brings its fan's switching
    law (its ``[fan]`` table), so the fit need not see the fan act.  None when the profile has
    no fan housing, or more than one."""
    if not fan_evidence and not any(v > 0 for v in fan_rpm):
        return None
    names = [board.enclosure] if board.fan is not None else []
    names += [e.name for e in board.enclosures if e.fan is not None]
    return names[0] if len(names) == 1 else None


def with_declared_switch(board: BoardProfile, switch_c: tuple[float, float] | None) -> BoardProfile:
    """The board with its one-step fan switched where the log declares (on at ``switch_c[0]``, off
    ``switch_c[1]`` below it); unchanged when the log declares nothing or the fan has more steps.

    A firmware overlay's own parameters in the log (``dtoverlay=gpio-fan,temp=60000``) are the
    law that board ran, better than the profile's default curve, which is the overlay's default."""
    fan = board.fan
    if switch_c is None or fan is None or fan.default_curve.top != 1:
        return board
    curve = FanCurve((switch_c[0],), switch_c[1])
    source = (
        f"{fan.source}; switched as the log declares: on at {switch_c[0]:g} °C, off {switch_c[1]:g} °C below"
    )
    return dataclasses.replace(board, fan=dataclasses.replace(fan, default_curve=curve, source=source))


# A log that lists the board's hardware-monitor chips and no fan among them (no tachometer, no fan
# overlay) shows a board with nothing on its fan header: on a Raspberry Pi 5 a fan on the header is
# the ``pwm-fan`` driver's ``pwmfan`` chip, listed even at 0 RPM (importers/sbcbench.py,
# ``_fan_evidence``).  Where the pre-fit still prefers a housing with a fan, the readings need a
# cooler on the SoC that no fanless housing of the profile but a heavy passive body gives (a bare or
# cased board heats 7-12 K too fast under load: docs/calibration.md, fifteenth session; a stock Pi 5
# without a heatsink averaged 81 °C, peak 89 °C, through Phoronix's benchmarks, 56 / 72 °C with the
# Active Cooler: phoronix.com/review/raspberry-pi-5-benchmarks/2), so that housing is taken instead.
FANLESS_COOLER = "passive-heatsink"


def shows_no_fan(data: LogData) -> bool:
    """Whether the log lists the board's hardware-monitor chips without any fan evidence among them."""
    return bool(data.sensor_chips) and not data.fan_evidence and not data.fan_rpm


def fanless_for(board: BoardProfile, picked: BoardProfile, data: LogData) -> str | None:
    """The housing of ``board`` to take instead of ``picked`` (a pre-fit's pick) when that one has a fan
    the log shows the board lacks (:func:`shows_no_fan`): :data:`FANLESS_COOLER` where the profile has
    it, else None."""
    if picked.fan is None or not shows_no_fan(data):
        return None
    return FANLESS_COOLER if any(e.name == FANLESS_COOLER for e in board.enclosures) else None


def housing_named(board: BoardProfile, model: str) -> str | None:
    """The profile housing the log's product name implies (:data:`HOUSING_NAMES`), if the profile has it."""
    names = candidates(board)
    for housing, pattern in HOUSING_NAMES:
        if housing in names and pattern.search(model or ""):
            return housing
    return None


def housing_of_setup(board: BoardProfile, setup: str) -> str | None:
    """The profile housing the log's setup name says (:data:`SETUP_HOUSINGS`), if the profile has it.

    Unlike :func:`housing_named` this reaches the housings only evidence may choose
    (``on_evidence_only``): the name is that evidence."""
    names = {board.enclosure, *(e.name for e in board.enclosures)}
    for housing, says in SETUP_HOUSINGS:
        if housing in names and says(setup or ""):
            return housing
    return None
