"""``SIGHUP`` (``systemctl reload thermogov``): re-read the config without a restart.

The signal handler only sets a flag (``StopFlag.reload_requested``); the daemon's loop calls :meth:`Reloader.apply` at the next
control tick, before the governor runs, so a tick never sees half of a new configuration.
The new file is validated completely first (parsed, its policy built against the running
board's OPP tables, its power limiters built); any problem keeps the running configuration and
logs one line naming the cause.  The trace's ``event`` column records ``reload`` or
``reload-rejected`` on that tick.

What a reload may change: ``run.policy``, the ``[policies.*]`` parameters and ``[power]``
(budgets, Li-ion limits): the decisions, not what is owned.  Everything else that decides what
the daemon owns, samples or where it writes (``run.board``/``board_file``, ``[sensors]``,
``[governor]`` periods, ``run.out``/``seed``) is refused with one line naming the first key
that differs and asking for a restart: the journal, the trace's columns and the sampling plan
were all fixed from it at start-up, and a restart (which restores every limit first) is the one
path that is already proven to leave the board as it was.  ``[sim]`` is ignored, as on any board.
Since the set of owned domains never changes, restore-on-exit after a reload is the same
restore as without one.

A new policy starts from its own initial state, as at start-up; a reload that leaves the policy
and its parameters as they were keeps the running policy object (and its state: a tripped
hysteresis stays tripped).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from thermogov.board import BoardProfile
from thermogov.budget import power_limiters
from thermogov.config import Config
from thermogov.governor import Governor
from thermogov.interfaces import ThermogovError
from thermogov.policies import PolicyContext

RELOAD = "reload"
RELOAD_REJECTED = "reload-rejected"
RELOADABLE = ("run.policy", "policies", "power", "sim")  # "sim": ignored on a board


def _flat(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flat(v, key + "."))
        else:
            out[key] = v
    return out


def restart_key(old: Config, new: Config) -> str | None:
    """The first key (dotted) that differs and that only a restart may change, else ``None``."""
    a, b = _flat(old.to_dict()), _flat(new.to_dict())

    def kept(key: str) -> bool:
        return not any(key == r or key.startswith(r + ".") for r in RELOADABLE)

    for key in sorted(set(a) | set(b)):
        if kept(key) and a.get(key) != b.get(key):
            return key
    return None


@dataclass(frozen=True, slots=True)
class ReloadTarget:
    """What a new policy and new limiters are built against: the running board."""

    board: BoardProfile
    ctx: PolicyContext
    tables_hz: Mapping[str, tuple[int, ...]]


class Reloader:
    def __init__(
        self,
        load: Callable[[], Config] | None,
        running: Config,
        target: ReloadTarget,
        log: Callable[[str], None],
        source: str,
    ) -> None:
        self._load = load
        self.running = running  # the configuration as read, before resolving it on the board
        self._target = target
        self._log = log
        self._source = source
        self.count = 0
        self.rejected = 0
        self.last_message = ""  # the line of the latest reload, for systemd's STATUS=

    def _reject(self, why: str) -> str:
        self.rejected += 1
        self.last_message = f"reload rejected: {why}; keeping the running configuration"
        self._log(self.last_message)
        return RELOAD_REJECTED

    def retarget(self, ctx: PolicyContext) -> None:
        """A later policy is built against ``ctx``: the running context, widened by a sensor
        that joined late (hw/latepolicy.py)."""
        self._target = dataclasses.replace(self._target, ctx=ctx)

    def apply(self, gov: Governor) -> str:
        """Swap in the re-read configuration, or keep the old one; returns the trace event."""
        if self._load is None:
            return self._reject("no --config file was given, so there is nothing to re-read")
        try:
            new = self._load()
            key = restart_key(self.running, new)
            if key is not None:
                return self._reject(
                    f"{key} changed in {self._source} and needs a restart (systemctl restart thermogov)"
                )
            t = self._target
            same_policy = new.policy == self.running.policy and new.policies == self.running.policies
            policy = gov.policy if same_policy else new.make_policy(t.ctx)
            same_power = new.power == self.running.power  # keep the budget's rolling window
            limiters = gov.limiters if same_power else power_limiters(new.power, t.board, t.tables_hz)
        except ThermogovError as e:
            return self._reject(str(e))
        except OSError as e:  # the file vanished or became unreadable between checks
            return self._reject(f"{self._source}: {e.strerror or e}")
        except Exception as e:  # a bug in a policy factory must not end a governing daemon
            return self._reject(f"internal error {type(e).__name__}: {e} (report it)")
        gov.policy = policy
        gov.limiters = list(limiters)
        self.running = new
        self.count += 1
        self.last_message = f"reloaded {self._source}: policy {policy.name}"
        self._log(self.last_message)
        return RELOAD
