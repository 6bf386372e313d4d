"""A switched fan the training part never switches on: its node's path to air is the profile's.

A fan the firmware switches at a temperature (the ``gpio-fan`` overlay's ``temp``/``hyst``,
raspberrypi/linux ``arch/arm/boot/dts/overlays/README``; the Pi 5 Active Cooler's steps,
:mod:`fanpath`) adds its conductance to one node's path to ambient, and the calibration scales
that conductance with the node's *fitted* path (:func:`model.apply_params`: forced and natural
convection leave through the same fins).  When every training reading lies below the fan's
first switch, the training part shows the board with the fan stopped only: the fitted path is
then identified by the fan-off rise alone, and on a report started minutes after boot that rise
is the boot's warm-up as much as the path (3N94: a Pi 4 up 4 minutes, 36 -> 49 °C at one core;
the fit sets the path ×4.2 and the start −13 °C, and its forecast never reaches the fan's trip).
The fitted path then decides both the forecast's level and, scaled, the fan's effect after the
switch, neither of which the training part contains.  So the node's path to ambient is held at
the housing's value (the profile's fan-off figure); the other gains stay free.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from thermogov.board import BoardProfile
from thermogov.sim.calibration.model import ParamSpec


def fan_never_on(board: BoardProfile, fan_levels: np.ndarray | None, fit_steps: int) -> bool:
    """Whether the board has a switched fan whose level stays 0 (no extra path) through the training part."""
    fan = board.fan
    if fan is None or fan_levels is None or not len(fan.conductance_w_per_k):
        return False
    if float(fan.conductance_w_per_k[0]) != 0.0:
        return False  # a fan that always runs: its lowest level is part of the fitted path
    return not bool(np.any(fan_levels[: max(fit_steps, 1)] != 0))


def held_while_fan_off(
    specs: list[ParamSpec], board: BoardProfile, fan_never_switched: bool
) -> list[ParamSpec]:
    """``specs`` with the fan node's path to ambient fixed at its prior when the fan never ran in training."""
    if not fan_never_switched or board.fan is None:
        return specs
    node = board.fan.node
    return [
        dataclasses.replace(s, fixed=True) if s.kind == "ambient_link" and s.key == (node,) else s
        for s in specs
    ]


def as_in_final_fit(inner: list[ParamSpec], final: list[ParamSpec]) -> list[ParamSpec]:
    """The inner validation's specs with each path to ambient held or free as in the final fit.

    The inner fit (:func:`fit._inner`, the first 70 % of the training part) chooses the model
    size the final fit uses, so it has to validate the parameters the final fit frees.  Its
    shorter training part can miss a fan switch the final one contains (a whole-log fit of a
    report whose fan comes on late): the final fit's decision holds there too."""
    held = {s.name for s in final if s.kind == "ambient_link" and s.fixed}
    return [dataclasses.replace(s, fixed=s.name in held) if s.kind == "ambient_link" else s for s in inner]


def held_note(specs: list[ParamSpec], board: BoardProfile) -> str | None:
    """The note a fit with a held path carries (None when nothing was held)."""
    held = [s.name for s in specs if s.kind == "ambient_link" and s.fixed]
    if not held or board.fan is None:
        return None
    return (
        f"{', '.join(held)} held at the housing's {board.enclosure} figure: the fan never switched on in the "
        "training part, so it shows the board with the fan stopped only (sim/calibration/fanoff.py)"
    )
