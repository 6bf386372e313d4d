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
* "Manually setting ``over_voltage`` disables automatic voltage scaling for overclocking", and
  for the 4-series (Pi 4, Pi 400, CM4) the page "Frequency management and thermal control",
  "Use DVFS" (``documentation/asciidoc/computers/raspberry-pi/frequency-management.adoc``) says
  what remains: with ``over_voltage`` set the default ``dvfs=3`` ("scale voltage up on demand
  for over clocking") reverts to ``dvfs=2``, "fixed voltage for default operating frequencies".
  So the steps offset the voltage of the *stock* range, the clocks up to the board's default
  ``arm_freq`` (the profile's ``stock_mhz``, else the table's top), and that voltage is held at
  every clock above it, however far the table goes on with the automatic scaling's voltages.
  sbc-bench's measured OPP lines show both halves: a Pi 4 B at its default 1800 MHz
  (``arm_boost``) logs 0.860 V flat to 1500 MHz, then 0.882 / 0.904 / 0.926 V at 1600-1800
  (report 3N94: the automatic scaling); Pi 4 B Rev 1.1 boards with ``over_voltage=2`` at 1800 MHz
  log 0.894 V flat 600-1800 (3F9C, 3InF, 3OBF, 3VME), the stock 0.844 V of such a board (3EgS)
  plus 2 x 25 mV, not the 1800 MHz voltage plus it (docs/calibration.md, eleventh session).
* "The latest firmware automatically scales up the voltage if the system is overclocked":
  without ``over_voltage``, a clock the table lists gets its voltage (the automatic scaling's,
  where the table goes above the stock clock); one above the table's top, a higher voltage by an
  amount the documentation does not give, so the table's top voltage is held there, as without
  settings (the table's last slope continued was measured and dropped, docs/calibration.md).
* ``over_voltage_delta`` (Pi 4 and Pi 5) "adds the given offset in microvolts" to what the DVFS
  algorithm computes, in either case.

Only a log that prints the firmware's settings (sbc-bench's "Actual ThreadX settings") gets the
rule: without them nothing says whether the voltage was scaled automatically or fixed, and the
table's voltage at the logged clock (held at its top) is used as before.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

STEP_V = 0.025  # over_voltage step (P: config.txt "Overclocking options")
STEPS_MIN, STEPS_MAX = -16, 8  # over_voltage's documented range (P: same)
NOT_STEPS = 16  # a magnitude beyond any documented step count: not a step count at all


def firmware_voltage(
    f_hz: np.ndarray,
    opp_hz: np.ndarray,
    volt_v: np.ndarray,
    firmware: Mapping[str, int],
    stock_hz: float | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Core voltage at each logged clock under the firmware's settings, and notes on what was applied.

    ``stock_hz`` is the board's default clock (None: the table's top); ``over_voltage`` offsets
    the table's voltage up to it and holds that voltage above it."""
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
    # With over_voltage set (dvfs=2) the stock range's voltage, held above the stock clock, plus the
    # steps; without it the table's voltage at the clock (the automatic scaling above the stock
    # clock where the table lists it), held at the table's top beyond it: how much the firmware
    # raises it there is undocumented (continuing the last slope was measured and dropped)
    if steps:
        top = float(opp_hz[-1]) if stock_hz is None else float(stock_hz)
        held = np.interp(np.minimum(f_hz, top), opp_hz, volt_v)
    volts = held + steps * STEP_V + delta_v
    if steps or delta_v:
        parts = (
            [f"over_voltage={steps} ({steps * STEP_V * 1e3:+.0f} mV, no automatic scaling)"] if steps else []
        )
        parts += [f"over_voltage_delta {delta_v * 1e3:+.0f} mV"] if delta_v else []
        notes.append(
            f"core voltage {np.nanmin(volts):.3f}-{np.nanmax(volts):.3f} V by the firmware's settings: "
            + ", ".join(parts)
            + (
                " on the OPP table's voltage at the logged clock, held at the stock clock's above it"
                if steps
                else " on the OPP table's voltage at the logged clock (held at its top)"
            )
        )
    return volts, tuple(notes)
