"""Board families from the free-text model names logs carry, and the built-in profile for each.

sbc-bench prints the device-tree model in its title (``Raspberry Pi 5 Model B Rev 1.0``);
stressberry writes only the user's run ``name`` and a header comment, which often say the model
too (``Raspberry Pi 4 no case``).  Both go through :func:`board_from_model`.  A family without
its own profile maps to the built-in profile of the same SoC and cooling class
(:data:`SAME_SOC_PROFILE`): a Raspberry Pi 400 is a BCM2711 like the Pi 4 (Raspberry Pi product
briefs, https://datasheets.raspberrypi.com/), a Compute Module 5 a BCM2712 like the Pi 5.
"""

from __future__ import annotations

import re

MODEL_PATTERNS: tuple[tuple[str, str], ...] = (
    # "jetson-nano" is the device-tree model of the first L4T 32.x releases (an sbc-bench 0.6.7
    # title, ThomasKaiser/sbc-bench results/1I4j.txt), "NVIDIA Jetson Nano Developer Kit" later
    (r"Jetson[ -]Nano", "jetson-nano"),
    (r"Xavier NX", "jetson-xavier-nx"),
    # JetPack 6.2's Super devkit DT model ends in "Super" ("NVIDIA Jetson Orin Nano Engineering
    # Reference Developer Kit Super", docs/hardware.md session 27u): before the plain Orin Nano
    (r"Orin Nano\b.*\bSuper\b", "jetson-orin-nano-super"),
    (r"Orin Nano", "jetson-orin-nano"),
    (r"Orin NX", "jetson-orin-nx"),
    (r"AGX Orin", "jetson-agx-orin"),
    (r"Jetson-AGX|AGX Xavier", "jetson-agx-xavier"),
    (r"TX2", "jetson-tx2"),
    # sbc-bench 0.9 and later shorten the DT model to "RPi" and add the SoC ("RPi 4 Model B Rev
    # 1.4 / BCM2711 rev B0": ThomasKaiser/sbc-bench results/3N94.txt), so both spellings count
    (r"(?:Raspberry Pi|RPi) Compute Module 5", "rpi-cm5"),
    (r"(?:Raspberry Pi|RPi) Compute Module 4", "rpi-cm4"),
    (r"(?:Raspberry Pi|RPi) 5", "rpi5"),
    (r"(?:Raspberry Pi|RPi) 400", "rpi400"),
    (r"(?:Raspberry Pi|RPi) 4", "rpi4"),
    (r"(?:Raspberry Pi|RPi) 3", "rpi3"),
    (r"Orange Pi Zero ?2w", "orangepi-zero2w"),
    (r"ROCK 5 (?:Model )?B", "rock5b"),
)


# family -> built-in profile of the same SoC (the thermal model is then only approximate:
# a different board and heat path, but the same OPP table and sensors)
SAME_SOC_PROFILE: dict[str, str] = {"rpi400": "rpi4", "rpi-cm4": "rpi4", "rpi-cm5": "rpi5"}


def board_from_model(text: str) -> str | None:
    """The board family a model string names (first, most specific pattern wins), or None."""
    for pattern, board in MODEL_PATTERNS:
        if re.search(pattern, text, re.IGNORECASE):
            return board
    return None


def profile_for(family: str | None, builtin: list[str]) -> tuple[str | None, str]:
    """(built-in profile name or None, why) for a log's board family."""
    if family is None:
        return None, "the log does not name its board; pass --board NAME|FILE"
    if family in builtin:
        return family, "named by the log"
    near = SAME_SOC_PROFILE.get(family)
    if near is not None and near in builtin:
        return near, f"log names {family}, no profile of its own: using {near} (same SoC)"
    return None, f"log names {family}, which has no built-in profile; pass --board FILE for one"


__all__ = ["MODEL_PATTERNS", "SAME_SOC_PROFILE", "board_from_model", "profile_for"]
