"""The running policy told of a sensor that joined after start (session 24a).

The daemon builds its policy's context from the sensors the board has at start: one waited for
(hw/latezones.py) may never appear, and ``stepped`` would count its hard limit, period, codes and
weight while it does not (session 23b).  When such a sensor joins, :func:`widened` makes the
context name it, as it would have had the sensor been there from the start (in the profile's
order), builds the policy that context gives and hands its sensor terms to the running policy
(:func:`thermogov.policies.widen.adopt_sensors`), which keeps what it has learned.  A policy
that reads no ``sensor_names`` (every one but ``stepped``) needs nothing.  A sensor bound at
start that goes away and comes back never left the context: its limit still applies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from thermogov.config import Config
from thermogov.fusion import SensorSpec
from thermogov.governor import Governor
from thermogov.interfaces import ThermogovError
from thermogov.policies import PolicyContext
from thermogov.policies.stepped import Stepped
from thermogov.policies.widen import adopt_sensors


def widened(
    gov: Governor,
    ctx: PolicyContext,
    specs: Sequence[SensorSpec],
    joined: Mapping[str, float],
    config: Config,
    log: Callable[[str], None],
) -> PolicyContext:
    """``ctx`` naming the sensors that joined too; the running policy given their terms."""
    names = set(ctx.sensor_names) | set(joined)
    wider = dataclasses.replace(ctx, sensor_names=tuple(s.name for s in specs if s.name in names))
    if wider.sensor_names == ctx.sensor_names:
        return ctx
    if isinstance(gov.policy, Stepped):
        try:
            built = config.make_policy(wider)
        except ThermogovError as e:  # the same table built at start: not expected, never fatal
            log(f"warning: policy not told of {', '.join(sorted(names - set(ctx.sensor_names)))}: {e}")
            return ctx
        if isinstance(built, Stepped):
            adopt_sensors(gov.policy, built)
    return wider
