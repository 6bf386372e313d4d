"""The core voltage a Raspberry Pi's firmware applies under its overclocking settings.

A profile's OPP table gives the voltage at the board's stock clocks.  An overclocked or
overvolted Pi runs above it, and dynamic power goes as ``V²·f``, so a report that runs at
2300 MHz with ``over_voltage=15`` draws far more than the table's top voltage says.  The rule
follows Raspberry Pi's documentation of config.txt, "Overclocking options"
(https://www.raspberrypi.com/documentation/computers/config_txt.html#overclocking-options,
source ``documentation/asciidoc/computers/config_txt/overclocking.adoc`` in
raspberrypi/documentation):

* ``over_voltage`` moves the core voltage in steps of 25 mV, documented range [-16, 8]; a value
  above 8 is clamped to it, and one far outside any step range (the Pi 400's ``0x11170``
  printed by its firmware) is not a step count and is ignored, with a note.
* "Manually setting ``over_voltage`` disables automatic voltage scaling for overclocking": with
  it set, the voltage is the table's voltage at the clock (held at the table's top) plus the
  steps.
* "The latest firmware automatically scales up the voltage if the system is overclocked":
  without ``over_voltage``, a clock above the table's top gets a higher voltage, by an amount the
  documentation does not give; the table's top voltage is held there, as without settings (the
  table's last slope continued was measured and dropped, docs/calibration.md).
* ``over_voltage_delta`` (Pi 4 and Pi 5) "adds the given offset in microvolts" to what the DVFS
  algorithm computes, in either case.

Only a log that prints the firmware's settings (sbc-bench's "Actual ThreadX settings") gets the
rule: without them nothing says whether the voltage was scaled automatically or fixed, and the
table's top voltage is held as before.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

STEP_V = 0.025  # over_voltage step (P: config.txt "Overclocking options")
STEPS_MIN, STEPS_MAX = -16, 8  # over_voltage's documented range (P: same)
NOT_STEPS = 16  # a magnitude beyond any documented step count: not a step count at all


def firmware_voltage(
    f_hz: np.ndarray, opp_hz: np.ndarray, volt_v: np.ndarray, firmware: Mapping[str, int]
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Core voltage at each logged clock under the firmware's settings, and notes on what was applied."""
    held = np.interp(f_hz, opp_hz, volt_v)
    if not firmware:
        return held, ()
    notes: list[str] = []
    steps = firmware.get("over_voltage", 0)
    if abs(steps) > NOT_STEPS:
        notes.append(
            f"over_voltage={steps} is not a step count (documented range {STEPS_MIN}..{STEPS_MAX}): not applied"
        )
        steps = 0
    elif not STEPS_MIN <= steps <= STEPS_MAX:
        clamped = min(max(steps, STEPS_MIN), STEPS_MAX)
        notes.append(
            f"over_voltage={steps} is outside the documented range {STEPS_MIN}..{STEPS_MAX}: taken as {clamped}"
        )
        steps = clamped
    delta_v = firmware.get("over_voltage_delta", 0) * 1e-6
    if abs(delta_v) > (STEPS_MAX - STEPS_MIN) * STEP_V:
        notes.append(
            f"over_voltage_delta={delta_v * 1e6:.0f} uV exceeds the whole documented over_voltage span "
            f"({(STEPS_MAX - STEPS_MIN) * STEP_V:g} V): not applied"
        )
        delta_v = 0.0
    # With over_voltage set the table's voltage (held at its top) plus the steps; without it the
    # firmware's automatic scaling above the top OPP is undocumented in size, so the top is held
    # (continuing the table's last slope was measured and dropped: docs/calibration.md)
    volts = held + steps * STEP_V + delta_v
    if steps or delta_v:
        parts = (
            [f"over_voltage={steps} ({steps * STEP_V * 1e3:+.0f} mV, no automatic scaling)"] if steps else []
        )
        parts += [f"over_voltage_delta {delta_v * 1e3:+.0f} mV"] if delta_v else []
        notes.append(
            f"core voltage {np.nanmin(volts):.3f}-{np.nanmax(volts):.3f} V by the firmware's settings: "
            + ", ".join(parts)
            + " on the OPP table's voltage at the logged clock (held at its top)"
        )
    return volts, tuple(notes)
