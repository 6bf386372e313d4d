"""A simulated board behind a fake sysfs tree, in accelerated real time.

``thermogov emulate --board B --sysfs-root DIR`` lets anyone run the real daemon
(``thermogov run --sysfs-root DIR``) without a board: every wall-clock step it reads the caps
the daemon wrote (``scaling_max_freq`` in kHz, devfreq ``max_freq`` in Hz), applies them to the
simulated domains as the kernel would (the highest OPP at or below the cap), advances the
plant by ``speed`` times the elapsed wall time, and writes the sensors' readings (with their
noise and lag) back into the tree's ``temp`` files.  Files are replaced atomically, so the
daemon never reads half a number.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
import signal
import threading
import time
from pathlib import Path

import click

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.interfaces import ConfigError, SensorError, ThermogovError
from thermogov.sim.fakeboard import FakeBoardLayout, build_fake_board
from thermogov.sim.world import SimWorld


def _replace(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class Emulator:
    def __init__(self, board: BoardProfile, root: Path, config: Config, speed: float = 10.0) -> None:
        if speed <= 0:
            raise ConfigError("--speed: must be > 0 (1 = real time)")
        self.board = board
        self.root = root
        self.speed = speed
        self.world = SimWorld(board, config)
        temps = {s.name: self.world.sensors[s.name]._node_temp() for s in board.sensors}
        self.layout: FakeBoardLayout = build_fake_board(board, root, temps)
        self._next_poll = {p.period_ms: 0.0 for p in board.protections}
        self.stop = threading.Event()

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
        for period, due in self._next_poll.items():
            if t_plant >= due:
                world.poll_protections()
                self._next_poll[period] = due + period / 1000.0
        for s in self.board.sensors:
            rel, scale = self.layout.temp_files[s.name]
            try:
                value = world.sensors[s.name].read().value_c
            except SensorError:
                continue
            _replace(self.root / rel, f"{round(value * scale)}\n")
        for name, dom in world.domains.items():
            for rel, hz_per_unit in self.layout.cur_files[name]:
                _replace(self.root / rel, f"{round(dom.effective_hz() / hz_per_unit)}\n")

    # -- real-time loop ---------------------------------------------------------------------
    def run(self, wall_duration_s: float | None, step_s: float = 0.02) -> float:
        """Step until ``wall_duration_s`` (or ``stop``); returns the simulated time reached."""
        start = time.monotonic()
        k = 0
        t_plant = 0.0
        while not self.stop.is_set():
            k += 1
            deadline = start + k * step_s
            if wall_duration_s is not None and deadline - start > wall_duration_s:
                break
            self.stop.wait(max(deadline - time.monotonic(), 0.0))
            t_plant = (time.monotonic() - start) * self.speed
            self.step(t_plant)
            if self.world.shutdown_at is not None:
                break
        return t_plant


@click.command("emulate")
@click.option("--board", default="jetson-orin-nano", show_default=True, help="Board profile to emulate.")
@click.option(
    "--sysfs-root", required=True, type=click.Path(file_okay=False), help="Folder to build the tree in."
)
@click.option(
    "--speed", type=float, default=10.0, show_default=True, help="Simulated seconds per wall second."
)
@click.option("--duration", help="Wall-clock time to run (600, 10m, 1h). Default: until Ctrl-C.")
@click.option("--ambient", type=float, default=25.0, show_default=True, help="Ambient temperature, °C.")
@click.option(
    "--initial-temp", type=float, help="Start every node at this temperature (default: idle steady state)."
)
@click.option("--seed", type=int, default=1, show_default=True)
def emulate_command(
    board: str,
    sysfs_root: str,
    speed: float,
    duration: str | None,
    ambient: float,
    initial_temp: float | None,
    seed: int,
) -> None:
    """Emulate a board behind a fake sysfs tree for `thermogov run --sysfs-root`.

    \b
    Example:
      thermogov emulate --board rpi5 --sysfs-root /tmp/pi5 &
      thermogov run --sysfs-root /tmp/pi5 --dry-run
    """
    from thermogov.board import load_board
    from thermogov.units import parse_duration_s

    wall = parse_duration_s(duration, "--duration") if duration else None
    profile = load_board(board)
    base = Config(board=board, seed=seed)
    cfg = dataclasses.replace(
        base, sim=dataclasses.replace(base.sim, ambient_c=ambient, initial_temp_c=initial_temp)
    )
    root = Path(sysfs_root)
    try:
        emu = Emulator(profile, root, cfg, speed)
    except OSError as e:
        raise ThermogovError(f"--sysfs-root: cannot build the tree in {root} ({e.strerror})") from e
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: emu.stop.set())
    click.echo(f"emulating {profile.name} under {root} at {speed:g}x; ready", err=False)
    reached = emu.run(wall)
    end = emu.world.shutdown_reason or "stopped"
    click.echo(f"emulated {reached:.1f} s of board time ({end})")
