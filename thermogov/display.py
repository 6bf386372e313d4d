"""How numbers look in the tables every command prints: three significant digits.

A table row such as ``2466.2593 inf/s`` claims a precision no simulation or log has (sensor
noise alone is ~0.5 °C, throughput windows vary by percent); three significant digits carry
what the numbers can support and line up in columns.  Integer parts are never rounded away
(``2466``, not ``2.47e+03``): a reader compares magnitudes at a glance.  Machine-readable
output (``--json``, CSV) keeps full precision; only the human tables go through here.
"""

from __future__ import annotations

import math

SIGNIFICANT = 3


def figure(x: float | int | None, unit: str = "", digits: int = SIGNIFICANT) -> str:
    """``x`` with ``digits`` significant digits (more only for a large integer part), ``unit``
    appended; ``n/a`` for a missing value.  ``figure(2466.2593, " inf/s") == "2466 inf/s"``,
    ``figure(0.012345) == "0.0123"``, ``figure(72.04, " °C") == "72.0 °C"``."""
    if x is None:
        return "n/a"
    if isinstance(x, bool | int):
        return f"{x}{unit}"
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return ("inf" if x > 0 else "-inf") + unit
    if x == 0:
        return f"0{unit}"
    rounded = float(f"{x:.{digits - 1}e}")  # rounding first: 99.96 has magnitude 2, not 1
    magnitude = math.floor(math.log10(abs(rounded)))
    if magnitude >= digits - 1:
        return f"{x:.0f}{unit}"  # whole number: keep every digit of the integer part
    return f"{rounded:.{digits - 1 - magnitude}f}{unit}"


__all__ = ["SIGNIFICANT", "figure"]
