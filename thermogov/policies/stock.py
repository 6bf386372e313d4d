"""``stock``: the board as shipped, with thermogov installed but writing nothing.

The comparison's floor is not "full clocks" but what the owner already has: the caps in force
when the governor started (on a Jetson the nvpmodel's, on a Pi the firmware's) and the board's
own throttling on top, the kernel's passive trips and the firmware ramp that the profile lists
as protections (``[[protections]]``; simulated in ``sim/model/domains.py``) with the board's default
cooling (the profile's thermal network is the board with its stock fan/heatsink).  The policy
returns the caps it first saw on every tick, so the governor never writes a cap.
"""

from __future__ import annotations

from collections.abc import Mapping

from thermogov.interfaces import ConfigError
from thermogov.policies.base import Decision, PolicyContext, PolicyInput
from thermogov.tomlcheck import Table


class Stock:
    name = "stock"

    def __init__(self) -> None:
        self.caps: Mapping[str, int] | None = None
        self.state = "STOCK"

    def decide(self, inp: PolicyInput) -> Decision:
        if self.caps is None:
            self.caps = dict(inp.caps_hz)  # the board's own caps: hand them back untouched
        return Decision(self.caps, self.state)


def make_stock(params: Table, ctx: PolicyContext, argument: str) -> Stock:
    if argument:
        raise ConfigError("policy: 'stock' takes no argument")
    params.done()
    return Stock()
