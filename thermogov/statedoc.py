"""The daemon's published state: one JSON document, built in one place, read by every consumer.

The root daemon replaces ``/run/thermogov/state.json`` once a second; ``thermogov status``,
``thermogov.client.current()`` (the inference application) and the Prometheus metrics all read
this one document, so a field added here reaches all of them.  :func:`build_state` is the only
code that shapes it: parts other helpers add later (inference mode, load level, throttle
counters) are optional keyword sections of that one function, never a second builder.

Numbers that are not finite (a NaN slipped past a sensor) are published as ``null``: JSON has no
NaN, and a consumer must be able to tell "unknown" without parsing a non-standard token.
``SCHEMA`` changes only when a field changes meaning or goes away; new fields keep it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from thermogov.governor import TickRecord
from thermogov.interfaces import PowerStatus

SCHEMA = 1
STATE_FILE_NAME = "state.json"
INFERENCES_FILE_NAME = "inferences"


@dataclass(frozen=True, slots=True)
class StateIdentity:
    """What stays fixed for one daemon run."""

    pid: int
    started_unix: float
    board: str
    dry_run: bool
    run_dir: str
    inference_source: str  # "workload", "file:<path>" or "none"


def _num(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def build_state(
    ident: StateIdentity,
    *,
    time_unix: float,
    uptime_s: float,
    tick: TickRecord,
    sensor_names: Sequence[str],
    domain_names: Sequence[str],
    policy: str,
    power: PowerStatus | None = None,
    rate_ips: float | None = None,
    reloads: int = 0,
    mode: str | None = None,
    load_level: str | None = None,
    throttle: Mapping[str, int] | None = None,
    waiting: Mapping[str, object] | None = None,
    supplies: Sequence[Mapping[str, object]] | None = None,
) -> dict[str, Any]:
    """The state document for the latest tick; the optional sections default to "not known"."""
    return {
        "schema": SCHEMA,
        "pid": ident.pid,
        "time_unix": round(time_unix, 3),
        "started_unix": round(ident.started_unix, 3),
        "uptime_s": round(uptime_s, 3),
        "board": ident.board,
        "dry_run": ident.dry_run,
        "run_dir": ident.run_dir,
        "policy": {"name": policy, "state": tick.policy_state},
        "temperature_c": {
            "fused": _num(tick.fused_c),
            "sensors": {n: _num(v) for n, v in zip(sensor_names, tick.readings_c, strict=True)},
            "used": tick.sensors_used,
            # Sensors the config fuses that the board does not have yet, each with what is
            # looked for (hw/latezones.py, session 23b) and since when (hw/waitedsince.py,
            # session 24a: looked_for, waited_s, since_unix); {} when none waits.
            "waiting": dict(waiting) if waiting else {},
        },
        "domains": {
            n: {"cap_hz": cap, "frequency_hz": f}
            for n, cap, f in zip(domain_names, tick.caps_hz, tick.freqs_hz, strict=True)
        },
        "mode": mode,
        "load_level": load_level,
        "power": {
            "power_w": _num(tick.power_w),
            "state": power.state if power is not None else None,
            "capacity_pct": _num(power.capacity_pct) if power is not None else None,
            "battery_temp_c": _num(power.battery_temp_c) if power is not None else None,
            # The chargers as the supplies' last read found them (session 25c: those that
            # appeared after start included, those gone left out): name, type, online (0/1/2,
            # null when unreadable).  Absent when the daemon does not say (before 25c).
            **({"supplies": [dict(x) for x in supplies]} if supplies is not None else {}),
        },
        "throughput": {
            "inferences_total": tick.inferences_total,
            "rate_ips": _num(rate_ips),
            "source": ident.inference_source,
        },
        "throttle": dict(throttle) if throttle else {},
        "reloads": reloads,
        # A governed fan's level (thermogov.fan); null when the governor owns no fan.
        "fan": None if tick.fan_level is None else {"level": tick.fan_level},
    }
