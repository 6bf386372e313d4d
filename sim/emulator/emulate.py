"""A simulated board behind a fake sysfs tree, in accelerated real time.

``thermogov emulate --board B --sysfs-root DIR`` lets anyone run the real daemon
(``thermogov run --sysfs-root DIR``) without a board: every wall-clock step it reads the caps
the daemon wrote (``scaling_max_freq`` in kHz, devfreq ``max_freq`` in Hz), applies them to the
simulated domains as the kernel would (the highest OPP at or below the cap), advances the
plant by ``speed`` times the elapsed wall time, and writes the sensors' readings (with their
noise and lag) back into the tree's ``temp`` files.  Files are replaced atomically, so the
daemon never reads half a number.

The emulator never dies quietly.  When the simulated board shuts down (a critical trip, an
empty battery) or the emulator stops, it *powers the tree off*: a ``POWERED_OFF`` file at the
root says why, and the sensors' directories (thermal zones, hwmon chips, power supplies)
disappear, as they do when a real board loses power.  A daemon still governing the tree loses
every sensor and goes to its failsafe; a later ``run`` or ``doctor`` on it refuses with that
line (``thermogov.hw.discovery``).  A shutdown also ends ``emulate`` with exit status 1.
"""

from __future__ import annotations

import bisect
import math
import os
import threading
import time
from pathlib import Path

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.interfaces import ConfigError, SensorError
from thermogov.sim.emulator.fakeboard import FakeBoardLayout, build_fake_board, power_off
from thermogov.sim.emulator.fanfiles import EmulatedFan
from thermogov.sim.emulator.firmwarebits import FirmwareBits
from thermogov.sim.emulator.trees import Rail
from thermogov.sim.model.world import SimWorld

#: Root-level file holding the simulated inference server's running total, so a workload
#: (``thermogov.sim.emulator.feed``) can report the emulated board's throughput to the daemon.
INFERENCES_FILE = "EMULATED_INFERENCES"
MAX_SPEED = 100.0  # above this a 20 ms wall step is > 2 s of board time: sensors would jump
#: The same rule mirrored: below this one second of board time takes more than 100 s of wall
#: time, so a stock profile's slowest sensor (2 s) changes less than once in 200 s and a
#: 10-minute run emulates under 6 s.  Much lower speeds emulate nothing at all (1e-300 stayed at
#: "0.0 s of board time"; the clock's steps became denormal, hostile round 26h).
MIN_SPEED = 1.0 / MAX_SPEED


def _replace(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class Emulator:
    def __init__(
        self, board: BoardProfile, root: Path, config: Config, speed: float = 1.0, warm_up_s: float = 0.0
    ) -> None:
        check_speed(speed)
        self.board = board
        self.root = root
        self.speed = speed
        self.world = SimWorld(board, config)
        self._next_poll = {p.period_ms: 0.0 for p in board.protections}
        self.t0 = 0.0
        if warm_up_s > 0:
            self._warm_up(warm_up_s)
        temps = {s.name: self.world.sensors[s.name]._node_temp() for s in board.sensors}
        self.layout: FakeBoardLayout = build_fake_board(board, root, temps)
        self.firmware = FirmwareBits(board, root)
        self.firmware.update(self._firmware_throttling())
        hwmons = len(list((root / "sys/class/hwmon").glob("hwmon*")))
        self.fan = EmulatedFan(root, self.world.fan, hwmons) if self.world.fan is not None else None
        self.stop = threading.Event()

    def _warm_up(self, seconds: float, step_s: float = 0.5) -> None:
        """Run the board flat out (no governor) for ``seconds`` of board time before going live.

        A test or a demo at real time then starts near the interesting temperatures without
        waiting minutes, with every node (die, lid, battery) where that history puts it, which
        ``--initial-temp`` (one temperature for all) cannot do.
        """
        t = 0.0
        while t < seconds:
            t = min(t + step_s, seconds)
            self.world.advance(t)
            self._poll(t)
            if self.world.shutdown_at is not None:
                raise ConfigError(
                    f"--warm-up: the board shuts down after {self.world.shutdown_at:.0f} s at full clocks "
                    f"({self.world.shutdown_reason}); give a shorter warm-up"
                )
        self.t0 = seconds

    def _poll(self, t_plant: float) -> None:
        for period, due in self._next_poll.items():
            if t_plant >= due:
                self.world.poll_protections()
                self._next_poll[period] = due + period / 1000.0

    # -- one step ---------------------------------------------------------------------------
    def _read_cap(self, domain: str) -> int | None:
        """The tightest cap over the domain's files (a cluster capped anywhere is capped)."""
        caps = []
        for rel, hz_per_unit in self.layout.cap_files[domain]:
            try:
                caps.append(int((self.root / rel).read_text().strip()) * hz_per_unit)
            except (OSError, ValueError):
                continue  # mid-write or garbage: keep the previous cap, as a kernel would
        return int(min(caps)) if caps else None

    def step(self, t_plant: float) -> None:
        world = self.world
        for name, dom in world.domains.items():
            cap = self._read_cap(name)
            if cap is None:
                continue
            table = dom.table_hz
            opp = table[max(bisect.bisect_right(table, cap) - 1, 0)]
            if opp != dom.cap_hz:
                dom.apply(opp)
        world.advance(t_plant)
        self._poll(t_plant)
        if self.fan is not None:
            self.fan.step()
        values = {}
        for s in self.board.sensors:
            rel, scale = self.layout.temp_files[s.name]
            try:
                values[s.name] = value = world.sensors[s.name].read().value_c
            except SensorError:
                continue
            _replace(self.root / rel, f"{round(value * scale)}\n")
        for rel, sensor in self.layout.temp_mirrors:
            if sensor in values:
                _replace(self.root / rel, f"{round(values[sensor] * 1000)}\n")
        for name, dom in world.domains.items():
            for rel, hz_per_unit in self.layout.cur_files[name]:
                _replace(self.root / rel, f"{round(dom.effective_hz() / hz_per_unit)}\n")
        self._write_rails()
        _replace(self.root / INFERENCES_FILE, f"{world.inferences_total() or 0}\n")
        self.firmware.update(self._firmware_throttling())

    def _firmware_throttling(self) -> bool:
        return any(th.active and not th.p.visible for th in self.world.throttles)

    def _write_rails(self) -> None:
        """Rail currents in mA from the model's power: the whole board, some domains, a rest share
        (and an iio chip's power in mW, L4T 28's ``in_powerN_input``)."""
        if not self.layout.rails:
            return
        world = self.world
        per_domain = world.domain_power_w()
        total = world.last_power_w or 0.0
        rest = self.board.thermal.rest_of_board_w

        def watts_of(rail: Rail) -> float:
            watts = total if rail.input else sum(per_domain.get(d, 0.0) for d in rail.domains)
            return watts + rail.rest_share * rest

        for rel, rail in self.layout.rails:
            watts = watts_of(rail)
            ma = round(watts / rail.volt_v * 1000) if rail.volt_v > 0 else 0  # an NC channel reads 0
            _replace(self.root / rel, f"{ma}\n")
        for rel, rail in self.layout.rail_powers:
            _replace(self.root / rel, f"{round(watts_of(rail) * 1000)}\n")

    # -- real-time loop ---------------------------------------------------------------------
    def run(self, wall_duration_s: float | None, step_s: float = 0.02) -> float:
        """Step until ``wall_duration_s`` (or ``stop``); returns the simulated time reached."""
        start = time.monotonic()
        k = 0
        t_plant = self.t0
        while not self.stop.is_set():
            k += 1
            deadline = start + k * step_s
            if wall_duration_s is not None and deadline - start > wall_duration_s:
                break
            self.stop.wait(max(deadline - time.monotonic(), 0.0))
            t_plant = self.t0 + (time.monotonic() - start) * self.speed
            self.step(t_plant)
            if self.world.shutdown_at is not None:
                break
        return t_plant

    def power_off(self, why: str) -> None:
        """Mark the tree dead and take its sensors away (see the module docstring)."""
        power_off(self.root, why)


def check_speed(speed: float) -> None:
    if not math.isfinite(speed) or not MIN_SPEED <= speed <= MAX_SPEED:
        raise ConfigError(
            f"--speed: {speed:g} is out of range; give simulated seconds per wall second, "
            f"{MIN_SPEED:g} <= speed <= {MAX_SPEED:g} (1 = real time)"
        )
