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
import contextlib
import dataclasses
import math
import os
import signal
import threading
import time
from pathlib import Path

import click

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.interfaces import ConfigError, SensorError, ThermogovError
from thermogov.sim.emulator.fakeboard import FakeBoardLayout, build_fake_board, power_off
from thermogov.sim.model.world import SimWorld

MAX_SPEED = 100.0  # above this a 20 ms wall step is > 2 s of board time: sensors would jump


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

    def _write_rails(self) -> None:
        """Rail currents in mA from the model's power: the whole board, some domains, a rest share."""
        if not self.layout.rails:
            return
        world = self.world
        per_domain = world.domain_power_w()
        total = world.last_power_w or 0.0
        rest = self.board.thermal.rest_of_board_w
        for rel, rail in self.layout.rails:
            watts = total if rail.input else sum(per_domain.get(d, 0.0) for d in rail.domains)
            watts += rail.rest_share * rest
            ma = round(watts / rail.volt_v * 1000) if rail.volt_v > 0 else 0  # an NC channel reads 0
            _replace(self.root / rel, f"{ma}\n")

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
    if not math.isfinite(speed) or not 0.0 < speed <= MAX_SPEED:
        raise ConfigError(
            f"--speed: {speed:g} is out of range; give simulated seconds per wall second, "
            f"0 < speed <= {MAX_SPEED:g} (1 = real time)"
        )


@click.command(
    "emulate",
    epilog="Example: thermogov emulate --sysfs-root /tmp/orin --speed 10 --wall-duration 10m & "
    "sudo thermogov run --sysfs-root /tmp/orin --board jetson-orin-nano --duration 5m",
)
@click.option("--board", default="jetson-orin-nano", show_default=True, help="Board profile to emulate.")
@click.option(
    "--sysfs-root", required=True, type=click.Path(file_okay=False), help="Folder to build the tree in."
)
@click.option(
    "--speed",
    type=click.FloatRange(0.0, MAX_SPEED, min_open=True),
    metavar="FLOAT",
    default=1.0,
    show_default=True,
    help=f"Simulated seconds per wall second, 0 < speed <= {MAX_SPEED:g}. 1 is real time, what a "
    "daemon on a board sees; faster runs minutes of board time in seconds (the daemon's own "
    "trace stays in wall time).",
)
@click.option(
    "--wall-duration",
    help="Wall-clock time to run (600, 10m, 1h); board time is this times --speed. Default: until Ctrl-C.",
)
@click.option("--duration", "old_duration", hidden=True, help="Deprecated name of --wall-duration.")
@click.option("--ambient", type=float, default=25.0, show_default=True, help="Ambient temperature, °C.")
@click.option(
    "--initial-temp", type=float, help="Start every node at this temperature (default: idle steady state)."
)
@click.option(
    "--warm-up",
    help="Board time to run flat out before the tree goes live (90s, 5m): start hot without waiting.",
)
@click.option("--seed", type=int, default=1, show_default=True)
def emulate_command(
    board: str,
    sysfs_root: str,
    speed: float,
    wall_duration: str | None,
    old_duration: str | None,
    ambient: float,
    initial_temp: float | None,
    warm_up: str | None,
    seed: int,
) -> None:
    """Emulate a board behind a fake sysfs tree for `thermogov run --sysfs-root`.

    The tree is shaped like the board's own (thermal zones with their trip points, cpufreq and
    devfreq with the OPPs the kernel lists, power rails).  When the simulated board shuts down
    (critical trip, empty battery) the emulator says so in one line, marks the tree
    POWERED_OFF, removes its sensors and exits 1; a stop (Ctrl-C, --wall-duration) marks it too
    and exits 0.

    \b
    Example:
      thermogov emulate --board rpi5 --sysfs-root /tmp/pi5 &
      thermogov run --sysfs-root /tmp/pi5 --dry-run
    """
    from thermogov.board import load_board
    from thermogov.units import parse_duration_s

    check_speed(speed)
    for opt_name, value, lo, hi in (
        ("--ambient", ambient, -40.0, 60.0),
        ("--initial-temp", initial_temp, -40.0, 150.0),
    ):
        if value is not None and not (math.isfinite(value) and lo <= value <= hi):
            raise ConfigError(f"{opt_name}: {value:g} is out of range; give °C from {lo:g} to {hi:g}")
    if old_duration and wall_duration:
        raise ConfigError("--duration: deprecated alias of --wall-duration; give only --wall-duration")
    text, opt = (wall_duration, "--wall-duration") if wall_duration else (old_duration, "--duration")
    wall = parse_duration_s(text, opt) if text else None
    if old_duration:
        click.echo("thermogov: emulate --duration is deprecated; use --wall-duration", err=True)
    warm = parse_duration_s(warm_up, "--warm-up") if warm_up else 0.0
    profile = load_board(board)
    base = Config(board=board, seed=seed)
    cfg = dataclasses.replace(
        base, sim=dataclasses.replace(base.sim, ambient_c=ambient, initial_temp_c=initial_temp)
    )
    root = Path(sysfs_root)
    try:
        emu = Emulator(profile, root, cfg, speed, warm)
    except OSError as e:
        raise ThermogovError(f"--sysfs-root: cannot build the tree in {root} ({e.strerror})") from e
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: emu.stop.set())
    click.echo(f"emulating {profile.name} under {root} at {speed:g}x; ready", err=False)
    try:
        reached = emu.run(wall)
    except OSError as e:  # the tree was removed or made unwritable under us
        why = f"cannot update {e.filename or root} ({e.strerror})"
        with contextlib.suppress(OSError):
            emu.power_off(why)
        click.echo(f"thermogov: emulator failed: {why}; the emulated board is gone", err=True)
        raise click.exceptions.Exit(1) from None
    world = emu.world
    if world.shutdown_at is not None:
        why = f"{world.shutdown_reason} after {world.shutdown_at:.1f} s of board time"
        emu.power_off(why)
        click.echo(
            f"thermogov: emulated {profile.name} powered off: {why}; {root} is marked POWERED_OFF", err=True
        )
        raise click.exceptions.Exit(1)
    emu.power_off(f"emulator stopped after {reached:.1f} s of board time")
    click.echo(f"emulated {reached:.1f} s of board time (stopped); {root} is marked POWERED_OFF")
