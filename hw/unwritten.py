"""The verdict on a daemon run that ended unable to write a domain's cap.

Why a module: ``run`` and each block of ``ab`` judge the same summary key
(``caps_unwritable``, :meth:`thermogov.governor.Governor.unwritable`) and must say the same
thing.  Session 30: a Pi 3 whose only limit answers every write with EINVAL ran uncapped at
92 °C for its whole run and exited 0, so a service manager or a script saw a governed run; an
A/B block in that state would have ranked a policy that never acted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def unwritable_reason(summary: Mapping[str, Any]) -> str | None:
    """The line's reason when some domain's latest cap write failed at the run's end, else None."""
    unwritable = summary.get("caps_unwritable") or {}
    if not isinstance(unwritable, Mapping) or not unwritable:
        return None
    name, why = next(iter(unwritable.items()))
    more = f" (and {len(unwritable) - 1} more domain(s))" if len(unwritable) > 1 else ""
    return (
        f"{name}: its latest cap write failed ({why}){more}, so the run did not govern it to the end; "
        "only the kernel's and firmware's own thermal limits held it"
    )
