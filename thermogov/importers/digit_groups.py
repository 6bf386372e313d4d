"""tegrastats lines whose whole numbers were printed with thousands separators.

tegrastats prints its clocks (MHz), RAM (MB) and rails (mW) as whole numbers with C's ``%u``,
never grouped; a line reading ``RAM 1,134/3,964MB`` was re-printed by something else (a script's
``printf "%'d"`` under en_US, a sheet's "1,000 separator" format).  Read as they stand, the groups
cut numbers in two: ``EMC_FREQ 1%@1,600`` stored a 1 MHz memory clock and ``VDD_IN 4,012mW`` lost
every rail (session 33w's hostile round).

The sign is the RAM total: every Jetson has at least 2 GB, so a grouped line shows ``RAM
d,ddd/`` or ``/d,dddMB``.  On such a line a run ``d,ddd[,ddd]`` is one number where it stands in
a whole-number field: before ``mW``, ``MB``, ``/``, ``]``, a blank, the line's end, or the next
CPU entry (``,off``, ``,8%``).  A temperature is never merged (``51,031C`` is a decimal comma:
tegrastats prints temperatures with decimals).  A GPU clock list ``[1,300,0]`` (one clock per GPC
on Orin) cannot be told from ``[1300,0]`` or ``[1,300,0]``: it is not read on such a line, said.
"""

from __future__ import annotations

import re

_GROUPED_RAM_RE = re.compile(r"\bRAM \d{1,3},\d{3}/|\bRAM \d+/\d{1,3},\d{3}MB")
_GROUPED_INT_RE = re.compile(
    r"(?<![\d.,\[])(\d{1,3}(?:,\d{3})+)(?=mW|MB|/|\]|,(?:off|\d+(?:[.,]\d+)?%)|\s|$)"
)
_AMBIGUOUS_GPC_LIST_RE = re.compile(r"@\[(?=[^\]]*\d,\d{3}(?!\d))[^\]]*\]")

NOTE = (
    "numbers printed with thousands separators (e.g. 'RAM 1,134/3,964MB'; tegrastats writes none): "
    "read as whole numbers where the field holds one"
)
GPC_NOTE = "GPU clock lists on lines with thousands separators ('@[1,300,0]': one clock or two) not read"


def grouped(body: str) -> bool:
    """Whether a tegrastats line's RAM figure holds a thousands separator."""
    return _GROUPED_RAM_RE.search(body) is not None


def ungrouped(body: str, notes: set[str]) -> str:
    """The line with its grouped whole numbers joined (``1,479`` -> ``1479``), its ambiguous GPU
    clock lists dropped; notes added."""
    notes.add(NOTE)
    body, lists = _AMBIGUOUS_GPC_LIST_RE.subn("", body)
    if lists:
        notes.add(GPC_NOTE)
    return _GROUPED_INT_RE.sub(lambda m: m.group(1).replace(",", ""), body)
