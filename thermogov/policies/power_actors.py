"""Power actors for IPA: the cpufreq and devfreq cooling devices' power callbacks.

Sources: ``drivers/thermal/cpufreq_cooling.c`` (@03ab8e6, energy-model version) and
``drivers/thermal/devfreq_cooling.c`` (@0de967f, ``devfreq_cooling_power`` version), the two
cooling devices a Jetson binds (CPU clusters, GPU).  The power numbers come from
:mod:`thermogov.costmodel`, i.e. the board profile's energy model, rounded to the kernel's
integer units:

* **cpufreq**: EM table of per-CPU dynamic power (µW, ``C V² f``); ``get_requested_power`` =
  EM power at the current frequency x the summed load of the policy's CPUs (%) / 100;
  ``state2power(s)`` = EM power at frequency ``max_level - s`` x number of CPUs;
  ``power2state(P)``: ``P * 100 / last_load`` is per-CPU power, then the highest EM OPP whose
  power fits (the lowest if none does).
* **devfreq**: ``power_table[state]`` = dynamic power (mW) at the state's frequency, fully busy;
  ``get_requested_power`` = ``power_table[state(cur)] * busy / total + static``;
  ``state2power(s)`` = ``power_table[s] + static``; ``power2state(P)``: the first (fastest) state
  whose table power is within ``(P - static) * total / busy``, else the slowest.  Static power
  is the domain's leakage at the temperature of its die sensor (the platform callback's job).

Utilisation (``sched_cpu_util``, devfreq ``busy_time``) is not something the governor core
measures yet, so it is estimated from the board's inference model with the pipeline busy all
the time (a saturating stream): the busy cores per domain :func:`thermogov.costmodel.busy_cores`
gives at the current clocks.  Under a lighter load this over-states the request, which only
makes the split between actors and ``power2state`` conservative.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from thermogov import costmodel
from thermogov.board import BoardProfile, DomainProfile
from thermogov.policies.kernel import CoolingDevice
from thermogov.policies.ladder import governed_model

TOTAL_TIME = 1000  # devfreq status->total_time in our units (per mille)


@dataclass
class ActorInputs:
    """What a power callback may look at during one zone update."""

    freqs_hz: Mapping[str, int]  # current (effective) frequency per domain
    temp_c: float  # the domain's die temperature estimate, for static power


def _loads(board: BoardProfile, freqs_hz: Mapping[str, int]) -> dict[str, float]:
    # Stages on a domain the board lacks (no GPU devfreq) run at clocks we do not see.
    model = governed_model(board.model, set(freqs_hz))
    clocks = {d: freqs_hz[d] for d in model.cycles}
    return costmodel.busy_cores(model, clocks, 1.0) if clocks else {}


class CpufreqActor:
    def __init__(self, cdev: CoolingDevice, domain: DomainProfile, board: BoardProfile) -> None:
        self.cdev = cdev
        self.domain = domain
        self.board = board
        # EM perf states, ascending frequency: per-CPU dynamic power in µW.  The states are the
        # cooling device's own OPPs (the hardware's table on a board, which may differ from the
        # profile's: an Orin Nano on JetPack 5 tops out at 1510.4 MHz, the profile at 1728).
        self.em_uw = [round(costmodel.dynamic_power_w(domain, f, 1.0) * 1e6) for f in cdev.table_hz]
        self.freqs = list(cdev.table_hz)
        self.max_level = len(self.freqs) - 1
        self.last_load = 0

    def freq_to_power(self, freq_hz: int) -> int:
        """``cpu_freq_to_power``: mW of the lowest EM state at or above ``freq_hz``."""
        i = self.max_level - 1
        while i >= 0:
            if freq_hz > self.freqs[i]:
                break
            i -= 1
        return self.em_uw[i + 1] // 1000

    def power_to_freq(self, power_mw: int) -> int:
        """``cpu_power_to_freq``: the highest EM frequency whose mW fit in ``power_mw``."""
        i = self.max_level
        while i > 0:
            if power_mw >= self.em_uw[i] // 1000:
                break
            i -= 1
        return self.freqs[i]

    def requested_power(self, inp: ActorInputs) -> int:
        busy = _loads(self.board, inp.freqs_hz).get(self.domain.name, 0.0)
        self.last_load = round(100.0 * busy)  # sum of per-CPU load percentages
        return self.freq_to_power(inp.freqs_hz[self.domain.name]) * self.last_load // 100

    def state2power(self, state: int, inp: ActorInputs) -> int:
        return self.freq_to_power(self.freqs[self.max_level - state]) * self.domain.cores

    def power2state(self, power_mw: int, inp: ActorInputs) -> int:
        last_load = self.last_load or 1
        normalised = power_mw * 100 // last_load
        return self.cdev.state_of(self.power_to_freq(normalised))


class DevfreqActor:
    def __init__(self, cdev: CoolingDevice, domain: DomainProfile, board: BoardProfile) -> None:
        self.cdev = cdev
        self.domain = domain
        self.board = board
        self.freq_table = list(reversed(cdev.table_hz))  # descending: index = cooling state
        self.power_table = [
            round(costmodel.dynamic_power_w(domain, f, domain.cores) * 1000) for f in self.freq_table
        ]
        self.busy_time = TOTAL_TIME

    def static_power(self, freq_hz: int, temp_c: float) -> int:
        return round(costmodel.leakage_w(self.domain, freq_hz, temp_c) * 1000)

    def requested_power(self, inp: ActorInputs) -> int:
        freq = inp.freqs_hz[self.domain.name]
        busy = _loads(self.board, inp.freqs_hz).get(self.domain.name, 0.0) / self.domain.cores
        self.busy_time = round(TOTAL_TIME * min(busy, 1.0))
        # The highest table OPP at or below the clock (a board's cur_freq need not be an OPP).
        i = next((k for k, f in enumerate(self.freq_table) if f <= freq), len(self.freq_table) - 1)
        dyn = self.power_table[i] * self.busy_time // TOTAL_TIME
        return dyn + self.static_power(freq, inp.temp_c)

    def state2power(self, state: int, inp: ActorInputs) -> int:
        return self.power_table[state] + self.static_power(self.freq_table[state], inp.temp_c)

    def power2state(self, power_mw: int, inp: ActorInputs) -> int:
        static = self.static_power(inp.freqs_hz[self.domain.name], inp.temp_c)
        dyn = max(power_mw - static, 0)
        busy = self.busy_time or 1
        est = dyn * TOTAL_TIME // busy
        i = 0
        while i < len(self.freq_table) - 1:
            if est >= self.power_table[i]:
                break
            i += 1
        return i


PowerActor = CpufreqActor | DevfreqActor


def make_actor(cdev: CoolingDevice, board: BoardProfile) -> PowerActor:
    domain = board.domain(cdev.domain)
    if domain.kind == "cpufreq":
        return CpufreqActor(cdev, domain, board)
    return DevfreqActor(cdev, domain, board)
