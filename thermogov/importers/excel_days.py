"""A time column of spreadsheet serial dates: days since 1899-12-30, the time of day the fraction.

A log opened in Excel or LibreOffice Calc and saved again as CSV keeps a date-time cell as the
number the sheet holds when the cell lost its date format (a column pasted as values, a "General"
format): 46000.50002 is 2025-12-09 12:00:02 (Excel's 1900 date system, whose day 25569 is
1970-01-01; LibreOffice's default epoch, 1899-12-30, gives the same numbers).  Read as seconds,
as any unitless, non-epoch time column is, a one-second log became twenty rows within 0.5 ms
(session 33w: the axis said every sample at t = 0.0, without a word).

The rule, no file's constant: every value lies between 1970-01-01 and 2100-01-01 as a serial day
(25569..73051), some value has a fraction (a time of day), and the values run forward by a median
step under 0.005.  As seconds that step is a row every 5 ms or faster at 7 to 20 hours of some
counter, which no temperature logger writes (thermal zones update at most every few ms and loggers
sleep 0.1 s and more); as days it is a row every 7.2 minutes or faster, the logs people keep.
"""

from __future__ import annotations

import math
import re
from array import array

from thermogov.importers.common import as_floats

SECONDS_PER_DAY = 86400.0
# Serial day numbers of 1970-01-01 and 2100-01-01 in the 1900 date system.
_FIRST_DAY, _LAST_DAY = 25569.0, 73051.0
_MAX_STEP_DAYS = 0.005


# A column its name calls a count of seconds (`elapsed`, `uptime`, `t`, `monotonic`) is no date,
# whatever its values: a 1 kHz power logger's monotonic seconds 7 to 20 hours after boot fit the
# rule above.
_SECONDS_NAME_RE = re.compile(r"elapsed|uptime|mono|runtime|duration|sec|^t$|^dt$", re.IGNORECASE)


def serial_days(nums: array, label: str = "") -> bool:
    """Whether a unitless time column's values (NaN or inf where a cell held none) are
    spreadsheet serial dates rather than seconds (numpy over the column in place: no copy of
    a big table's axis is made).  ``label``: the column's name, which may say it counts seconds."""
    import numpy as np

    if _SECONDS_NAME_RE.search(label.strip()):
        return False

    a = as_floats(nums)
    vals = a[np.isfinite(a)]
    if len(vals) < 3 or vals.min() < _FIRST_DAY or vals.max() > _LAST_DAY:
        return False
    if bool(np.all(vals == np.floor(vals))):
        return False  # whole days, or a counter in that range: no time of day to read
    steps = np.diff(vals)
    forward = steps[steps > 0]
    if len(forward) * 2 < len(steps):
        return False  # not a column that runs forward
    return float(np.median(forward)) < _MAX_STEP_DAYS


def note(label: str, nums: array) -> str:
    """The note saying what was read, with the first value as the example."""
    first = next(v for v in nums if math.isfinite(v))
    return (
        f"time column {label!r} holds spreadsheet serial dates (days since 1899-12-30, e.g. "
        f"{first:.5f}): read as days (a sheet's date cells saved without their date format)"
    )
